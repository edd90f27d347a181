/**
 * Handoffs together with task leases, deletions and the plan lock (docs/people.md "Handoffs"): the tasks an offer
 * and an acceptance see are the tasks reads show (a lease that ran out is its holder's no more); accepting is a
 * plan write (plan lock, leases that ran out recorded first) and a moved task's lease ends, since it leaves its
 * holder; the task counts by status stay right.
 */
import { expect, test } from "bun:test";
import type { Task } from "../../../src/protocol/records.ts";
import type { NewHandoff } from "../../../src/store/people-types.ts";
import type { RoomScope } from "../../../src/store/types.ts";
import {
  agentOffer,
  allEvents,
  claimedRoom,
  expectRefusedUnchanged,
  newTask,
  notePayload,
  type Suite,
} from "./harness.ts";

const LEASE = 60_000;
const as = (scope: RoomScope, actor: string): RoomScope => ({ ...scope, actor });

const offer = (from: string, to: string, taskIds: string[], extra: Partial<NewHandoff> = {}) =>
  agentOffer(from, to, taskIds, { note: "yours now", ...extra });
const types = async (suite: Suite, scope: RoomScope) =>
  (await allEvents(suite.store, scope)).map((e) => e.type);

export function handoffLeaseTests(suite: Suite): void {
  async function leasedRoom(leaseMs = LEASE) {
    const scope = await claimedRoom(suite.store);
    const task = await suite.store.addTask(scope, newTask("build"));
    const claimed = await suite.store.claimTask(as(scope, "alice"), {
      taskId: task.id,
      agentId: "alice",
      leaseMs,
    });
    return { scope, task, claimed };
  }

  test("a leased task handed on: its lease ends; the acceptor owns it without one and the old holder renews nothing", async () => {
    const { scope, task, claimed } = await leasedRoom();
    await suite.store.offerHandoff(scope, offer("alice", "bob", [task.id]));
    const now = suite.clock.advance(1000);
    const accepted = await suite.second.acceptHandoff(as(scope, "bob"), { id: "hof-1", agentId: "bob" });
    expect(accepted.moved).toEqual([task.id]);
    const { lease_expires_at: _lease, ...unleased } = claimed;
    const moved: Task = {
      ...unleased,
      owner: "bob",
      version: claimed.version + 1,
      updated_at: new Date(now).toISOString(),
    };
    expect(await suite.store.getTask(scope, task.id)).toEqual(moved);
    const [updated] = (await allEvents(suite.store, scope)).filter((e) => e.type === "task_updated");
    expect(updated?.payload.task).toEqual(moved);
    // The old holder's calls renew nothing and its lease running out changes nothing: the task is bob's.
    await suite.store.heartbeat(as(scope, "alice"), "alice");
    expect(await suite.store.renewLeases(as(scope, "alice"), "alice")).toEqual([]);
    suite.clock.advance(2 * LEASE);
    expect(await suite.second.getTask(scope, task.id)).toEqual(moved);
    await suite.store.addTask(scope, newTask("later"));
    expect(await types(suite, scope)).not.toContain("task_lease_expired");
    expect(await suite.store.getTask(scope, task.id)).toEqual(moved);
    expect((await suite.store.roomInfo(scope)).tasksByStatus).toEqual({
      pending: 1,
      in_progress: 1,
      done: 0,
      blocked: 0,
    });
    expect((await suite.store.summary(scope, "bob", 10)).myTasks).toEqual([moved]);
    expect((await suite.store.summary(scope, "alice", 10)).myTasks).toEqual([]);
    // bob takes a lease on his own work in progress when he wants one.
    const leased = await suite.store.claimTask(as(scope, "bob"), {
      taskId: task.id,
      agentId: "bob",
      leaseMs: LEASE,
    });
    expect(leased).toMatchObject({ owner: "bob", version: moved.version });
    expect(leased.lease_expires_at).toBeDefined();
  });

  test("a lease that ran out before the offer: the offer sees no owner; accepting records the expiry first", async () => {
    const { scope, task, claimed } = await leasedRoom();
    suite.clock.advance(LEASE);
    // Nobody's task now (as reads show it): bob may offer it, and the offer records none as its owner.
    const made = await suite.store.offerHandoff(scope, offer("bob", "carol", [task.id]));
    expect(made.owners).toEqual({ [task.id]: null });
    expect(await types(suite, scope)).not.toContain("task_lease_expired");
    const accepted = await suite.second.acceptHandoff(scope, { id: made.id, agentId: "carol" });
    expect(accepted).toMatchObject({ moved: [task.id], conflicts: [] });
    expect((await types(suite, scope)).slice(-4)).toEqual([
      "handoff_offered",
      "task_lease_expired",
      "task_updated",
      "handoff_accepted",
    ]);
    const events = await allEvents(suite.store, scope);
    const lapsed = events.find((e) => e.type === "task_lease_expired");
    expect(lapsed?.payload).toEqual({
      taskId: task.id,
      previousOwner: "alice",
      task: {
        ...task,
        version: claimed.version + 1,
        updated_at: claimed.lease_expires_at,
      },
    });
    expect(await suite.store.getTask(scope, task.id)).toMatchObject({
      status: "pending",
      owner: "carol",
      version: claimed.version + 2,
    });
    expect((await suite.store.roomInfo(scope)).tasksByStatus).toMatchObject({ pending: 1, in_progress: 0 });
  });

  test("a lease that ran out after the offer: the owner changed, so the task is a conflict, and the expiry is recorded", async () => {
    const { scope, task, claimed } = await leasedRoom();
    const made = await suite.store.offerHandoff(scope, offer("alice", "bob", [task.id]));
    expect(made.owners).toEqual({ [task.id]: "alice" });
    suite.clock.advance(LEASE);
    const accepted = await suite.store.acceptHandoff(scope, { id: made.id, agentId: "bob" });
    expect(accepted).toMatchObject({ moved: [], conflicts: [{ taskId: task.id, owner: null }] });
    expect((await types(suite, scope)).slice(-2)).toEqual(["task_lease_expired", "handoff_accepted"]);
    expect(await suite.store.getTask(scope, task.id)).toMatchObject({
      status: "pending",
      owner: null,
      version: claimed.version + 1,
    });
    expect((await suite.store.roomInfo(scope)).tasksByStatus).toMatchObject({ pending: 1, in_progress: 0 });
  });

  test("a task deleted after the offer is a conflict with no owner; the others move", async () => {
    const scope = await claimedRoom(suite.store);
    const [a, b] = [
      await suite.store.addTask(scope, newTask("a")),
      await suite.store.addTask(scope, newTask("b")),
    ];
    await suite.store.offerHandoff(scope, offer("alice", "bob", [a.id, b.id]));
    await suite.store.deleteTask(scope, { taskId: a.id, agentId: "alice" });
    const accepted = await suite.store.acceptHandoff(scope, { id: "hof-1", agentId: "bob" });
    expect(accepted).toMatchObject({ moved: [b.id], conflicts: [{ taskId: a.id, owner: null }] });
    expect((await suite.store.readPlan(scope)).tasks.map((t) => [t.id, t.owner])).toEqual([[b.id, "bob"]]);
  });

  test("the plan lock holds back only acceptances that move tasks; offers change no task and pass", async () => {
    const { scope, task } = await leasedRoom();
    const note = await suite.store.writeContext(scope, {
      type: "note",
      summary: "read me",
      consuming_agents: [],
      payload: notePayload(),
      author: "alice",
    });
    await suite.store.acquireLock(scope, "plan", "zed", 60_000);
    await suite.store.offerHandoff(scope, offer("alice", "bob", [task.id]));
    await suite.store.offerHandoff(scope, offer("alice", "bob", [], { contextIds: [note.id] }));
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.acceptHandoff(scope, { id: "hof-1", agentId: "bob" }),
      "locked",
      /^Plan is locked by zed until /,
    );
    expect((await suite.store.acceptHandoff(scope, { id: "hof-2", agentId: "bob" })).status).toBe("accepted");
    // The lock's holder itself may accept.
    await suite.store.offerHandoff(scope, offer("alice", "zed", [task.id]));
    expect((await suite.second.acceptHandoff(scope, { id: "hof-3", agentId: "zed" })).moved).toEqual([
      task.id,
    ]);
  });
}
