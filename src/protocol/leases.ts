/**
 * Task leases (claim_task): the rules every driver applies, as pure functions the SQL bodies call (store/sql/) and
 * the Redis scripts repeat in Lua (store/redis/lua-plan.ts; store/redis/lua-plan.test.ts runs both on the same
 * generated cases and requires the same answers).
 *
 * - claim_task takes a pending task whose dependencies are all done, for the caller, with a lease: the task is
 *   in_progress, owned by the caller, version + 1, and carries `lease_expires_at`.
 * - Any successful call by the owner that names it in that room (heartbeat included) renews its live leases in
 *   the same atomic step: expiry = now + the lease's length. Renewing changes neither version nor updated_at.
 * - A lease whose expiry is not after now has run out. Every read shows the task as it will be once that is
 *   recorded (effectiveTask): pending, no owner, version + 1, updated_at = the expiry. The next successful write
 *   that touches the plan records it, with the event `task_lease_expired` {taskId, previousOwner, task}.
 * - The lease ends when the task leaves the lease holder (another owner or none) or becomes done or pending.
 */
import { RoomError } from "./errors.ts";
import type { Task, TaskStatus } from "./records.ts";

/** True when the task carries a lease that has run out at `now` (ms). */
export function leaseExpired(task: Task, now: number): boolean {
  return task.lease_expires_at !== undefined && Date.parse(task.lease_expires_at) <= now;
}

/** The task as every read shows it at `now`: a lease that ran out returns it to pending with no owner. */
export function effectiveTask(task: Task, now: number): Task {
  if (!leaseExpired(task, now)) return task;
  const { lease_expires_at: expiredAt, ...rest } = task;
  return {
    ...rest,
    status: "pending",
    owner: null,
    version: task.version + 1,
    updated_at: expiredAt as string,
  };
}

/** Whether an update keeps the lease of `before`: same owner, and still in_progress or blocked. */
export function keepsLease(before: Pick<Task, "owner">, owner: string | null, status: TaskStatus): boolean {
  return owner === before.owner && (status === "in_progress" || status === "blocked");
}

export const leaseErrors = {
  /** The task belongs to another agent (with its lease's expiry when it is leased). */
  owned: (id: string, owner: string, leaseUntil?: string) =>
    new RoomError(
      "conflict",
      `Task ${id} is owned by ${owner}${leaseUntil ? ` (lease until ${leaseUntil})` : ""}; pick another task`,
    ),
  /** Only pending tasks can be claimed: "Task t3 is done", "… is blocked", "… is in_progress". */
  notClaimable: (id: string, status: string) =>
    new RoomError("conflict", `Task ${id} is ${status}; only pending tasks can be claimed`),
  /** renew_lease named a task the caller holds no lease on. */
  notLeased: (id: string, owner: string | null) =>
    new RoomError(
      "conflict",
      `Task ${id} is not leased to you (${owner === null ? "no owner" : `owner: ${owner}`}); claim it with claim_task`,
    ),
};

/** renew_lease naming a task (as reads show it: a lease that ran out is none): refused unless the caller holds it. */
export function checkLeaseHolder(
  task: Pick<Task, "id" | "owner" | "lease_expires_at">,
  agentId: string,
): void {
  if (task.owner !== agentId || task.lease_expires_at === undefined) {
    throw leaseErrors.notLeased(task.id, task.owner);
  }
}
