/**
 * Plan: tasks, versions, task events, not-found and conflict refusals, and the advisory plan lock
 * (docs/protocol.md#locks).
 */
import { expect, test } from "bun:test";
import { PLAN_LOCK } from "../../../src/protocol/limits.ts";
import { iso } from "../../../src/protocol/time.ts";
import {
  allEvents,
  expectRefusedUnchanged,
  expectRoomError,
  newScope,
  newTask,
  type Suite,
  snapshot,
} from "./harness.ts";

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export function planTests(suite: Suite): void {
  test("readPlan of a fresh room is the empty plan", async () => {
    const scope = newScope();
    expect(await suite.store.readPlan(scope)).toEqual({
      project: scope.roomId,
      created_at: null,
      updated_at: null,
      tasks: [],
    });
  });

  test("addTask creates a pending unowned task at version 1 and appends task_added {task}", async () => {
    const scope = newScope();
    const now = suite.clock.now();
    const task = await suite.store.addTask(scope, newTask("Build API", { agentId: "a" }));
    expect(task).toEqual({
      id: expect.any(String),
      title: "Build API",
      description: "",
      status: "pending",
      owner: null,
      depends_on: [],
      priority: null,
      version: 1,
      created_at: iso(now),
      updated_at: iso(now),
    });
    expect(task.id.length).toBeGreaterThan(0);
    expect(task.created_at).toMatch(ISO);
    const events = await allEvents(suite.store, scope);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ seq: 1, type: "task_added", from: "a", to: "all", payload: { task } });
    expect(events[0]?.timestamp).toBe(iso(now));
  });

  test("addTask without agentId is an event from system and keeps the given fields", async () => {
    const scope = newScope();
    const dep = await suite.store.addTask(scope, newTask("dep"));
    const task = await suite.store.addTask(
      scope,
      newTask("second", { description: "details", depends_on: [dep.id, dep.id], priority: 2 }),
    );
    // Duplicates in depends_on are dropped.
    expect(task).toMatchObject({ description: "details", depends_on: [dep.id], priority: 2 });
    expect(await suite.store.getTask(scope, task.id)).toEqual(task);
    const events = await allEvents(suite.store, scope);
    expect(events.map((e) => [e.seq, e.type, e.from])).toEqual([
      [1, "task_added", "system"],
      [2, "task_added", "system"],
    ]);
  });

  test("the plan lists tasks in creation order with unique ids and plan timestamps", async () => {
    const scope = newScope();
    const first = suite.clock.now();
    const tasks = [];
    for (let i = 0; i < 6; i++) {
      tasks.push(await suite.store.addTask(scope, newTask(`task ${i}`, { priority: 6 - i })));
      suite.clock.advance(1000);
    }
    const changed = suite.clock.advance(1000);
    await suite.store.updateTask(scope, { taskId: tasks[2]?.id ?? "", status: "done" });
    const plan = await suite.store.readPlan(scope);
    expect(plan.project).toBe(scope.roomId);
    expect(plan.tasks.map((t) => t.title)).toEqual(tasks.map((t) => t.title));
    expect(new Set(plan.tasks.map((t) => t.id)).size).toBe(6);
    expect(plan.created_at).toBe(iso(first));
    expect(plan.updated_at).toBe(iso(changed));
  });

  test("updateTask bumps version by exactly 1, sets updated_at and appends task_updated", async () => {
    const scope = newScope();
    const created = suite.clock.now();
    const task = await suite.store.addTask(scope, newTask("t"));
    const later = suite.clock.advance(5000);
    const updated = await suite.store.updateTask(scope, {
      taskId: task.id,
      status: "in_progress",
      owner: "a",
      agentId: "a",
    });
    expect(updated).toEqual({
      ...task,
      status: "in_progress",
      owner: "a",
      version: 2,
      created_at: iso(created),
      updated_at: iso(later),
    });
    expect(await suite.store.getTask(scope, task.id)).toEqual(updated);
    const last = (await allEvents(suite.store, scope)).at(-1);
    expect(last).toMatchObject({ seq: 2, type: "task_updated", from: "a", to: "all" });
    const payload = last?.payload as {
      task: unknown;
      previousStatus: unknown;
      changes: Record<string, unknown>;
    };
    expect(payload.task).toEqual(updated);
    expect(payload.previousStatus).toBe("pending");
    expect(payload.changes).toMatchObject({ status: "in_progress", owner: "a" });
    expect(payload.changes.description).toBeUndefined();
    expect(payload.changes.note).toBeUndefined();

    const v3 = await suite.store.updateTask(scope, { taskId: task.id, description: "more", agentId: "a" });
    const v4 = await suite.store.updateTask(scope, { taskId: task.id, status: "done", agentId: "a" });
    expect([v3.version, v4.version]).toEqual([3, 4]);
    expect(v4).toMatchObject({ description: "more", status: "done", owner: "a" });
  });

  test("owner null unassigns", async () => {
    const scope = newScope();
    const task = await suite.store.addTask(scope, newTask("t"));
    await suite.store.updateTask(scope, { taskId: task.id, owner: "a" });
    const unassigned = await suite.store.updateTask(scope, { taskId: task.id, owner: null, agentId: "a" });
    expect(unassigned).toMatchObject({ owner: null, version: 3 });
    const payload = (await allEvents(suite.store, scope)).at(-1)?.payload as {
      changes: Record<string, unknown>;
    };
    expect(payload.changes).toMatchObject({ owner: null });
    expect("owner" in payload.changes).toBe(true);
  });

  test("a note goes into the event's changes and never erases the description", async () => {
    const scope = newScope();
    const task = await suite.store.addTask(scope, newTask("t", { description: "the design" }));
    const updated = await suite.store.updateTask(scope, {
      taskId: task.id,
      status: "blocked",
      note: "waiting on db",
    });
    expect(updated).toMatchObject({ description: "the design", status: "blocked", version: 2 });
    const payload = (await allEvents(suite.store, scope)).at(-1)?.payload as {
      previousStatus: string;
      changes: Record<string, unknown>;
    };
    expect(payload.previousStatus).toBe("pending");
    expect(payload.changes).toMatchObject({ status: "blocked", note: "waiting on db" });
  });

  test("expectedVersion: a match applies, a mismatch is a conflict that changes nothing", async () => {
    const scope = newScope();
    const task = await suite.store.addTask(scope, newTask("t"));
    const v2 = await suite.store.updateTask(scope, {
      taskId: task.id,
      status: "in_progress",
      expectedVersion: 1,
    });
    expect(v2.version).toBe(2);
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.updateTask(scope, { taskId: task.id, status: "done", expectedVersion: 1 }),
      "conflict",
      `Version conflict: task ${task.id} is at version 2 (in_progress, no owner); read it again before changing it`,
    );
    expect(await suite.store.getTask(scope, task.id)).toEqual(v2);
  });

  test("an unknown task is not found and changes nothing", async () => {
    const scope = newScope();
    await suite.store.addTask(scope, newTask("t"));
    await expectRoomError(suite.store.getTask(scope, "nope"), "not_found", "Task not found: nope");
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.updateTask(scope, { taskId: "nope", status: "done" }),
      "not_found",
      "Task not found: nope",
    );
  });
}

export function planLockTests(suite: Suite): void {
  const lockedBy = (holder: string, until: string) =>
    `Plan is locked by ${holder} until ${until}; retry after it`;

  test("the holder of the plan lock writes; others and anonymous writes are refused", async () => {
    const scope = newScope();
    const task = await suite.store.addTask(scope, newTask("before", { agentId: "B" }));
    const lock = await suite.store.acquireLock(scope, PLAN_LOCK, "A", 30_000);
    expect(lock.acquired).toBe(true);

    const own = await suite.store.addTask(scope, newTask("mine", { agentId: "A" }));
    const updated = await suite.store.updateTask(scope, {
      taskId: task.id,
      status: "in_progress",
      agentId: "A",
    });
    expect(updated.version).toBe(2);

    const message = lockedBy("A", lock.expiresAt);
    expect(message).toMatch(/^Plan is locked by A until .*; retry after it$/);
    const refusals = [
      () => suite.store.addTask(scope, newTask("theirs", { agentId: "B" })),
      () => suite.store.updateTask(scope, { taskId: task.id, status: "done", agentId: "B" }),
      () => suite.store.addTask(scope, newTask("anonymous")),
      () => suite.store.updateTask(scope, { taskId: own.id, owner: "x" }),
      // The lock check comes before the version check, and before looking the task up.
      () =>
        suite.store.updateTask(scope, { taskId: task.id, status: "done", agentId: "B", expectedVersion: 1 }),
      () => suite.store.updateTask(scope, { taskId: "task-999", status: "done", agentId: "B" }),
    ];
    for (const refused of refusals)
      await expectRefusedUnchanged(suite.store, scope, refused, "locked", message);
  });

  test("after the holder releases the plan lock, others write again", async () => {
    const scope = newScope();
    const lock = await suite.store.acquireLock(scope, PLAN_LOCK, "A", 30_000);
    await expectRoomError(
      suite.store.addTask(scope, newTask("x", { agentId: "B" })),
      "locked",
      lockedBy("A", lock.expiresAt),
    );
    expect(await suite.store.releaseLock(scope, PLAN_LOCK, "A")).toEqual({ released: true });
    const task = await suite.store.addTask(scope, newTask("x", { agentId: "B" }));
    expect((await suite.store.updateTask(scope, { taskId: task.id, status: "done" })).version).toBe(2);
  });

  test("after the plan lock expires, others write again", async () => {
    const scope = newScope();
    const task = await suite.store.addTask(scope, newTask("t"));
    const lock = await suite.store.acquireLock(scope, PLAN_LOCK, "A", 10_000);
    suite.clock.advance(9_000);
    const before = await snapshot(suite.store, scope);
    await expectRoomError(
      suite.store.updateTask(scope, { taskId: task.id, status: "done", agentId: "B" }),
      "locked",
      lockedBy("A", lock.expiresAt),
    );
    expect(await snapshot(suite.store, scope)).toEqual(before);
    suite.clock.advance(1_001);
    const done = await suite.store.updateTask(scope, { taskId: task.id, status: "done", agentId: "B" });
    expect(done.version).toBe(2);
    expect((await suite.store.addTask(scope, newTask("u"))).version).toBe(1);
  });
}
