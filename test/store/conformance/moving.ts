/**
 * Moving rooms (move-types.ts MoveStore): a room exported and imported under a new id exports the same lines
 * (header aside) and reads and behaves the same — same ids, seqs, times, versions, cursors, counters; an import
 * into a taken id is refused and changes nothing; the access records a migration copies.
 */
import { expect, test } from "bun:test";
import { openExport, type RoomExport } from "../../../src/moving/export.ts";
import { readExport, type VerifiedImport } from "../../../src/moving/import-file.ts";
import { ACCESS_DENIED } from "../../../src/protocol/errors.ts";
import type { RoomScope, RoomStore } from "../../../src/store/types.ts";
import { fillRoom } from "../../support/rich-room.ts";
import {
  allEvents,
  claimedRoom,
  expectRefusedUnchanged,
  expectRoomError,
  newDigest,
  newInvite,
  newKey,
  newScope,
  newTask,
  newTeam,
  ROOMS_PER_TEAM,
  type Suite,
} from "./harness.ts";

export async function exportText(store: RoomStore, scope: RoomScope, now: number): Promise<string> {
  const opened = (await openExport(store, scope, now)) as RoomExport;
  let text = "";
  for await (const line of opened.lines()) text += line;
  return text;
}

export async function verified(text: string, maxBytes = 1 << 30): Promise<VerifiedImport> {
  return readExport(
    (async function* () {
      yield new TextEncoder().encode(text);
    })(),
    maxBytes,
  );
}

/** Every line but the header (which names the room and the time of the export). */
export const body = (text: string) => text.split("\n").slice(1);

async function reads(store: RoomStore, scope: RoomScope) {
  const context = await store.listContext(scope, {});
  return {
    plan: await store.readPlan(scope),
    context,
    history: await Promise.all(context.map((e) => store.contextHistory(scope, e.id))),
    events: await allEvents(store, scope),
    vars: await store.listVars(scope),
    reviews: await store.listReviews(scope, {}),
    approvals: await store.listApprovals(scope),
    handoffs: await store.listHandoffs(scope),
    verdicts: await store.listVerdicts(scope),
    driver: await store.getDriver(scope),
    claims: await store.listClaims(scope, {}),
    search: await store.search(scope, { terms: ["users"], types: ["task", "context", "event"], limit: 10 }),
    searchEvents: await store.search(scope, { terms: ["port"], types: ["event"], limit: 10 }),
    analytics: await store.analyticsLog(scope),
  };
}

export function movingTests(suite: Suite): void {
  test("export → import under a new id → export: the same lines, the same reads, the same behaviour", async () => {
    const scope = newScope();
    await fillRoom(suite.store, scope);
    const now = suite.clock.now();
    const text = await exportText(suite.store, scope, now);
    const copy = { roomId: `${scope.roomId}-copy`, teamId: scope.teamId };
    const file = await verified(text);
    try {
      await suite.second.importRoom(copy, file);
    } finally {
      file.close();
    }
    const again = await exportText(suite.store, copy, now);
    expect(body(again)).toEqual(body(text));
    expect(JSON.parse(again.split("\n")[0] as string).roomId).toBe(copy.roomId);
    const copied = await reads(suite.store, copy);
    expect({ ...copied, plan: { ...copied.plan, project: scope.roomId } }).toEqual(
      await reads(suite.store, scope),
    );

    // Cursors, marks and counters carry on: both rooms answer the same to the same calls.
    const next = async (room: RoomScope) => ({
      bob: await suite.store.consumeEvents(room, "bob", 100),
      carol: await suite.store.summary(room, "carol", 100),
      bridge: await suite.store.bridge(room, { agentId: "bob", hook: "UserPromptSubmit" }),
      task: await suite.store.addTask(room, newTask("after the move")),
      context: (
        await suite.store.writeContext(room, {
          type: "note",
          summary: "after",
          consuming_agents: [],
          payload: { text: "n" },
          author: "alice",
        })
      ).id,
      review: (
        await suite.store.requestReview(room, { requester: "a", reviewer: "b", subject: "s", details: "" })
      ).id,
      approval: (
        await suite.store.requestApproval(room, {
          requestedBy: "a",
          action: "x",
          details: {},
          expiresInMs: 1000,
        })
      ).id,
      verdict: (
        await suite.store.recordVerdict(room, {
          by: "a",
          verdict: "fail",
          summary: "s",
          details: "",
          ref: null,
        })
      ).id,
      event: (await suite.store.postEvent(room, { type: "t", from: "a", to: "all", payload: {} })).seq,
      leases: await suite.store.renewLeases(room, "bob"),
      files: await suite.store.checkFiles(room, "carol", ["src/api/x.ts"]),
    });
    // Presence is liveness, not carried: the copy's summary shows only who called it since.
    const same = (r: Awaited<ReturnType<typeof next>>) => ({
      ...r,
      carol: { ...r.carol, roomId: "", presence: [] },
    });
    const [a, b] = [await next(scope), await next(copy)];
    expect(same(b)).toEqual(same(a));
    // The lock's fence carries on; its holder (liveness) does not.
    const lock = await suite.store.acquireLock(copy, "deploy", "carol", 1000);
    expect({ acquired: lock.acquired, fence: lock.fence }).toEqual({ acquired: true, fence: 3 });
  });

  test("a copy of a fork never mints an id its copied log names (approvals, handoffs, verdicts)", async () => {
    const scope = await claimedRoom(suite.store);
    const task = await suite.store.addTask(scope, newTask("hand me over"));
    const minted = async (room: RoomScope) => ({
      approval: (
        await suite.store.requestApproval(room, {
          requestedBy: "a",
          action: "x",
          details: {},
          expiresInMs: 1000,
        })
      ).id,
      handoff: (
        await suite.store.offerHandoff(room, {
          from: "human:alice",
          to: "bob",
          taskIds: [task.id],
          contextIds: [],
          note: "",
          offeredBy: "human:alice",
          agentOffer: false,
        })
      ).id,
      verdict: (
        await suite.store.recordVerdict(room, {
          by: "a",
          verdict: "pass",
          summary: "s",
          details: "",
          ref: null,
        })
      ).id,
    });
    expect(await minted(scope)).toEqual({ approval: "apr-1", handoff: "hof-1", verdict: "vrd-1" });
    // The fork holds none of those records, only the log naming them.
    const fork = { roomId: `${scope.roomId}-fork`, teamId: scope.teamId };
    await suite.store.forkRoom(scope, { newRoomId: fork.roomId, by: "human:alice" });
    const file = await verified(await exportText(suite.store, fork, suite.clock.now()));
    const copy = { roomId: `${scope.roomId}-copy`, teamId: scope.teamId };
    try {
      await suite.second.importRoom(copy, file);
    } finally {
      file.close();
    }
    const expected = { approval: "apr-2", handoff: "hof-2", verdict: "vrd-2" };
    expect(await minted(copy)).toEqual(expected);
    expect(await minted(fork)).toEqual(expected);
  });

  test("a trimmed room round-trips: its log starts at trimmedBefore and stays trimmed", async () => {
    const store = await suite.factory.open(suite.clock.now, { retention: { maxEvents: 3, maxAgeMs: 0 } });
    try {
      const scope = newScope();
      for (let i = 0; i < 7; i++)
        await store.postEvent(scope, { type: "n", from: "a", to: "all", payload: { i } });
      await store.consumeEvents(scope, "bob", 1);
      const text = await exportText(store, scope, suite.clock.now());
      expect(JSON.parse(text.split("\n")[0] as string)).toMatchObject({ head: 7, trimmedBefore: 5 });
      const copy = { ...scope, roomId: `${scope.roomId}-t` };
      const file = await verified(text);
      await suite.store.importRoom(copy, file);
      file.close();
      expect(body(await exportText(suite.store, copy, suite.clock.now()))).toEqual(body(text));
      const [x, y] = [
        await suite.store.consumeEvents(scope, "carol", 10),
        await suite.store.consumeEvents(copy, "carol", 10),
      ];
      expect(y).toEqual(x);
      expect(x.trimmedBefore).toBe(5);
    } finally {
      await store.close();
    }
  });

  test("a room larger than one write of the driver round-trips (a long log, a big index)", async () => {
    const scope = newScope();
    // 500 distinct words each (index writes beyond one part) and 6 KB of one word (log writes beyond one part).
    const words = Array.from({ length: 500 }, (_, i) => `w${i.toString(36)}`).join(" ");
    const blob = "z".repeat(6000);
    for (let i = 0; i < 80; i++) {
      await suite.store.postEvent(scope, {
        type: "big",
        from: "a",
        to: i % 2 ? "all" : "b",
        payload: { i, words, blob },
      });
    }
    await suite.store.consumeEvents(scope, "b", 7);
    const text = await exportText(suite.store, scope, suite.clock.now());
    expect(text.length).toBeGreaterThan(512 * 1024);
    const copy = { ...scope, roomId: `${scope.roomId}-big` };
    const file = await verified(text);
    await suite.second.importRoom(copy, file);
    file.close();
    expect(body(await exportText(suite.store, copy, suite.clock.now()))).toEqual(body(text));
    const query = { terms: ["w1a"], types: ["event" as const], limit: 50 };
    expect(await suite.store.search(copy, query)).toEqual(await suite.store.search(scope, query));
    expect(await suite.store.consumeEvents(copy, "b", 100)).toEqual(
      await suite.store.consumeEvents(scope, "b", 100),
    );
  });

  test("an empty room round-trips", async () => {
    const scope = await claimedRoom(suite.store);
    const text = await exportText(suite.store, scope, suite.clock.now());
    const copy = { ...scope, roomId: `${scope.roomId}-e` };
    const file = await verified(text);
    await suite.store.importRoom(copy, file);
    file.close();
    expect(body(await exportText(suite.store, copy, suite.clock.now()))).toEqual(body(text));
    expect(await suite.store.listRooms(scope.teamId)).toHaveLength(2);
  });

  test("import into a taken id is refused and changes nothing; another team's id reads as missing", async () => {
    const source = newScope();
    await fillRoom(suite.store, source);
    const text = await exportText(suite.store, source, suite.clock.now());
    const taken = newScope();
    await suite.store.addTask(taken, newTask("already here"));
    const file = await verified(text);
    try {
      await expectRefusedUnchanged(
        suite.store,
        taken,
        () => suite.store.importRoom({ ...taken }, file),
        "conflict",
        `Room ${taken.roomId} already exists; import into a new room id`,
      );
      await expectRoomError(
        suite.store.importRoom({ roomId: taken.roomId, teamId: newTeam() }, file),
        "denied",
        ACCESS_DENIED,
      );
    } finally {
      file.close();
    }
    expect((await suite.store.readPlan(taken)).tasks.map((t) => t.title)).toEqual(["already here"]);
  });

  test("an import counts towards the room limit", async () => {
    const team = newTeam();
    const text = await exportText(suite.store, await ownedRoomWithTask(suite.store), suite.clock.now());
    for (let i = 0; i < ROOMS_PER_TEAM; i++)
      await suite.limited.createRoom({ roomId: newScope().roomId, teamId: team });
    const file = await verified(text);
    try {
      await expectRoomError(
        suite.limited.importRoom({ roomId: newScope().roomId, teamId: team }, file),
        "limit",
        /room/i,
      );
    } finally {
      file.close();
    }
  });

  test("exportRoom of an unowned room is null; of another team's, denied", async () => {
    const scope = newScope();
    expect(await suite.store.exportRoom(scope)).toBeNull();
    expect(await suite.store.exportLog(scope, 0, 10)).toEqual([]);
    await suite.store.addTask(scope, newTask("t"));
    await expectRoomError(suite.store.exportRoom({ ...scope, teamId: newTeam() }), "denied", ACCESS_DENIED);
  });

  test("teamsToMove, keyDigests and inviteDigests give what a migration copies, digests included", async () => {
    const team = newTeam();
    const key = newKey(suite, team, { boundAgentId: "bob", note: "ci" });
    await suite.store.createKey(key, 10);
    const second = newKey(suite, team, { kind: "operator", humanId: "ann" });
    await suite.store.createKey(second, 10);
    const roomOnly = newScope();
    await suite.store.addTask(roomOnly, newTask("t"));
    const teams = await suite.store.teamsToMove();
    expect(teams).toContain(team);
    expect(teams).toContain(roomOnly.teamId);
    expect(teams).toEqual([...teams].sort());
    expect(await suite.store.keyDigests(team)).toEqual([key, second]);
    const invite = newInvite(suite, roomOnly, 3_600_000, { agentId: "carol" });
    await suite.store.createInvite(invite, 10);
    await suite.store.createInvite(newInvite(suite, roomOnly, 1000, { digest: newDigest() }), 10);
    suite.clock.advance(2000);
    expect(await suite.store.inviteDigests(roomOnly)).toEqual([invite]);
    await expectRoomError(
      suite.store.inviteDigests({ roomId: roomOnly.roomId, teamId: newTeam() }),
      "denied",
      ACCESS_DENIED,
    );
  });
}

async function ownedRoomWithTask(store: RoomStore): Promise<RoomScope> {
  const scope = newScope();
  await store.addTask(scope, newTask("t"));
  return scope;
}
