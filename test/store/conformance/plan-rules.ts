/** The plan keeps its own rules (docs/protocol.md#the-plans-rules): dependencies, status, ownership. */
import { expect, test } from "bun:test";
import { expectRefusedUnchanged, newScope, newTask, type Suite } from "./harness.ts";

export function planRuleTests(suite: Suite): void {
  test("depends_on naming no task of the room is refused, on add and on update", async () => {
    const scope = newScope();
    const t1 = await suite.store.addTask(scope, newTask("t1"));
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.addTask(scope, newTask("t2", { depends_on: [t1.id, "task-99"] })),
      "invalid",
      "Unknown task in depends_on: task-99; read_plan lists the task ids of this room",
    );
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.updateTask(scope, { taskId: t1.id, depends_on: ["nope"] }),
      "invalid",
      /^Unknown task in depends_on: nope/,
    );
  });

  test("a dependency cycle is refused, naming it; a self-dependency too", async () => {
    const scope = newScope();
    const t1 = await suite.store.addTask(scope, newTask("t1"));
    const t2 = await suite.store.addTask(scope, newTask("t2", { depends_on: [t1.id] }));
    const t3 = await suite.store.addTask(scope, newTask("t3", { depends_on: [t2.id] }));
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.updateTask(scope, { taskId: t1.id, depends_on: [t3.id] }),
      "invalid",
      `Dependency cycle: ${t1.id} → ${t3.id} → ${t2.id} → ${t1.id}`,
    );
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.updateTask(scope, { taskId: t2.id, depends_on: [t2.id] }),
      "invalid",
      `Dependency cycle: ${t2.id} → ${t2.id}`,
    );
    // An acyclic change is fine: t3 may also depend on t1 directly.
    const v = await suite.store.updateTask(scope, { taskId: t3.id, depends_on: [t2.id, t1.id] });
    expect(v.depends_on).toEqual([t2.id, t1.id]);
  });

  test("update_task changes title, depends_on and priority (null clears it), echoed in changes", async () => {
    const scope = newScope();
    const dep = await suite.store.addTask(scope, newTask("dep"));
    const task = await suite.store.addTask(scope, newTask("old title", { priority: 3 }));
    const updated = await suite.store.updateTask(scope, {
      taskId: task.id,
      title: "new title",
      depends_on: [dep.id],
      priority: null,
    });
    expect(updated).toMatchObject({ title: "new title", depends_on: [dep.id], priority: null, version: 2 });
    const [event] = await suite.store.readEvents(scope, { limit: 1 });
    expect(event?.payload).toMatchObject({
      changes: { title: "new title", depends_on: [dep.id], priority: null },
    });
    expect((await suite.store.updateTask(scope, { taskId: task.id, priority: -5 })).priority).toBe(-5);
  });

  test("in_progress and done need every dependency done; the error lists the blockers", async () => {
    const scope = newScope();
    const t1 = await suite.store.addTask(scope, newTask("t1"));
    const t2 = await suite.store.addTask(scope, newTask("t2"));
    await suite.store.updateTask(scope, { taskId: t2.id, status: "in_progress" });
    const t3 = await suite.store.addTask(scope, newTask("t3", { depends_on: [t1.id, t2.id] }));
    for (const status of ["in_progress", "done"] as const) {
      await expectRefusedUnchanged(
        suite.store,
        scope,
        () => suite.store.updateTask(scope, { taskId: t3.id, status }),
        "conflict",
        `Task ${t3.id} is blocked by ${t1.id} (pending), ${t2.id} (in_progress); finish those first`,
      );
    }
    // blocked and pending need nothing.
    expect((await suite.store.updateTask(scope, { taskId: t3.id, status: "blocked" })).status).toBe(
      "blocked",
    );
    await suite.store.updateTask(scope, { taskId: t1.id, status: "done" });
    await suite.store.updateTask(scope, { taskId: t2.id, status: "done" });
    expect((await suite.store.updateTask(scope, { taskId: t3.id, status: "done" })).status).toBe("done");
    // Reopening is allowed, even with a done dependent.
    expect((await suite.store.updateTask(scope, { taskId: t1.id, status: "pending" })).status).toBe(
      "pending",
    );
  });

  test("a new dependency that is not done refuses an in_progress task's change", async () => {
    const scope = newScope();
    const blocker = await suite.store.addTask(scope, newTask("blocker"));
    const task = await suite.store.addTask(scope, newTask("task"));
    await suite.store.updateTask(scope, { taskId: task.id, status: "in_progress" });
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.updateTask(scope, { taskId: task.id, depends_on: [blocker.id] }),
      "conflict",
      `Task ${task.id} is blocked by ${blocker.id} (pending); finish those first`,
    );
  });

  test("another agent's task changes only by its owner, or with expectedVersion (a take-over)", async () => {
    const scope = newScope();
    const task = await suite.store.addTask(scope, newTask("t"));
    const owned = await suite.store.updateTask(scope, { taskId: task.id, owner: "bob", agentId: "bob" });
    for (const agentId of ["alice", undefined]) {
      await expectRefusedUnchanged(
        suite.store,
        scope,
        () => suite.store.updateTask(scope, { taskId: task.id, status: "in_progress", agentId }),
        "conflict",
        `Task ${task.id} is owned by bob; pass expectedVersion (the version you read) to change it anyway`,
      );
    }
    const byOwner = await suite.store.updateTask(scope, {
      taskId: task.id,
      note: "progress",
      agentId: "bob",
    });
    expect(byOwner.version).toBe(owned.version + 1);
    const takeOver = await suite.store.updateTask(scope, {
      taskId: task.id,
      owner: "alice",
      agentId: "alice",
      expectedVersion: byOwner.version,
    });
    expect(takeOver.owner).toBe("alice");
  });
}
