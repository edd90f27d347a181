/**
 * Room views (AccessStore.roomStats and roomSummary): counts that follow known activity, null for unowned
 * rooms (and for other teams' rooms in a private summary), event headers without payloads, and never a claim.
 */
import { expect, test } from "bun:test";
import { ACCESS_DENIED } from "../../../src/protocol/errors.ts";
import type { RoomEvent } from "../../../src/protocol/records.ts";
import { iso } from "../../../src/protocol/time.ts";
import type { RoomScope } from "../../../src/store/types.ts";
import { expectRoomError, newScope, newTask, newTeam, notePayload, type Suite } from "./harness.ts";

const header = (e: RoomEvent) => ({
  id: e.id,
  seq: e.seq,
  type: e.type,
  from: e.from,
  to: e.to,
  timestamp: e.timestamp,
});

const HEADER_FIELDS = ["from", "id", "seq", "timestamp", "to", "type"];

/** Known activity: 4 tasks (1 in progress, 1 done), 2 context entries, 3 agents, 28 events. */
async function busyRoom(suite: Suite): Promise<{ scope: RoomScope; lastWriteAt: number }> {
  const scope = newScope();
  const store = suite.store;
  const tasks = [];
  for (let i = 0; i < 4; i++) tasks.push(await store.addTask(scope, newTask(`t${i}`)));
  await store.updateTask(scope, { taskId: tasks[1]!.id, status: "in_progress", owner: "a" });
  await store.updateTask(scope, { taskId: tasks[2]!.id, status: "done" });
  for (let i = 0; i < 2; i++) {
    await store.writeContext(scope, {
      type: "note",
      summary: `c${i}`,
      consuming_agents: [],
      payload: notePayload(),
      author: "a",
    });
  }
  await store.heartbeat(scope, "a", "working");
  suite.clock.advance(1_000);
  await store.heartbeat(scope, "b");
  const first = await store.postEvent(scope, { type: "ping", from: "a", to: "b", payload: { secret: "x" } });
  for (let i = 0; i < 20; i++) {
    await suite.second.postEvent(scope, { type: "e", from: "b", to: "all", payload: { i, note: "private" } });
  }
  await store.markEventRead(scope, first.id, "b");
  suite.clock.advance(1_000);
  await store.postEvent(scope, { type: "reply", from: "b", to: "a", payload: {}, replyToId: first.id });
  const lastWriteAt = suite.clock.advance(1_000);
  await store.heartbeat(scope, "c");
  return { scope, lastWriteAt };
}

export function roomStatsTests(suite: Suite): void {
  test("roomStats of an unowned room → null, and it does not claim", async () => {
    const scope = newScope();
    expect(await suite.store.roomStats(scope.roomId)).toBeNull();
    await suite.second.addTask(scope, newTask("t"));
    expect((await suite.store.roomStats(scope.roomId))?.owner).toBe(scope.teamId);
  });

  test("roomStats counts known activity", async () => {
    const { scope, lastWriteAt } = await busyRoom(suite);
    expect(await suite.second.roomStats(scope.roomId)).toEqual({
      roomId: scope.roomId,
      owner: scope.teamId,
      taskCount: 4,
      doneTasks: 1,
      contextCount: 2,
      agentCount: 3,
      eventCount: 28,
      lastActivity: iso(lastWriteAt),
    });
  });

  test("roomStats of a room just claimed: zeros but the claiming write", async () => {
    const scope = newScope();
    const at = suite.clock.now();
    await suite.store.createRoom(scope);
    expect(await suite.store.roomStats(scope.roomId)).toEqual({
      roomId: scope.roomId,
      owner: scope.teamId,
      taskCount: 0,
      doneTasks: 0,
      contextCount: 0,
      agentCount: 0,
      eventCount: 0,
      lastActivity: iso(at),
    });
  });
  test("a read with observe records no use: the room's last activity stays; a plain read moves it", async () => {
    const scope = newScope();
    const at = suite.clock.now();
    await suite.store.createRoom(scope);
    suite.clock.advance(5 * 60_000);
    const looking = { ...scope, mayClaim: false, observe: true };
    await suite.store.roomInfo(looking);
    await suite.second.getPresence(looking);
    await suite.store.listInvites(looking);
    expect((await suite.store.roomStats(scope.roomId))?.lastActivity).toBe(iso(at));
    const readAt = suite.clock.now();
    await suite.second.roomInfo(scope);
    expect((await suite.store.roomStats(scope.roomId))?.lastActivity).toBe(iso(readAt));
  });
}

export function roomSummaryTests(suite: Suite): void {
  test("roomSummary of an unowned room → null, with or without a team, and it does not claim", async () => {
    const scope = newScope();
    expect(await suite.store.roomSummary(scope.roomId)).toBeNull();
    expect(await suite.store.roomSummary(scope.roomId, scope.teamId)).toBeNull();
    expect(await suite.store.roomStats(scope.roomId)).toBeNull();
    // Not claimed by the team that asked: any team's first write claims normally.
    const claimer = { roomId: scope.roomId, teamId: newTeam() };
    await suite.second.addTask(claimer, newTask("mine"));
    expect((await suite.store.roomStats(scope.roomId))?.owner).toBe(claimer.teamId);
    await expectRoomError(suite.store.readPlan(scope), "denied", ACCESS_DENIED);
  });

  test("roomSummary with another team's id → null; with the owner's id or none → the view", async () => {
    const scope = newScope();
    await suite.store.addTask(scope, newTask("t"));
    expect(await suite.store.roomSummary(scope.roomId, newTeam())).toBeNull();
    const mine = await suite.second.roomSummary(scope.roomId, scope.teamId);
    expect(mine).not.toBeNull();
    expect(await suite.store.roomSummary(scope.roomId)).toEqual(mine);
  });

  test("roomSummary: presence, task counts by status, context count, the 20 newest event headers", async () => {
    const { scope } = await busyRoom(suite);
    const view = await suite.store.roomSummary(scope.roomId, scope.teamId);
    const newest = await suite.store.readEvents(scope, { limit: 20 });
    expect(view).toEqual({
      roomId: scope.roomId,
      agents: await suite.store.getPresence(scope),
      taskCount: 4,
      tasksByStatus: { pending: 2, in_progress: 1, done: 1, blocked: 0 },
      contextCount: 2,
      recentEvents: newest.map(header),
    });
    const events = view?.recentEvents ?? [];
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => 28 - i));
    // Exactly the header fields: no payload, no read_by, no reply_to_id.
    for (const e of events) expect(Object.keys(e).sort()).toEqual(HEADER_FIELDS);
    expect(Object.keys(view?.tasksByStatus ?? {}).sort()).toEqual([
      "blocked",
      "done",
      "in_progress",
      "pending",
    ]);
    expect(view?.agents.map((a) => a.agentId).sort()).toEqual(["a", "b", "c"]);
  });

  test("roomSummary of a room with few events lists them all, newest first; an empty plan counts zeros", async () => {
    const scope = newScope();
    const e1 = await suite.store.postEvent(scope, { type: "a", from: "x", to: "all", payload: { p: 1 } });
    const e2 = await suite.store.postEvent(scope, { type: "b", from: "x", to: "y", payload: { p: 2 } });
    expect(await suite.second.roomSummary(scope.roomId)).toEqual({
      roomId: scope.roomId,
      agents: [],
      taskCount: 0,
      tasksByStatus: { pending: 0, in_progress: 0, done: 0, blocked: 0 },
      contextCount: 0,
      recentEvents: [header(e2), header(e1)],
    });
  });
}
