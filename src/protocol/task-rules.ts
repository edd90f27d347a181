/**
 * The rules of a write on one task, as pure functions: the plan lock, the version the caller expected, claiming a
 * task and renewing its lease. Every driver applies them in the order of a plan write — plan lock, existence,
 * version, then the operation's own — on the task as reads show it (leases.ts effectiveTask). The Redis scripts
 * carry the same rules in Lua (store/redis/lua-plan.ts), and store/redis/lua-plan.test.ts runs both on the same
 * generated cases and requires the same answers.
 */
import { errors } from "./errors.ts";
import { leaseErrors } from "./leases.ts";
import { blockersOf, planErrors } from "./plan-rules.ts";
import type { Task, TaskStatus } from "./records.ts";
import { iso } from "./time.ts";

/** The plan lock as a store keeps it: its holder and its expiry (ms). */
export interface PlanLock {
  holder: string;
  expiresAt: number;
}

/** Refuses a plan write while another agent holds a live plan lock (errors.planLocked). */
export function checkPlanLock(lock: PlanLock | null, agentId: string | undefined, now: number): void {
  if (lock !== null && lock.expiresAt > now && lock.holder !== agentId) {
    throw errors.planLocked(lock.holder, iso(lock.expiresAt));
  }
}

/** Refuses a write that expected another version of the task than its current one. */
export function checkTaskVersion(task: Task, expectedVersion: number | undefined): void {
  if (expectedVersion !== undefined && expectedVersion !== task.version)
    throw errors.taskVersionConflict(task);
}

/**
 * claim_task on `task` as reads show it: "renew" when it is already the caller's work in progress (it is leased
 * again, version unchanged, no event), "claim" when the caller takes it; otherwise the refusal, in this order: a
 * stale expectedVersion, a done task, another agent's task, a task that is not pending, unmet dependencies.
 */
export function claimDecision(
  task: Task,
  input: { agentId: string; expectedVersion?: number },
  statusOf: (id: string) => TaskStatus | undefined,
): "renew" | "claim" {
  checkTaskVersion(task, input.expectedVersion);
  if (task.status === "done") throw leaseErrors.notClaimable(task.id, task.status);
  if (task.owner !== null && task.owner !== input.agentId) {
    throw leaseErrors.owned(task.id, task.owner, task.lease_expires_at);
  }
  if (task.owner === input.agentId && task.status === "in_progress") return "renew";
  if (task.status !== "pending") throw leaseErrors.notClaimable(task.id, task.status);
  const blockers = blockersOf(task, statusOf);
  if (blockers.length > 0) throw planErrors.blocked(task.id, blockers);
  return "claim";
}

/** renew_lease naming a task: refused unless the caller holds its lease. */
export function checkLeaseHolder(task: Task, agentId: string): void {
  if (task.owner !== agentId || task.lease_expires_at === undefined) {
    throw leaseErrors.notLeased(task.id, task.owner);
  }
}
