/**
 * Deleting tasks, context entries and events, and adding a dependency: the plan's rules, the events that let a
 * fork rebuild the room from its log, tombstones that keep seqs gap-free and cursors exact.
 */
import { expect, test } from "bun:test";
import { iso } from "../../../src/protocol/time.ts";
import {
  allEvents,
  expectRefusedUnchanged,
  expectRoomError,
  newNote,
  newScope,
  newTask,
  type Suite,
} from "./harness.ts";

export function deletionTests(suite: Suite): void {
  test("deleteTask removes the task and appends task_deleted {taskId, task, dependents}", async () => {
    const scope = newScope();
    const task = await suite.store.addTask(scope, newTask("gone", { agentId: "a" }));
    const kept = await suite.store.addTask(scope, newTask("kept"));
    const removed = await suite.store.deleteTask(scope, { taskId: task.id, agentId: "a" });
    expect(removed).toEqual(task);
    expect((await suite.store.readPlan(scope)).tasks).toEqual([kept]);
    await expectRoomError(suite.store.getTask(scope, task.id), "not_found", `Task not found: ${task.id}`);
    const last = (await allEvents(suite.store, scope)).at(-1);
    expect(last).toMatchObject({
      seq: 3,
      type: "task_deleted",
      from: "a",
      to: "all",
      payload: { taskId: task.id, task, dependents: [] },
    });
    expect((await suite.store.roomStats(scope.roomId))?.taskCount).toBe(1);
    await expectRoomError(
      suite.store.deleteTask(scope, { taskId: task.id }),
      "not_found",
      `Task not found: ${task.id}`,
    );
  });

  test("deleteTask is refused while tasks depend on it; force deletes it and their dependency counts as unmet", async () => {
    const scope = newScope();
    const base = await suite.store.addTask(scope, newTask("base"));
    const first = await suite.store.addTask(scope, newTask("first", { depends_on: [base.id] }));
    const second = await suite.store.addTask(scope, newTask("second", { depends_on: [base.id] }));
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.deleteTask(scope, { taskId: base.id }),
      "conflict",
      `Task ${base.id} is a dependency of ${first.id}, ${second.id}; pass force: true to delete it anyway (their dependency then counts as unmet)`,
    );
    await suite.store.deleteTask(scope, { taskId: base.id, force: true });
    const last = (await allEvents(suite.store, scope)).at(-1);
    expect(last?.payload).toEqual({ taskId: base.id, task: base, dependents: [first.id, second.id] });
    expect((await suite.store.getTask(scope, first.id)).depends_on).toEqual([base.id]);
    await expectRoomError(
      suite.store.updateTask(scope, { taskId: first.id, status: "in_progress" }),
      "conflict",
      `Task ${first.id} is blocked by ${base.id} (missing); finish those first`,
    );
  });

  test("deleteTask follows the plan's rules: plan lock, version, another agent's task", async () => {
    const scope = newScope();
    const task = await suite.store.addTask(scope, newTask("owned"));
    const owned = await suite.store.updateTask(scope, { taskId: task.id, owner: "bob", agentId: "bob" });
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.deleteTask(scope, { taskId: task.id, agentId: "alice" }),
      "conflict",
      `Task ${task.id} is owned by bob; pass expectedVersion (the version you read) to change it anyway`,
    );
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.deleteTask(scope, { taskId: task.id, agentId: "alice", expectedVersion: 1 }),
      "conflict",
      /^Version conflict: task .* is at version 2/,
    );
    await suite.store.acquireLock(scope, "plan", "carol", 60_000);
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.deleteTask(scope, { taskId: task.id, agentId: "bob" }),
      "locked",
      /^Plan is locked by carol until /,
    );
    await suite.store.releaseLock(scope, "plan", "carol");
    expect(
      await suite.store.deleteTask(scope, { taskId: task.id, agentId: "alice", expectedVersion: 2 }),
    ).toEqual(owned);
  });

  test("addDependency appends one dependency atomically; an existing one changes nothing", async () => {
    const scope = newScope();
    const a = await suite.store.addTask(scope, newTask("a"));
    const b = await suite.store.addTask(scope, newTask("b"));
    const c = await suite.store.addTask(scope, newTask("c", { depends_on: [a.id] }));
    suite.clock.advance(1000);
    const updated = await suite.store.addDependency(scope, { taskId: c.id, dependsOn: b.id, agentId: "x" });
    expect(updated).toEqual({
      ...c,
      depends_on: [a.id, b.id],
      version: 2,
      updated_at: iso(suite.clock.now()),
    });
    const events = await allEvents(suite.store, scope);
    expect(events.at(-1)).toMatchObject({
      type: "task_updated",
      from: "x",
      payload: { task: updated, previousStatus: "pending", changes: { depends_on: [a.id, b.id] } },
    });
    expect(await suite.store.addDependency(scope, { taskId: c.id, dependsOn: a.id })).toEqual(updated);
    expect(await allEvents(suite.store, scope)).toHaveLength(events.length);
  });

  test("addDependency: unknown task, cycle, and a started task gaining an unfinished dependency are refused", async () => {
    const scope = newScope();
    const a = await suite.store.addTask(scope, newTask("a"));
    const b = await suite.store.addTask(scope, newTask("b", { depends_on: [a.id] }));
    const c = await suite.store.addTask(scope, newTask("c", { depends_on: [b.id] }));
    const refused = (dependsOn: string, taskId: string, kind: "invalid" | "conflict", message: string) =>
      expectRefusedUnchanged(
        suite.store,
        scope,
        () => suite.store.addDependency(scope, { taskId, dependsOn }),
        kind,
        message,
      );
    await refused(
      "task-999",
      a.id,
      "invalid",
      "Unknown task in depends_on: task-999; read_plan lists the task ids of this room",
    );
    await refused(c.id, a.id, "invalid", `Dependency cycle: ${a.id} → ${c.id} → ${b.id} → ${a.id}`);
    await refused(a.id, a.id, "invalid", `Dependency cycle: ${a.id} → ${a.id}`);
    const d = await suite.store.addTask(scope, newTask("d"));
    await suite.store.updateTask(scope, { taskId: d.id, status: "in_progress" });
    await refused(c.id, d.id, "conflict", `Task ${d.id} is blocked by ${c.id} (pending); finish those first`);
    // A dependency that went away (forced deletion) does not stop adding another one.
    await suite.store.deleteTask(scope, { taskId: c.id, force: true });
    const e = await suite.store.addTask(scope, newTask("e"));
    await suite.store.addDependency(scope, { taskId: e.id, dependsOn: a.id });
    expect((await suite.store.addDependency(scope, { taskId: e.id, dependsOn: d.id })).depends_on).toEqual([
      a.id,
      d.id,
    ]);
  });

  test("deleteContext removes the entry and its history; context_deleted {contextId, entry} goes to its consumers", async () => {
    const scope = newScope();
    const entry = await suite.store.writeContext(scope, newNote("n", { consuming_agents: ["bob"] }));
    const updated = await suite.store.updateContext(scope, { id: entry.id, author: "a", summary: "n2" });
    const other = await suite.store.writeContext(scope, newNote("other"));
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.deleteContext(scope, { id: entry.id, agentId: "a", expectedVersion: "1.0" }),
      "conflict",
      /^Version conflict: context .* is at version 1\.1/,
    );
    expect(
      await suite.store.deleteContext(scope, { id: entry.id, agentId: "carol", expectedVersion: "1.1" }),
    ).toEqual(updated);
    expect(await suite.store.listContext(scope, {})).toEqual([other]);
    await expectRoomError(
      suite.store.contextHistory(scope, entry.id),
      "not_found",
      `Context entry not found: ${entry.id}`,
    );
    expect((await allEvents(suite.store, scope)).at(-1)).toMatchObject({
      type: "context_deleted",
      from: "carol",
      to: "bob",
      payload: { contextId: entry.id, entry: updated },
    });
    await suite.store.deleteContext(scope, { id: other.id, agentId: "a" });
    expect((await allEvents(suite.store, scope)).at(-1)).toMatchObject({
      type: "context_deleted",
      to: "all",
    });
    expect((await suite.store.roomStats(scope.roomId))?.contextCount).toBe(0);
    await expectRoomError(
      suite.store.deleteContext(scope, { id: other.id, agentId: "a" }),
      "not_found",
      `Context entry not found: ${other.id}`,
    );
  });

  test("contextVersions reads the entry and every earlier version at once", async () => {
    const scope = newScope();
    const entry = await suite.store.writeContext(scope, newNote("v0"));
    await expectRoomError(
      suite.store.contextVersions(newScope(), entry.id),
      "not_found",
      /^Context entry not found/,
    );
    expect(await suite.store.contextVersions(scope, entry.id)).toEqual({ entry, history: [] });
    const v1 = await suite.store.updateContext(scope, { id: entry.id, author: "b", payload: { text: "v1" } });
    const { id: _i, type: _t, ...first } = entry;
    expect(await suite.store.contextVersions(scope, entry.id)).toEqual({ entry: v1, history: [first] });
  });

  test("deleteEvent leaves a tombstone: same seq, id, type, from, to; payload {}; deleted {by, at}", async () => {
    const scope = newScope();
    const posted = await suite.store.postEvent(scope, {
      type: "secret_leaked",
      from: "alice",
      to: "bob",
      payload: { token: "s3cr3t" },
    });
    await suite.store.markEventRead(scope, posted.id, "bob");
    await suite.store.postEvent(scope, { type: "after", from: "bob", to: "all", payload: {} });
    suite.clock.advance(500);
    const tomb = await suite.store.deleteEvent(scope, {
      eventId: posted.id,
      by: "alice",
      onlyAuthor: "alice",
    });
    expect(tomb).toEqual({
      ...posted,
      payload: {},
      read_by: ["bob"],
      deleted: { by: "alice", at: iso(suite.clock.now()) },
    });
    const events = await allEvents(suite.store, scope);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(events[0]).toEqual(tomb);
    expect(events[2]).toMatchObject({
      type: "event_deleted",
      from: "alice",
      to: "all",
      payload: { eventId: posted.id, seq: 1, type: "secret_leaked" },
    });
    // Deleting a tombstone again answers it as it is and appends nothing.
    expect(await suite.store.deleteEvent(scope, { eventId: posted.id, by: "x" })).toEqual(tomb);
    expect(await allEvents(suite.store, scope)).toHaveLength(3);
  });

  test("deleteEvent keeps cursors exact: each event, tombstone or not, is delivered once", async () => {
    const scope = newScope();
    const posted = [];
    for (let i = 1; i <= 6; i++) {
      posted.push(
        await suite.store.postEvent(scope, { type: `e${i}`, from: "alice", to: "all", payload: { i } }),
      );
    }
    const first = await suite.store.consumeEvents(scope, "bob", 2);
    expect(first.events.map((e) => e.seq)).toEqual([1, 2]);
    await suite.store.deleteEvent(scope, { eventId: posted[1]?.id as string, by: "alice" }); // consumed already
    await suite.store.deleteEvent(scope, { eventId: posted[3]?.id as string, by: "alice" }); // not yet
    const rest = await suite.store.consumeEvents(scope, "bob", 100);
    expect(rest.events.map((e) => [e.seq, e.type, e.deleted?.by ?? null])).toEqual([
      [3, "e3", null],
      [4, "e4", "alice"],
      [5, "e5", null],
      [6, "e6", null],
      [7, "event_deleted", null],
      [8, "event_deleted", null],
    ]);
    expect(rest).toMatchObject({ cursor: 8, remaining: 0 });
    const carol = await suite.store.consumeEvents(scope, "carol", 100);
    expect(carol.events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  test("deleteEvent refuses another author's event for a bound caller, roomd's own events, and unknown ids", async () => {
    const scope = newScope();
    const task = await suite.store.addTask(scope, newTask("t", { agentId: "alice" }));
    const posted = await suite.store.postEvent(scope, {
      type: "note",
      from: "bob",
      to: "all",
      payload: { x: 1 },
    });
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.deleteEvent(scope, { eventId: posted.id, by: "alice", onlyAuthor: "alice" }),
      "forbidden",
      `Event ${posted.id} was posted by bob; only its author or an unbound team key may delete it`,
    );
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.deleteEvent(scope, { eventId: "evt-1", by: "alice" }),
      "forbidden",
      "Event evt-1 (task_added) was appended by roomd and records a change of the room; only events posted with post_event or reply_to_event can be deleted",
    );
    await expectRoomError(
      suite.store.deleteEvent(scope, { eventId: "evt-99", by: "alice" }),
      "not_found",
      "Event not found: evt-99",
    );
    // An unbound caller (no onlyAuthor) may delete anyone's posted event.
    expect((await suite.store.deleteEvent(scope, { eventId: posted.id, by: "carol" })).deleted?.by).toBe(
      "carol",
    );
    expect(task.id).toBe("task-1");
  });
}
