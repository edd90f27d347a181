/**
 * Room administration (AccessStore rooms) and the rules it adds to every room operation: scopes that may not
 * claim (invites), createRoom / listRooms / deleteRoom, and the per-team room limit (StoreLimits.roomsPerTeam).
 */
import { expect, test } from "bun:test";
import { ACCESS_DENIED, errors, RoomError } from "../../../src/protocol/errors.ts";
import { iso } from "../../../src/protocol/time.ts";
import type { RoomScope, RoomStore } from "../../../src/store/types.ts";
import {
  allEvents,
  expectRoomError,
  inviteRecord,
  newInvite,
  newScope,
  newTask,
  newTeam,
  notePayload,
  ownedRoom,
  ROOMS_PER_TEAM,
  type Suite,
  settle,
  snapshot,
} from "./harness.ts";

const times = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Every operation that writes room state, as a call on behalf of `scope`. */
function writingOperations(store: RoomStore, scope: RoomScope): Record<string, () => Promise<unknown>> {
  return {
    addTask: () => store.addTask(scope, newTask("t")),
    setVar: () => store.setVar(scope, "k", "v", "a"),
    postEvent: () => store.postEvent(scope, { type: "e", from: "a", to: "all", payload: {} }),
    writeContext: () =>
      store.writeContext(scope, {
        type: "note",
        summary: "s",
        consuming_agents: [],
        payload: notePayload(),
        author: "a",
      }),
    acquireLock: () => store.acquireLock(scope, "deploy", "a", 30_000),
    claimFiles: () => store.claimFiles(scope, { agentId: "a", paths: ["src/**"], ttlMs: 60_000 }),
    broadcast: () => store.broadcast(scope, { agentId: "a", message: "hi" }),
  };
}

/** Runs `check` for each named operation, naming the operation in a failure. */
async function forEach(
  ops: Record<string, () => Promise<unknown>>,
  check: (name: string, call: () => Promise<unknown>) => Promise<void>,
): Promise<void> {
  for (const [name, call] of Object.entries(ops)) {
    await check(name, call).catch((e: unknown) => {
      throw new Error(`${name}: ${e instanceof Error ? e.message : String(e)}`);
    });
  }
}

const emptySnapshot = (roomId: string) => ({
  plan: { project: roomId, created_at: null, updated_at: null, tasks: [] },
  events: [],
  context: [],
  history: [],
  vars: {},
  locks: [],
  presence: [],
  claims: [],
});

export function mayClaimTests(suite: Suite): void {
  test("every writing operation on an unowned room with mayClaim false → denied, and the room stays unowned", async () => {
    const probe = writingOperations(suite.store, newScope());
    await forEach(probe, async (name) => {
      const scope: RoomScope = { ...newScope(), mayClaim: false };
      const call = writingOperations(suite.store, scope)[name]!;
      await expectRoomError(call(), "denied", ACCESS_DENIED);
      expect(await suite.store.roomStats(scope.roomId)).toBeNull();
      // Unowned indeed: another team's normal write claims it.
      const claimer = { roomId: scope.roomId, teamId: newTeam() };
      await suite.second.addTask(claimer, newTask("mine"));
      expect((await suite.store.roomStats(scope.roomId))?.owner).toBe(claimer.teamId);
    });
  });

  test("reads with mayClaim false on an unowned room see an empty room and claim nothing", async () => {
    const scope: RoomScope = { ...newScope(), mayClaim: false };
    expect(await snapshot(suite.store, scope)).toEqual(emptySnapshot(scope.roomId));
    expect(await suite.store.consumeEvents(scope, "a", 10)).toEqual({
      events: [],
      cursor: null,
      count: 0,
      remaining: 0,
    });
    expect(await suite.store.getVar(scope, "k")).toBeNull();
    expect(await suite.store.roomStats(scope.roomId)).toBeNull();
    const claimer = { roomId: scope.roomId, teamId: newTeam() };
    await suite.second.setVar(claimer, "k", "v", "a");
    expect(await suite.store.getVar(claimer, "k")).toBe("v");
  });

  test("mayClaim false on the team's own room: writes work as usual", async () => {
    const owner = await ownedRoom(suite.store);
    const scope: RoomScope = { ...owner, mayClaim: false };
    await forEach(writingOperations(suite.second, scope), async (_name, call) => {
      await call();
    });
    const stats = await suite.store.roomStats(owner.roomId);
    expect(stats).toMatchObject({ owner: owner.teamId, taskCount: 2, contextCount: 1 });
    expect(await suite.store.getVar(owner, "k")).toBe("v");
  });

  test("mayClaim false on another team's room → denied, as for any other team", async () => {
    const owner = await ownedRoom(suite.store);
    const before = await snapshot(suite.store, owner);
    const intruder: RoomScope = { roomId: owner.roomId, teamId: newTeam(), mayClaim: false };
    await forEach(writingOperations(suite.second, intruder), async (_name, call) => {
      await expectRoomError(call(), "denied", ACCESS_DENIED);
    });
    await expectRoomError(suite.second.readPlan(intruder), "denied", ACCESS_DENIED);
    expect(await snapshot(suite.store, owner)).toEqual(before);
  });
}

export function roomAdminTests(suite: Suite): void {
  test("createRoom claims a fresh room ({created: true}); again → {created: false}; another team → denied", async () => {
    const scope = newScope();
    const claimedAt = suite.clock.now();
    expect(await suite.store.createRoom(scope)).toEqual({ created: true });
    suite.clock.advance(10);
    expect(await suite.second.createRoom(scope)).toEqual({ created: false });
    const intruder = { roomId: scope.roomId, teamId: newTeam() };
    await expectRoomError(suite.store.createRoom(intruder), "denied", ACCESS_DENIED);
    await expectRoomError(suite.second.addTask(intruder, newTask("x")), "denied", ACCESS_DENIED);
    expect(await suite.store.listRooms(intruder.teamId)).toEqual([]);
    const stats = await suite.store.roomStats(scope.roomId);
    expect(stats?.owner).toBe(scope.teamId);
    expect((await suite.store.listRooms(scope.teamId)).map((r) => [r.roomId, r.createdAt])).toEqual([
      [scope.roomId, iso(claimedAt)],
    ]);
    await suite.store.addTask(scope, newTask("after create"));
  });

  test("createRoom on a room the team claimed by a write → {created: false}", async () => {
    const scope = await ownedRoom(suite.store);
    expect(await suite.second.createRoom(scope)).toEqual({ created: false });
    expect((await suite.store.readPlan(scope)).tasks).toHaveLength(1);
  });

  test("listRooms: the team's rooms oldest first with createdAt and lastActivity, no other team's", async () => {
    const teamId = newTeam();
    const id = () => newScope().roomId;
    // Ids sort the other way round from creation, so an id-ordered listing fails.
    const rooms = [`z-${id()}`, `m-${id()}`, `a-${id()}`, `0-${id()}`].map((roomId) => ({ roomId, teamId }));
    const at: number[] = [];
    for (const [i, scope] of rooms.entries()) {
      at.push(suite.clock.now());
      if (i % 2 === 0) await suite.store.createRoom(scope);
      else await suite.second.addTask(scope, newTask("claim"));
      suite.clock.advance(10);
    }
    await suite.store.createRoom(newScope());
    await suite.store.addTask({ roomId: id(), teamId: newTeam() }, newTask("other team"));

    const listed = await suite.second.listRooms(teamId);
    expect(listed).toEqual(
      rooms.map((scope, i) => ({ roomId: scope.roomId, createdAt: iso(at[i]!), lastActivity: iso(at[i]!) })),
    );

    // A later write moves lastActivity, never createdAt or the order.
    const writeAt = suite.clock.advance(1_000);
    await suite.store.setVar(rooms[0]!, "k", "v", "a");
    const after = await suite.store.listRooms(teamId);
    expect(after.map((r) => r.roomId)).toEqual(rooms.map((r) => r.roomId));
    expect(after[0]).toEqual({
      roomId: rooms[0]!.roomId,
      createdAt: iso(at[0]!),
      lastActivity: iso(writeAt),
    });
    expect(await suite.store.listRooms(newTeam())).toEqual([]);
  });

  test("deleteRoom by the owner removes every trace and frees the id for another team", async () => {
    const scope = newScope();
    const task = await suite.store.addTask(scope, newTask("old"));
    await suite.store.writeContext(scope, {
      type: "note",
      summary: "old",
      consuming_agents: ["b"],
      payload: notePayload(),
      author: "a",
    });
    await suite.store.postEvent(scope, { type: "e", from: "a", to: "all", payload: { old: true } });
    await suite.store.setVar(scope, "k", "old", "a");
    await suite.store.acquireLock(scope, "deploy", "a", 600_000);
    await suite.store.heartbeat(scope, "a", "old");
    await suite.store.consumeEvents(scope, "b", 2);
    const invite = newInvite(suite, scope);
    await suite.store.createInvite(invite, 50);

    await suite.second.deleteRoom(scope);
    expect(await suite.store.listRooms(scope.teamId)).toEqual([]);
    expect(await suite.store.roomStats(scope.roomId)).toBeNull();
    expect(await snapshot(suite.store, scope)).toEqual(emptySnapshot(scope.roomId));
    expect(await suite.store.resolveInvite(scope.roomId, invite.digest)).toEqual({ invite: null });

    const next = { roomId: scope.roomId, teamId: newTeam() };
    const fresh = await suite.second.addTask(next, newTask("new"));
    await expectRoomError(suite.store.readPlan(scope), "denied", ACCESS_DENIED);
    const plan = await suite.store.readPlan(next);
    expect(plan.tasks).toEqual([fresh]);
    expect(plan.tasks.some((t) => t.title === task.title)).toBe(false);
    const events = await allEvents(suite.store, next);
    expect(events.map((e) => [e.seq, e.type])).toEqual([[1, "task_added"]]);
    expect(await suite.store.listContext(next, {})).toEqual([]);
    expect(await suite.store.listVars(next)).toEqual({});
    expect(await suite.store.getVar(next, "k")).toBeNull();
    expect(await suite.store.listLocks(next)).toEqual([]);
    expect(await suite.store.getPresence(next)).toEqual([]);
    // Cursors went too: "b" reads the new room from its start.
    expect((await suite.store.consumeEvents(next, "b", 10)).events.map((e) => e.seq)).toEqual([1]);
    const lock = await suite.store.acquireLock(next, "deploy", "c", 30_000);
    expect(lock.acquired).toBe(true);
    expect(await suite.store.listInvites(next)).toEqual([]);
    expect((await suite.store.listRooms(next.teamId)).map((r) => r.roomId)).toEqual([scope.roomId]);
  });

  test("deleteRoom by another team, or on an unowned room → denied, and nothing changes", async () => {
    const owner = await ownedRoom(suite.store);
    await suite.store.setVar(owner, "k", "v", "a");
    const invite = newInvite(suite, owner);
    await suite.store.createInvite(invite, 50);
    const rooms = await suite.store.listRooms(owner.teamId);
    const before = await snapshot(suite.store, owner);
    const intruder = { roomId: owner.roomId, teamId: newTeam() };
    await expectRoomError(suite.second.deleteRoom(intruder), "denied", ACCESS_DENIED);
    expect(await snapshot(suite.store, owner)).toEqual(before);
    expect(await suite.store.listRooms(owner.teamId)).toEqual(rooms);
    expect(await suite.store.resolveInvite(owner.roomId, invite.digest)).toEqual({
      invite: inviteRecord(invite),
    });

    const unowned = newScope();
    await expectRoomError(suite.store.deleteRoom(unowned), "denied", ACCESS_DENIED);
    expect(await suite.store.roomStats(unowned.roomId)).toBeNull();
  });
}

export function roomLimitTests(suite: Suite): void {
  const limitMessage = errors.roomLimit(ROOMS_PER_TEAM).message;

  test(`createRoom beyond roomsPerTeam (${ROOMS_PER_TEAM}) → 'limit'; own rooms stay usable`, async () => {
    const teamId = newTeam();
    const rooms = times(ROOMS_PER_TEAM).map(() => ({ ...newScope(), teamId }));
    for (const scope of rooms) {
      expect(await suite.limited.createRoom(scope)).toEqual({ created: true });
      suite.clock.advance(1);
    }
    const extra = { ...newScope(), teamId };
    expect(await settle(suite.limitedSecond.createRoom(extra))).toBe("limit");
    expect(await suite.limited.roomStats(extra.roomId)).toBeNull();
    expect(await suite.limited.createRoom(rooms[0]!)).toEqual({ created: false });
    await suite.limited.addTask(rooms[1]!, newTask("still fine"));
    expect((await suite.limited.listRooms(teamId)).map((r) => r.roomId)).toEqual(rooms.map((r) => r.roomId));
  });

  test("a first write that would claim a room beyond the limit → RoomError 'limit', and the room stays unowned", async () => {
    const teamId = newTeam();
    for (let i = 0; i < ROOMS_PER_TEAM; i++)
      await suite.limited.addTask({ ...newScope(), teamId }, newTask("t"));
    const extra = { ...newScope(), teamId };
    await forEach(writingOperations(suite.limitedSecond, extra), async (_name, call) => {
      await expectRoomError(call(), "limit", limitMessage);
    });
    expect(await suite.limited.roomStats(extra.roomId)).toBeNull();
    expect(await snapshot(suite.limited, { ...extra, teamId: newTeam() })).toEqual(
      emptySnapshot(extra.roomId),
    );
    expect(await suite.limited.listRooms(teamId)).toHaveLength(ROOMS_PER_TEAM);
    // Another team (with room to spare) claims it normally.
    const claimer = { roomId: extra.roomId, teamId: newTeam() };
    await suite.limited.addTask(claimer, newTask("mine"));
    expect((await suite.limited.roomStats(extra.roomId))?.owner).toBe(claimer.teamId);
  });

  test("the store without limits uses the default (more than 3 rooms per team)", async () => {
    const teamId = newTeam();
    for (let i = 0; i < ROOMS_PER_TEAM + 2; i++)
      await suite.store.addTask({ ...newScope(), teamId }, newTask("t"));
    expect(await suite.store.listRooms(teamId)).toHaveLength(ROOMS_PER_TEAM + 2);
  });

  test("concurrent first writes on 8 fresh rooms by one team: exactly roomsPerTeam rooms claimed", async () => {
    const teamId = newTeam();
    const rooms = times(8).map(() => ({ ...newScope(), teamId }));
    const settled = await Promise.allSettled(
      rooms.map((scope, i) => {
        const store = i % 2 === 0 ? suite.limited : suite.limitedSecond;
        return i % 4 === 3 ? store.createRoom(scope) : store.addTask(scope, newTask(`t${i}`));
      }),
    );
    const won = rooms.filter((_, i) => {
      const r = settled[i]!;
      return r.status === "fulfilled";
    });
    expect(won).toHaveLength(ROOMS_PER_TEAM);
    for (const r of settled) {
      if (r.status === "rejected") {
        expect(r.reason).toBeInstanceOf(RoomError);
        expect({ kind: r.reason.kind, message: r.reason.message }).toEqual({
          kind: "limit",
          message: limitMessage,
        });
      }
    }
    const listed = await suite.limited.listRooms(teamId);
    expect(new Set(listed.map((r) => r.roomId))).toEqual(new Set(won.map((r) => r.roomId)));
    for (const scope of rooms) {
      const stats = await suite.limited.roomStats(scope.roomId);
      expect(stats === null ? null : stats.owner).toBe(won.includes(scope) ? teamId : null);
    }
  });

  test("deleteRoom frees a slot under the limit", async () => {
    const teamId = newTeam();
    const rooms = times(ROOMS_PER_TEAM).map(() => ({ ...newScope(), teamId }));
    for (const scope of rooms) await suite.limited.createRoom(scope);
    const extra = { ...newScope(), teamId };
    await expectRoomError(suite.limited.addTask(extra, newTask("t")), "limit", limitMessage);
    await suite.limitedSecond.deleteRoom(rooms[1]!);
    expect(await suite.limited.addTask(extra, newTask("t"))).toMatchObject({ title: "t" });
    expect(await settle(suite.limited.createRoom({ ...newScope(), teamId }))).toBe("limit");
    expect(new Set((await suite.limited.listRooms(teamId)).map((r) => r.roomId))).toEqual(
      new Set([rooms[0]!.roomId, rooms[2]!.roomId, extra.roomId]),
    );
  });
}
