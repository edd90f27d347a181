/**
 * Task leases (docs/protocol.md#task-leases, protocol/leases.ts): claim_task with its refusals, renewal by the
 * owner's calls, lazy but visible expiry (every read at once, the next plan write records the event), renew_lease,
 * the lease ending with the task's holder, and 32 concurrent claims of one task on two instances: exactly one wins.
 */
import { expect, test } from "bun:test";
import { RoomError } from "../../../src/protocol/errors.ts";
import type { Task } from "../../../src/protocol/records.ts";
import { iso } from "../../../src/protocol/time.ts";
import type { RoomScope } from "../../../src/store/types.ts";
import {
  allEvents,
  claimedRoom,
  expectRefusedUnchanged,
  expectRoomError,
  instanceFor,
  newTask,
  type Suite,
} from "./harness.ts";

const LEASE = 900_000;
const as = (scope: RoomScope, actor: string): RoomScope => ({ ...scope, actor });

async function pendingTask(suite: Suite, scope: RoomScope, title = "t", deps: string[] = []): Promise<Task> {
  return suite.store.addTask(scope, newTask(title, { depends_on: deps }));
}

export function leaseTests(suite: Suite): void {
  test("claimTask takes a pending task: in_progress, owned, version + 1, lease_expires_at, task_claimed", async () => {
    const scope = await claimedRoom(suite.store);
    const task = await pendingTask(suite, scope);
    const now = suite.clock.advance(1000);
    const claimed = await suite.store.claimTask(as(scope, "a"), {
      taskId: task.id,
      agentId: "a",
      leaseMs: LEASE,
    });
    expect(claimed).toEqual({
      ...task,
      status: "in_progress",
      owner: "a",
      version: 2,
      updated_at: iso(now),
      lease_expires_at: iso(now + LEASE),
    });
    expect(await suite.store.getTask(scope, task.id)).toEqual(claimed);
    const last = (await allEvents(suite.store, scope)).at(-1);
    expect(last).toMatchObject({ type: "task_claimed", from: "a", to: "all", payload: { task: claimed } });
    // Tasks never leased carry no lease field at all.
    expect(Object.keys(task)).not.toContain("lease_expires_at");
  });

  test("refusals name why, in order, and change nothing", async () => {
    const scope = await claimedRoom(suite.store);
    const first = await pendingTask(suite, scope, "first");
    const second = await pendingTask(suite, scope, "second", [first.id]);
    const held = await suite.store.claimTask(scope, { taskId: first.id, agentId: "a", leaseMs: LEASE });
    const claim =
      (taskId: string, agentId: string, extra: { expectedVersion?: number } = {}) =>
      () =>
        suite.second.claimTask(scope, { taskId, agentId, leaseMs: LEASE, ...extra });
    await expectRefusedUnchanged(
      suite.store,
      scope,
      claim(first.id, "b"),
      "conflict",
      `Task ${first.id} is owned by a (lease until ${held.lease_expires_at}); pick another task`,
    );
    await expectRefusedUnchanged(
      suite.store,
      scope,
      claim(second.id, "b"),
      "conflict",
      `Task ${second.id} is blocked by ${first.id} (in_progress); finish those first`,
    );
    await expectRefusedUnchanged(
      suite.store,
      scope,
      claim("task-99", "b"),
      "not_found",
      "Task not found: task-99",
    );
    await expectRefusedUnchanged(
      suite.store,
      scope,
      claim(second.id, "b", { expectedVersion: 7 }),
      "conflict",
      /^Version conflict: task task-2 is at version 1/,
    );
    await suite.store.updateTask(scope, { taskId: first.id, status: "done", agentId: "a" });
    await expectRefusedUnchanged(
      suite.store,
      scope,
      claim(first.id, "b"),
      "conflict",
      `Task ${first.id} is done; only pending tasks can be claimed`,
    );
    const blocked = await pendingTask(suite, scope, "third");
    await suite.store.updateTask(scope, { taskId: blocked.id, status: "blocked" });
    await expectRefusedUnchanged(
      suite.store,
      scope,
      claim(blocked.id, "b"),
      "conflict",
      `Task ${blocked.id} is blocked; only pending tasks can be claimed`,
    );
    // Someone else's task taken without a lease (update_task) is named without a lease.
    await suite.store.updateTask(scope, { taskId: blocked.id, status: "pending", owner: "c" });
    await expectRefusedUnchanged(
      suite.store,
      scope,
      claim(blocked.id, "b"),
      "conflict",
      `Task ${blocked.id} is owned by c; pick another task`,
    );
    await suite.store.acquireLock(scope, "plan", "lead", 30_000);
    await expectRefusedUnchanged(
      suite.store,
      scope,
      claim(second.id, "b"),
      "locked",
      /^Plan is locked by lead/,
    );
    // With the dependency done the claim goes through.
    await suite.store.releaseLock(scope, "plan", "lead");
    expect(await claim(second.id, "b")()).toMatchObject({ status: "in_progress", owner: "b" });
  });

  test("the holder claiming again renews the lease, without a new version or event", async () => {
    const scope = await claimedRoom(suite.store);
    const task = await pendingTask(suite, scope);
    const claimed = await suite.store.claimTask(scope, { taskId: task.id, agentId: "a", leaseMs: LEASE });
    const events = (await allEvents(suite.store, scope)).length;
    const later = suite.clock.advance(60_000);
    const again = await suite.second.claimTask(scope, { taskId: task.id, agentId: "a", leaseMs: 60_000 });
    expect(again).toEqual({ ...claimed, lease_expires_at: iso(later + 60_000) });
    expect((await allEvents(suite.store, scope)).length).toBe(events);
  });

  test("a lease that runs out reads as pending at once; the next plan write records task_lease_expired", async () => {
    const scope = await claimedRoom(suite.store);
    const task = await pendingTask(suite, scope);
    const claimed = await suite.store.claimTask(scope, { taskId: task.id, agentId: "a", leaseMs: 30_000 });
    const expiry = claimed.lease_expires_at as string;
    suite.clock.advance(29_999);
    expect((await suite.store.getTask(scope, task.id)).owner).toBe("a");
    suite.clock.advance(1);
    const lapsed: Task = {
      ...task,
      status: "pending",
      owner: null,
      version: claimed.version + 1,
      updated_at: expiry,
    };
    expect(await suite.store.getTask(scope, task.id)).toEqual(lapsed);
    expect((await suite.second.readPlan(scope)).tasks).toEqual([lapsed]);
    expect((await suite.store.summary(scope, "a", 10)).myTasks).toEqual([]);
    expect((await suite.store.roomSummary(scope.roomId))?.tasksByStatus).toMatchObject({
      pending: 1,
      in_progress: 0,
    });
    // Reads record nothing: no event yet.
    expect((await allEvents(suite.store, scope)).map((e) => e.type)).not.toContain("task_lease_expired");
    // The owner's call after the end does not bring the lease back.
    await suite.store.heartbeat(as(scope, "a"), "a");
    expect(await suite.store.getTask(scope, task.id)).toEqual(lapsed);
    await suite.second.addTask(scope, newTask("next"));
    const types = (await allEvents(suite.store, scope)).map((e) => e.type);
    expect(types.slice(-2)).toEqual(["task_lease_expired", "task_added"]);
    const expired = (await allEvents(suite.store, scope)).find((e) => e.type === "task_lease_expired");
    expect(expired).toMatchObject({
      from: "system",
      to: "all",
      payload: { taskId: task.id, previousOwner: "a" },
    });
    // Recorded exactly as it read; recorded once.
    expect(await suite.store.getTask(scope, task.id)).toEqual(lapsed);
    await suite.store.addTask(scope, newTask("another"));
    expect((await allEvents(suite.store, scope)).filter((e) => e.type === "task_lease_expired")).toHaveLength(
      1,
    );
    // And it can be claimed again, by anyone, against the version reads showed.
    const retaken = await suite.second.claimTask(scope, {
      taskId: task.id,
      agentId: "b",
      leaseMs: LEASE,
      expectedVersion: lapsed.version,
    });
    expect(retaken).toMatchObject({ owner: "b", version: lapsed.version + 1 });
  });

  test("a claim of a task whose lease ran out records the expiry first, then takes it", async () => {
    const scope = await claimedRoom(suite.store);
    const task = await pendingTask(suite, scope);
    await suite.store.claimTask(scope, { taskId: task.id, agentId: "a", leaseMs: 30_000 });
    suite.clock.advance(30_000);
    const taken = await suite.second.claimTask(scope, { taskId: task.id, agentId: "b", leaseMs: LEASE });
    expect(taken).toMatchObject({ owner: "b", status: "in_progress", version: 4 });
    const types = (await allEvents(suite.store, scope)).map((e) => e.type);
    expect(types).toEqual(["task_added", "task_claimed", "task_lease_expired", "task_claimed"]);
  });

  test("any successful call by the owner renews its leases; others' calls do not", async () => {
    const scope = await claimedRoom(suite.store);
    const one = await pendingTask(suite, scope, "one");
    const two = await pendingTask(suite, scope, "two");
    await suite.store.claimTask(scope, { taskId: one.id, agentId: "a", leaseMs: 60_000 });
    await suite.store.claimTask(scope, { taskId: two.id, agentId: "a", leaseMs: 30_000 });
    let now = suite.clock.advance(20_000);
    await suite.second.heartbeat(as(scope, "a"), "a");
    expect((await suite.store.getTask(scope, one.id)).lease_expires_at).toBe(iso(now + 60_000));
    expect((await suite.store.getTask(scope, two.id)).lease_expires_at).toBe(iso(now + 30_000));
    now = suite.clock.advance(25_000);
    await suite.store.postEvent(as(scope, "a"), { type: "progress", from: "a", to: "all", payload: {} });
    expect((await suite.store.getTask(scope, two.id)).lease_expires_at).toBe(iso(now + 30_000));
    // A read naming the owner renews too (SQLite records a reader at most every 15 s).
    now = suite.clock.advance(25_000);
    await suite.second.getTask(as(scope, "a"), one.id);
    expect((await suite.store.getTask(scope, two.id)).lease_expires_at).toBe(iso(now + 30_000));
    // Another agent's calls renew nothing.
    const before = (await suite.store.getTask(scope, two.id)).lease_expires_at;
    suite.clock.advance(20_000);
    await suite.store.heartbeat(as(scope, "b"), "b");
    expect((await suite.store.getTask(scope, two.id)).lease_expires_at).toBe(before);
    // Renewal changes neither version nor updated_at.
    expect(await suite.store.getTask(scope, two.id)).toMatchObject({ version: 2, owner: "a" });
  });

  test("renewLeases returns the agent's leased tasks with new expiries; with taskId, only a task leased to it", async () => {
    const scope = await claimedRoom(suite.store);
    const one = await pendingTask(suite, scope, "one");
    const two = await pendingTask(suite, scope, "two");
    const other = await pendingTask(suite, scope, "other");
    await suite.store.claimTask(scope, { taskId: two.id, agentId: "a", leaseMs: 30_000 });
    await suite.store.claimTask(scope, { taskId: one.id, agentId: "a", leaseMs: 60_000 });
    await suite.store.claimTask(scope, { taskId: other.id, agentId: "b", leaseMs: 60_000 });
    const now = suite.clock.advance(10_000);
    const renewed = await suite.second.renewLeases(scope, "a");
    expect(renewed.map((t) => [t.id, t.lease_expires_at])).toEqual([
      [one.id, iso(now + 60_000)],
      [two.id, iso(now + 30_000)],
    ]);
    expect(await suite.store.renewLeases(scope, "a", two.id)).toEqual([
      expect.objectContaining({ id: two.id, lease_expires_at: iso(now + 30_000) }),
    ]);
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.renewLeases(scope, "a", other.id),
      "conflict",
      `Task ${other.id} is not leased to you (owner: b); claim it with claim_task`,
    );
    await expectRoomError(
      suite.store.renewLeases(scope, "a", "task-99"),
      "not_found",
      "Task not found: task-99",
    );
    expect(await suite.store.renewLeases(scope, "nobody")).toEqual([]);
  });

  test("the lease ends with the task's holder: done, pending or another owner drop it; other changes keep it", async () => {
    const scope = await claimedRoom(suite.store);
    const task = await pendingTask(suite, scope);
    const claimed = await suite.store.claimTask(scope, { taskId: task.id, agentId: "a", leaseMs: 30_000 });
    const retitled = await suite.store.updateTask(scope, { taskId: task.id, title: "renamed", agentId: "a" });
    expect(retitled.lease_expires_at).toBe(claimed.lease_expires_at);
    // The holder's own update renews the lease in the same step; someone else's keeps it as it was.
    const later = suite.clock.advance(5_000);
    const paused = await suite.store.updateTask(scope, { taskId: task.id, status: "blocked", agentId: "a" });
    expect(paused.lease_expires_at).toBe(iso(later + 30_000));
    expect(await suite.store.getTask(scope, task.id)).toEqual(paused);
    suite.clock.advance(5_000);
    const reprioritised = await suite.store.updateTask(scope, {
      taskId: task.id,
      priority: 3,
      agentId: "b",
      expectedVersion: paused.version,
    });
    expect(reprioritised.lease_expires_at).toBe(paused.lease_expires_at);
    const done = await suite.store.updateTask(scope, { taskId: task.id, status: "done", agentId: "a" });
    expect(Object.keys(done)).not.toContain("lease_expires_at");
    suite.clock.advance(60_000);
    // No lease left to run out: still done and owned.
    expect(await suite.store.getTask(scope, task.id)).toMatchObject({
      status: "done",
      owner: "a",
      version: done.version,
    });
    const next = await pendingTask(suite, scope, "next");
    const leased = await suite.store.claimTask(scope, { taskId: next.id, agentId: "a", leaseMs: 30_000 });
    const taken = await suite.store.updateTask(scope, {
      taskId: next.id,
      owner: "b",
      agentId: "b",
      expectedVersion: leased.version,
    });
    expect(Object.keys(taken)).not.toContain("lease_expires_at");
    suite.clock.advance(60_000);
    expect(await suite.store.getTask(scope, next.id)).toMatchObject({ owner: "b", status: "in_progress" });
  });

  test("32 concurrent claims of one task on two instances: exactly one wins, the others are told the owner", async () => {
    const scope = await claimedRoom(suite.store);
    const task = await pendingTask(suite, scope);
    const results = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        instanceFor(suite, i)
          .claimTask(scope, { taskId: task.id, agentId: `agent-${i}`, leaseMs: LEASE })
          .catch((error: unknown) => error),
      ),
    );
    const won = results.filter((r): r is Task => !(r instanceof Error));
    expect(won).toHaveLength(1);
    const winner = won[0]?.owner as string;
    for (const r of results) {
      if (r instanceof Error) {
        expect(r).toBeInstanceOf(RoomError);
        expect(r.message).toStartWith(`Task ${task.id} is owned by ${winner} (lease until `);
      }
    }
    const claims = (await allEvents(suite.store, scope)).filter((e) => e.type === "task_claimed");
    expect(claims).toHaveLength(1);
    expect((await suite.store.getTask(scope, task.id)).version).toBe(2);
  });

  test("deleteTask ends a live lease: nothing is left to renew or to record as expired", async () => {
    const scope = await claimedRoom(suite.store);
    const task = await pendingTask(suite, scope);
    await suite.store.claimTask(scope, { taskId: task.id, agentId: "a", leaseMs: LEASE });
    const deleted = await suite.store.deleteTask(scope, { taskId: task.id, agentId: "a" });
    expect(deleted.lease_expires_at).toBeDefined();
    expect(await suite.store.renewLeases(as(scope, "a"), "a")).toEqual([]);
    suite.clock.advance(LEASE + 1000);
    // The deleted task's lease is gone from the store: no expiry is recorded for it by the next plan write.
    await suite.store.addTask(scope, newTask("next"));
    expect((await allEvents(suite.store, scope)).map((e) => e.type)).not.toContain("task_lease_expired");
  });

  test("deleteTask and addDependency record leases that ran out first, and see the task as reads do", async () => {
    const scope = await claimedRoom(suite.store);
    const first = await pendingTask(suite, scope, "first");
    const second = await pendingTask(suite, scope, "second");
    await suite.store.claimTask(scope, { taskId: second.id, agentId: "a", leaseMs: LEASE });
    suite.clock.advance(LEASE + 1000);
    // The lease ran out: the task reads as pending and unowned, so another agent may change it without a version.
    const added = await suite.store.addDependency(scope, {
      taskId: second.id,
      dependsOn: first.id,
      agentId: "b",
    });
    expect(added).toMatchObject({ status: "pending", owner: null, depends_on: [first.id], version: 4 });
    expect(added.lease_expires_at).toBeUndefined();
    const types = (await allEvents(suite.store, scope)).map((e) => e.type);
    expect(types.slice(-2)).toEqual(["task_lease_expired", "task_updated"]);
    const counts = await suite.store.claimTask(scope, { taskId: first.id, agentId: "c", leaseMs: LEASE });
    suite.clock.advance(LEASE + 1000);
    await suite.store.deleteTask(scope, { taskId: first.id, agentId: "d", force: true });
    const after = (await allEvents(suite.store, scope)).map((e) => e.type);
    expect(after.slice(-2)).toEqual(["task_lease_expired", "task_deleted"]);
    expect(counts.owner).toBe("c");
  });
}
