/** Room analytics: a scripted room whose every number is known, on every driver (store read + protocol/analytics.ts). */
import { expect, test } from "bun:test";
import { computeAnalytics } from "../../../src/protocol/analytics.ts";
import { iso } from "../../../src/protocol/time.ts";
import { apiContractPayload, newScope, newTask, notePayload, type Suite } from "./harness.ts";

export function analyticsTests(suite: Suite): void {
  test("an empty room has zeros and nulls", async () => {
    const scope = newScope();
    expect(computeAnalytics(scope.roomId, await suite.store.analyticsLog(scope))).toEqual({
      roomId: scope.roomId,
      eventCount: 0,
      taskCount: 0,
      tasksByStatus: { pending: 0, in_progress: 0, done: 0, blocked: 0 },
      tasksDeleted: 0,
      donePerAgent: {},
      claimToDone: { count: 0, medianMs: null },
      handoffs: 0,
      contextChurn: { entries: 0, updates: 0, deleted: 0, byEntry: [] },
      eventsPerAgent: {},
      contractReads: { count: 0, read: 0, unread: 0, medianMs: null, reads: [] },
    });
  });

  test("every number of a scripted room", async () => {
    const { store, clock } = suite;
    const scope = newScope();
    const step = (ms: number) => clock.advance(ms);
    const [t1, t2, t3] = [
      await store.addTask(scope, newTask("a", { agentId: "alice" })),
      await store.addTask(scope, newTask("b", { agentId: "alice" })),
      await store.addTask(scope, newTask("c", { agentId: "alice" })),
    ];
    const move = (taskId: string, agentId: string, fields: object) =>
      store.updateTask(scope, { taskId, agentId, ...fields });
    // t1: alice claims, done 10 s later.
    await move(t1.id, "alice", { owner: "alice", status: "in_progress" });
    step(10_000);
    await move(t1.id, "alice", { status: "done" });
    // t2: bob claims, done 30 s later.
    await move(t2.id, "bob", { owner: "bob", status: "in_progress" });
    step(30_000);
    await move(t2.id, "bob", { status: "done" });
    // t3: alice claims; bob takes it over (handoff 1, claimed again); bob unassigns; carol takes it (handoff 2,
    // claimed again) and finishes 60 s later.
    await move(t3.id, "alice", { owner: "alice", status: "in_progress" });
    step(20_000);
    await move(t3.id, "bob", { owner: "bob", expectedVersion: 2 });
    step(10_000);
    await move(t3.id, "bob", { owner: null, status: "pending" });
    await move(t3.id, "carol", { owner: "carol", status: "in_progress" });
    step(60_000);
    await move(t3.id, "carol", { status: "done" });
    const t4 = await store.addTask(scope, newTask("d", { agentId: "dan" }));
    await store.deleteTask(scope, { taskId: t4.id, agentId: "dan" });
    // A contract consumed by bob and carol, updated twice; bob receives each update, carol never.
    const contract = await store.writeContext(scope, {
      type: "api_contract",
      summary: "users",
      consuming_agents: ["bob", "carol"],
      payload: apiContractPayload(),
      author: "alice",
    });
    step(1000);
    const update1 = iso(clock.now());
    await store.updateContext(scope, {
      id: contract.id,
      author: "alice",
      payload: { ...apiContractPayload(), version: "2" },
    });
    step(5000);
    const read1 = iso(clock.now());
    await store.consumeEvents(scope, "bob", 100);
    step(4000);
    const update2 = iso(clock.now());
    await store.updateContext(scope, { id: contract.id, author: "alice", summary: "users v3" });
    step(2000);
    const read2 = iso(clock.now());
    await store.summary(scope, "bob", 100);
    // A note revised three times (no consumers: no events), another one deleted.
    const note = await store.writeContext(scope, {
      type: "note",
      summary: "n",
      consuming_agents: [],
      payload: notePayload(),
      author: "alice",
    });
    for (const summary of ["n1", "n2", "n3"])
      await store.updateContext(scope, { id: note.id, author: "alice", summary });
    const gone = await store.writeContext(scope, {
      type: "note",
      summary: "x",
      consuming_agents: [],
      payload: notePayload(),
      author: "alice",
    });
    await store.deleteContext(scope, { id: gone.id, agentId: "alice" });
    await store.postEvent(scope, { type: "hello", from: "dan", to: "all", payload: { hi: 1 } });

    expect(computeAnalytics(scope.roomId, await store.analyticsLog(scope))).toEqual({
      roomId: scope.roomId,
      eventCount: 19,
      taskCount: 3,
      tasksByStatus: { pending: 0, in_progress: 0, done: 3, blocked: 0 },
      tasksDeleted: 1,
      donePerAgent: { alice: 1, bob: 1, carol: 1 },
      claimToDone: { count: 3, medianMs: 30_000 },
      handoffs: 2,
      contextChurn: {
        entries: 2,
        updates: 5,
        deleted: 1,
        byEntry: [
          { contextId: note.id, type: "note", version: "1.3", updates: 3 },
          { contextId: contract.id, type: "api_contract", version: "1.2", updates: 2 },
        ],
      },
      eventsPerAgent: { alice: 10, bob: 4, carol: 2, dan: 3 },
      contractReads: {
        count: 4,
        read: 2,
        unread: 2,
        medianMs: 3500,
        reads: [
          {
            contextId: contract.id,
            version: "1.1",
            updatedAt: update1,
            consumer: "bob",
            readAt: read1,
            lagMs: 5000,
          },
          {
            contextId: contract.id,
            version: "1.1",
            updatedAt: update1,
            consumer: "carol",
            readAt: null,
            lagMs: null,
          },
          {
            contextId: contract.id,
            version: "1.2",
            updatedAt: update2,
            consumer: "bob",
            readAt: read2,
            lagMs: 2000,
          },
          {
            contextId: contract.id,
            version: "1.2",
            updatedAt: update2,
            consumer: "carol",
            readAt: null,
            lagMs: null,
          },
        ],
      },
    });
  });
}
