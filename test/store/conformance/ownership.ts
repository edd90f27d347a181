/**
 * Ownership by first write: other teams are denied, reads and failed writes never claim (docs/protocol.md#ownership).
 */
import { expect, test } from "bun:test";
import { ACCESS_DENIED } from "../../../src/protocol/errors.ts";
import type { RoomScope, RoomStore } from "../../../src/store/types.ts";
import { expectRoomError, newScope, newTask, newTeam, notePayload, type Suite, snapshot } from "./harness.ts";

/** Every operation, as a call on behalf of `scope`, naming existing ids where it needs one. */
function everyOperation(
  store: RoomStore,
  scope: RoomScope,
  ids: { task: string; context: string; event: string },
) {
  const note = {
    type: "note" as const,
    summary: "s",
    consuming_agents: ["a"],
    payload: notePayload(),
    author: "x",
  };
  return {
    readPlan: () => store.readPlan(scope),
    getTask: () => store.getTask(scope, ids.task),
    getMissingTask: () => store.getTask(scope, "missing"),
    readContext: () => store.readContext(scope, ids.context),
    contextHistory: () => store.contextHistory(scope, ids.context),
    listContext: () => store.listContext(scope, {}),
    readEvents: () => store.readEvents(scope, { limit: 100 }),
    consumeEvents: () => store.consumeEvents(scope, "a", 100),
    getEventReads: () => store.getEventReads(scope, ids.event),
    getPresence: () => store.getPresence(scope),
    listLocks: () => store.listLocks(scope),
    getVar: () => store.getVar(scope, "k"),
    listVars: () => store.listVars(scope),
    addTask: () => store.addTask(scope, newTask("intruder", { agentId: "x" })),
    updateTask: () => store.updateTask(scope, { taskId: ids.task, status: "done", agentId: "x" }),
    updateMissingTask: () => store.updateTask(scope, { taskId: "missing", status: "done" }),
    summary: () => store.summary(scope, "a", 100),
    writeContext: () => store.writeContext(scope, note),
    updateContext: () => store.updateContext(scope, { id: ids.context, author: "x", summary: "mine now" }),
    postEvent: () => store.postEvent(scope, { type: "e", from: "x", to: "all", payload: {} }),
    replyToEvent: () =>
      store.postEvent(scope, { type: "e", from: "x", to: "a", payload: {}, replyToId: ids.event }),
    markEventRead: () => store.markEventRead(scope, ids.event, "x"),
    heartbeat: () => store.heartbeat(scope, "x", "here"),
    acquireLock: () => store.acquireLock(scope, "r", "x", 30_000),
    releaseLock: () => store.releaseLock(scope, "r", "a"),
    setVar: () => store.setVar(scope, "k", "stolen", "x"),
  };
}

export function ownershipTests(suite: Suite): void {
  test("another team is denied every read and write on an owned room, and changes nothing", async () => {
    const owner = newScope();
    const task = await suite.store.addTask(owner, newTask("t"));
    const entry = await suite.store.writeContext(owner, {
      type: "note",
      summary: "s",
      consuming_agents: [],
      payload: notePayload(),
      author: "a",
    });
    const event = await suite.store.postEvent(owner, { type: "e", from: "a", to: "all", payload: {} });
    await suite.store.acquireLock(owner, "r", "a", 30_000);
    await suite.store.setVar(owner, "k", "v", "a");
    await suite.store.heartbeat(owner, "a");
    const before = await snapshot(suite.store, owner);

    const intruder = { roomId: owner.roomId, teamId: newTeam() };
    const ops = everyOperation(suite.second, intruder, { task: task.id, context: entry.id, event: event.id });
    for (const [name, call] of Object.entries(ops)) {
      await expectRoomError(call(), "denied", ACCESS_DENIED).catch((e: unknown) => {
        throw new Error(`${name}: ${e instanceof Error ? e.message : String(e)}`);
      });
    }
    expect(await snapshot(suite.store, owner)).toEqual(before);
    // The intruder's consumeEvents as "a" moved nothing: a still gets all three events.
    expect(await suite.store.consumeEvents(owner, "a", 100)).toMatchObject({ count: 3, cursor: 3 });
  });

  test("reads on a fresh room see an empty room and do not claim it", async () => {
    const reader = newScope();
    const store = suite.store;
    expect(await store.readPlan(reader)).toEqual({
      project: reader.roomId,
      created_at: null,
      updated_at: null,
      tasks: [],
    });
    expect(await store.listContext(reader, {})).toEqual([]);
    expect(await store.readEvents(reader, { limit: 100 })).toEqual([]);
    expect(await store.consumeEvents(reader, "a", 100)).toEqual({
      events: [],
      cursor: null,
      count: 0,
      remaining: 0,
    });
    expect(await store.getPresence(reader)).toEqual([]);
    expect(await store.listLocks(reader)).toEqual([]);
    expect(await store.listVars(reader)).toEqual({});
    expect(await store.getVar(reader, "k")).toBeNull();
    expect(await store.releaseLock(reader, "r", "a")).toEqual({ released: false });
    await expectRoomError(store.getTask(reader, "t1"), "not_found", "Task not found: t1");
    await expectRoomError(store.readContext(reader, "c1"), "not_found", "Context entry not found: c1");
    await expectRoomError(store.contextHistory(reader, "c1"), "not_found", "Context entry not found: c1");
    await expectRoomError(store.getEventReads(reader, "e1"), "not_found", "Event not found: e1");

    const claimer = { roomId: reader.roomId, teamId: newTeam() };
    await suite.second.addTask(claimer, newTask("claimed"));
    await expectRoomError(store.readPlan(reader), "denied", ACCESS_DENIED);
    expect((await store.readPlan(claimer)).tasks).toHaveLength(1);
  });

  test("a failed write does not claim the room", async () => {
    const failing = newScope();
    const store = suite.store;
    await expectRoomError(
      store.updateTask(failing, { taskId: "t1", status: "done" }),
      "not_found",
      "Task not found: t1",
    );
    await expectRoomError(
      store.updateContext(failing, { id: "c1", author: "a", summary: "x" }),
      "not_found",
      "Context entry not found: c1",
    );
    await expectRoomError(store.markEventRead(failing, "e1", "a"), "not_found", "Event not found: e1");
    await expectRoomError(
      store.postEvent(failing, { type: "e", from: "a", to: "all", payload: {}, replyToId: "e1" }),
      "not_found",
      "Event not found: e1",
    );
    const claimer = { roomId: failing.roomId, teamId: newTeam() };
    await suite.second.setVar(claimer, "k", "v", "b");
    expect(await store.getVar(claimer, "k")).toBe("v");
    await expectRoomError(store.getVar(failing, "k"), "denied", ACCESS_DENIED);
    expect(await store.readEvents(claimer, { limit: 100 })).toHaveLength(1);
  });
}
