/**
 * The driver (docs/people.md#the-driver): taking, forcing, releasing, and epoch fencing of steer/interrupt —
 * including a race of people on both instances, audited against the log afterwards.
 */
import { expect, test } from "bun:test";
import { RoomError } from "../../../src/protocol/errors.ts";
import { NO_DRIVER } from "../../../src/protocol/people.ts";
import { iso } from "../../../src/protocol/time.ts";
import {
  allEvents,
  expectRefusedUnchanged,
  expectRoomError,
  instanceFor,
  newScope,
  newTeam,
  type Suite,
} from "./harness.ts";

const human = (id: string) => ({ holder: `human:${id}`, kind: "human" as const });
const agent = (id: string) => ({ holder: id, kind: "agent" as const });

export function driverTests(suite: Suite): void {
  test("a room nobody drove: no driver at epoch 0; reading it claims nothing", async () => {
    const scope = newScope();
    expect(await suite.store.getDriver(scope)).toEqual(NO_DRIVER);
    expect((await suite.store.roomInfo(scope)).exists).toBe(false);
  });

  test("a person takes a free wheel: epoch 1, driver_changed to all, and again is a no-op", async () => {
    const scope = newScope();
    const now = suite.clock.now();
    const taken = await suite.store.takeDriver(scope, human("alice"));
    expect(taken).toEqual({ holder: "human:alice", holderKind: "human", epoch: 1, since: iso(now) });
    expect(await suite.second.getDriver(scope)).toEqual(taken);
    expect(await suite.store.takeDriver(scope, human("alice"))).toEqual(taken);
    const events = await allEvents(suite.store, scope);
    expect(events.map((e) => [e.type, e.from, e.to, e.payload])).toEqual([
      [
        "driver_changed",
        "human:alice",
        "all",
        { holder: "human:alice", previous: null, epoch: 1, reason: "taken" },
      ],
    ]);
  });

  test("another person is refused, naming the driver; an operator's force takes it (epoch + 1)", async () => {
    const scope = newScope();
    const first = await suite.store.takeDriver(scope, human("alice"));
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.second.takeDriver(scope, human("bob")),
      "conflict",
      `The room is driven by human:alice since ${first.since}; they release it, or an operator takes it with force`,
    );
    const forced = await suite.second.takeDriver(scope, { ...human("bob"), force: true });
    expect(forced).toMatchObject({ holder: "human:bob", holderKind: "human", epoch: 2 });
    const last = (await allEvents(suite.store, scope)).at(-1);
    expect(last?.payload).toEqual({
      holder: "human:bob",
      previous: "human:alice",
      epoch: 2,
      reason: "forced",
    });
  });

  test("an agent claims only a free wheel, and yields at once when a person takes it", async () => {
    const scope = newScope();
    const claimed = await suite.store.takeDriver(scope, agent("factory"));
    expect(claimed).toMatchObject({ holder: "factory", holderKind: "agent", epoch: 1 });
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.takeDriver(scope, agent("other-bot")),
      "conflict",
      "The room is driven by factory (epoch 1): claim_driver succeeds only when nobody drives",
    );
    const taken = await suite.second.takeDriver(scope, human("carol"));
    expect(taken).toMatchObject({ holder: "human:carol", holderKind: "human", epoch: 2 });
    expect((await allEvents(suite.store, scope)).at(-1)?.payload).toMatchObject({
      reason: "taken_from_agent",
    });
    await expectRoomError(
      suite.store.takeDriver(scope, agent("factory")),
      "conflict",
      /claim_driver succeeds only/,
    );
  });

  test("release: only the holder, only at the current epoch; the epoch still grows", async () => {
    const scope = newScope();
    await suite.store.takeDriver(scope, human("alice"));
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.releaseDriver(scope, { holder: "human:alice", epoch: 7 }),
      "conflict",
      "Stale driver epoch 7; the driver is now human:alice at epoch 1",
    );
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.releaseDriver(scope, { holder: "human:bob", epoch: 1 }),
      "forbidden",
      "Only the driver (human:alice) can release the wheel",
    );
    const released = await suite.store.releaseDriver(scope, { holder: "human:alice", epoch: 1 });
    expect(released).toMatchObject({ holder: null, holderKind: null, epoch: 2 });
    expect((await allEvents(suite.store, scope)).at(-1)?.payload).toEqual({
      holder: null,
      previous: "human:alice",
      epoch: 2,
      reason: "released",
    });
    // Anyone may take a released wheel; the agent too.
    expect(await suite.store.takeDriver(scope, agent("bot"))).toMatchObject({ holder: "bot", epoch: 3 });
  });

  test("steer and interrupt: the driver at the current epoch lands; stale or not the driver is refused", async () => {
    const scope = newScope();
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () =>
        suite.store.driverAct(scope, { type: "steer", by: "human:alice", epoch: 0, to: "bot", text: "x" }),
      "forbidden",
      "Only the driver can steer; nobody drives this room: take the wheel first",
    );
    await suite.store.takeDriver(scope, human("alice"));
    const steer = await suite.store.driverAct(scope, {
      type: "steer",
      by: "human:alice",
      epoch: 1,
      to: "bot",
      text: "use the v2 endpoint",
    });
    expect(steer).toMatchObject({
      type: "steer",
      from: "human:alice",
      to: "bot",
      payload: { text: "use the v2 endpoint", epoch: 1 },
    });
    const interrupt = await suite.second.driverAct(scope, {
      type: "interrupt",
      by: "human:alice",
      epoch: 1,
      to: "bot",
      text: "wrong branch",
    });
    expect(interrupt.payload).toEqual({ reason: "wrong branch", epoch: 1 });
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () =>
        suite.store.driverAct(scope, { type: "interrupt", by: "human:bob", epoch: 1, to: "bot", text: "x" }),
      "forbidden",
      "Only the driver (human:alice) can interrupt",
    );
    await suite.store.takeDriver(scope, { ...human("bob"), force: true });
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () =>
        suite.store.driverAct(scope, { type: "steer", by: "human:alice", epoch: 1, to: "bot", text: "x" }),
      "conflict",
      "Stale driver epoch 1; the driver is now human:bob at epoch 2",
    );
  });

  test("another team's room is denied like a missing one, for every driver operation", async () => {
    const scope = newScope();
    await suite.store.takeDriver(scope, human("alice"));
    const other = { ...scope, teamId: newTeam() };
    // Called one at a time: a refusal settling before its turn to be awaited would be an unhandled rejection.
    const denied = [
      () => suite.store.getDriver(other),
      () => suite.store.takeDriver(other, { ...human("mallory"), force: true }),
      () => suite.store.releaseDriver(other, { holder: "human:alice", epoch: 1 }),
      () =>
        suite.store.driverAct(other, { type: "steer", by: "human:alice", epoch: 1, to: "bot", text: "x" }),
    ];
    for (const call of denied) await expectRoomError(call(), "denied", "Room not found or access denied");
  });

  test("12 people on two instances race take (forced) then steer with the epoch they saw: every stale epoch is refused, every landed steer carried the epoch current when it was appended", async () => {
    const scope = newScope();
    await suite.store.takeDriver(scope, agent("factory"));
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const store = instanceFor(suite, i);
        const me = `human:p${i}`;
        const results: string[] = [];
        for (let round = 0; round < 3; round++) {
          let seen: number;
          try {
            seen = (await store.takeDriver(scope, { holder: me, kind: "human", force: true })).epoch;
          } catch (error) {
            results.push(`take:${(error as RoomError).kind}`);
            continue;
          }
          try {
            await store.driverAct(scope, {
              type: "steer",
              by: me,
              epoch: seen,
              to: "bot",
              text: `${me} r${round}`,
            });
            results.push("landed");
          } catch (error) {
            if (!(error instanceof RoomError)) throw error;
            expect(error.message).toMatch(
              /^(Stale driver epoch \d+; the driver is now human:p\d+ at epoch \d+|Only the driver \(human:p\d+\) can steer)$/,
            );
            results.push(`refused:${error.kind}`);
          }
        }
        return results;
      }),
    );
    const flat = outcomes.flat();
    expect(flat.filter((r) => r.startsWith("take:"))).toEqual([]);
    // Audit: replay the log; a steer must carry the epoch of the driver_changed before it, and come from that holder.
    let epoch = 0;
    let holder: string | null = null;
    let landed = 0;
    let changes = 0;
    for (const event of await allEvents(suite.store, scope)) {
      if (event.type === "driver_changed") {
        changes += 1;
        epoch = event.payload.epoch as number;
        holder = event.payload.holder as string | null;
      } else if (event.type === "steer") {
        landed += 1;
        expect({ epoch: event.payload.epoch, from: event.from as string | null }).toEqual({
          epoch,
          from: holder,
        });
      }
    }
    expect(landed).toBe(flat.filter((r) => r === "landed").length);
    expect(landed).toBeGreaterThan(0);
    // The epoch grew by exactly one per change of holder (a person re-taking what they hold changes nothing).
    expect(epoch).toBe(changes);
    expect((await suite.store.getDriver(scope)).epoch).toBe(changes);
  });
}
