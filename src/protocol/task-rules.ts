/**
 * Tasks as every store builds and changes them, as pure functions: a new task, the next version of one, the
 * refusals of claim_task, and the task that leaves its holder (a handoff, leave_room). The SQL stores call these
 * inside their transaction (store/sql/); the Redis scripts repeat the refusals in Lua (store/redis/lua-plan.ts), and
 * store/redis/lua-plan.test.ts runs both on the same generated rooms and requires the same answers. The plan's
 * dependency rules are plan-rules.ts, the lease rules leases.ts, the plan lock locks.ts.
 */
import { errors } from "./errors.ts";
import { leaseErrors } from "./leases.ts";
import type { Task, TaskStatus } from "./records.ts";
import { iso } from "./time.ts";

/** What a new task is made of (store/types.ts NewTask). */
export interface TaskInput {
  title: string;
  description: string;
  priority: number | null;
}

/** What an update may change (store/types.ts TaskUpdate): fields left undefined stay as they are. */
export interface TaskChange {
  status?: TaskStatus;
  /** null unassigns. */
  owner?: string | null;
  title?: string;
  description?: string;
  depends_on?: string[];
  /** null clears it. */
  priority?: number | null;
  /** Kept in the task_updated event only. */
  note?: string;
  /** The acting agent: its own update renews its lease. */
  agentId?: string;
}

/** Task task-<n>, pending and unowned, with its (deduplicated) dependencies. */
export const newTask = (n: number, input: TaskInput, deps: string[], t: number): Task => ({
  id: `task-${n}`,
  title: input.title,
  description: input.description,
  status: "pending",
  owner: null,
  depends_on: deps,
  priority: input.priority,
  version: 1,
  created_at: iso(t),
  updated_at: iso(t),
});

/** The fields of a TaskChange that count as changes (and are echoed in the task_updated event). */
const CHANGE_FIELDS = ["status", "owner", "title", "description", "depends_on", "priority", "note"] as const;

/** The task_updated event's `changes`: the fields supplied, with depends_on as deduplicated. */
export function taskChanges(input: TaskChange, deps: string[]): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const field of CHANGE_FIELDS) if (input[field] !== undefined) changes[field] = input[field];
  if (input.depends_on !== undefined) changes.depends_on = deps;
  return changes;
}

/** Refuses a change made against a version of the task that is no longer current (expectedVersion). */
export function checkTaskVersion(task: Task, expectedVersion: number | undefined): void {
  if (expectedVersion !== undefined && expectedVersion !== task.version)
    throw errors.taskVersionConflict(task);
}

/**
 * The next version of `previous` at t. `leaseMs` is the lease it keeps (null: the lease ends); the holder's own
 * update renews it in the same step (the result shows the new expiry).
 */
export function revisedTask(
  previous: Task,
  input: TaskChange,
  deps: string[],
  leaseMs: number | null,
  t: number,
): Task {
  const { lease_expires_at: _lease, ...unleased } = previous;
  const owner = input.owner !== undefined ? input.owner : previous.owner;
  const renewed = leaseMs !== null && input.agentId === owner ? { lease_expires_at: iso(t + leaseMs) } : {};
  return {
    ...(leaseMs === null ? unleased : previous),
    status: input.status ?? previous.status,
    ...(input.owner !== undefined && { owner: input.owner }),
    ...(input.title !== undefined && { title: input.title }),
    ...(input.description !== undefined && { description: input.description }),
    depends_on: deps,
    ...(input.priority !== undefined && { priority: input.priority }),
    version: previous.version + 1,
    updated_at: iso(t),
    ...renewed,
  };
}

/**
 * What claim_task does with `task` (as reads show it) for the agent, its refusals thrown in this order: a stale
 * expectedVersion, a done task, another's task, any other status but pending. "renew": the caller's own work in
 * progress is leased again (no new version, no event); "take": it becomes the caller's, once its dependencies
 * are done (plan-rules.ts checkStatus to in_progress).
 */
export function taskClaim(
  task: Task,
  claim: { agentId: string; expectedVersion?: number },
): "renew" | "take" {
  checkTaskVersion(task, claim.expectedVersion);
  if (task.status === "done") throw leaseErrors.notClaimable(task.id, task.status);
  if (task.owner !== null && task.owner !== claim.agentId) {
    throw leaseErrors.owned(task.id, task.owner, task.lease_expires_at);
  }
  if (task.owner === claim.agentId && task.status === "in_progress") return "renew";
  if (task.status !== "pending") throw leaseErrors.notClaimable(task.id, task.status);
  return "take";
}

/** The task claim_task takes at t: in progress, the agent's, version + 1, leased until `leaseExpiresAt`. */
export const claimedTask = (task: Task, agentId: string, leaseExpiresAt: string, t: number): Task => ({
  ...task,
  status: "in_progress",
  owner: agentId,
  version: task.version + 1,
  updated_at: iso(t),
  lease_expires_at: leaseExpiresAt,
});

/** A task handed to `owner` at t (an accepted handoff): version + 1; its lease ends, as it leaves its holder. */
export function handedTask(task: Task, owner: string, t: number): Task {
  const { lease_expires_at: _lease, ...previous } = task;
  return { ...previous, owner, version: previous.version + 1, updated_at: iso(t) };
}

/** A leased task its holder lets go at t (leave_room): pending, unowned, version + 1, without its lease. */
export function releasedTask(task: Task, t: number): Task {
  const { lease_expires_at: _lease, ...rest } = task;
  return { ...rest, status: "pending", owner: null, version: rest.version + 1, updated_at: iso(t) };
}
