/**
 * Records of the SQL drivers (tasks, context entries, reviews, approvals, verdicts, handoffs, the driver): each
 * record is built, and each change of a stored one is refused or made, once, from plain values; each driver only
 * reads, writes and appends around it.
 * The statement-running bodies stay per driver for the reason given in sql-rows.ts (sync bun:sqlite, async
 * PostgreSQL).
 */

import { errors } from "../protocol/errors.ts";
import { leaseErrors } from "../protocol/leases.ts";
import { validatePayload } from "../protocol/payloads.ts";
import {
  ANY_AGENT,
  type Approval,
  type DriverReason,
  type DriverState,
  type Handoff,
  peopleErrors,
  type Verdict,
} from "../protocol/people.ts";
import { BROADCAST, type ContextEntry, type Review, type Task } from "../protocol/records.ts";
import { iso } from "../protocol/time.ts";
import { toolErrors } from "../protocol/tool-errors.ts";
import type {
  ApprovalDecisionInput,
  NewApproval,
  NewHandoff,
  NewVerdict,
  TakeDriver,
} from "./people-types.ts";
import type {
  ContextUpdate,
  NewContext,
  NewReview,
  NewTask,
  ReviewDecision,
  TaskClaim,
  TaskUpdate,
} from "./types.ts";

/** Task task-<n>, pending and unowned, with its (deduplicated) dependencies. */
export const newTask = (n: number, input: NewTask, deps: string[], t: number): Task => ({
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

/** The fields of a TaskUpdate that count as changes (and are echoed in the task_updated event). */
const CHANGE_FIELDS = ["status", "owner", "title", "description", "depends_on", "priority", "note"] as const;

/** The task_updated event's `changes`: the fields supplied, with depends_on as deduplicated. */
export function taskChanges(input: TaskUpdate, deps: string[]): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const field of CHANGE_FIELDS) if (input[field] !== undefined) changes[field] = input[field];
  if (input.depends_on !== undefined) changes.depends_on = deps;
  return changes;
}

/**
 * The next version of `previous` at t. `leaseMs` is the lease it keeps (null: the lease ends); the holder's own
 * update renews it in the same step (the result shows the new expiry).
 */
export function revisedTask(
  previous: Task,
  input: TaskUpdate,
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

/** Refuses a claim of `task` (as reads show it) on a stale expectedVersion, a done task, or another's task. */
export function checkTaskClaim(task: Task, input: TaskClaim): void {
  if (input.expectedVersion !== undefined && input.expectedVersion !== task.version) {
    throw errors.taskVersionConflict(task);
  }
  if (task.status === "done") throw leaseErrors.notClaimable(task.id, task.status);
  if (task.owner !== null && task.owner !== input.agentId) {
    throw leaseErrors.owned(task.id, task.owner, task.lease_expires_at);
  }
}

/** "1.N" → N (the minor number counts updates: 1.9 → 1.10, not a decimal). */
const minor = (version: string): number => Number(version.slice(version.indexOf(".") + 1));

/** Context events go to the single consumer, or to everyone when there are several; none when there is none. */
export const addressee = (consumers: string[]): string | null =>
  consumers.length === 0 ? null : consumers.length === 1 ? (consumers[0] ?? BROADCAST) : BROADCAST;

/** Context entry ctx-<n> at version 1.0. */
export const newContextEntry = (n: number, input: NewContext, t: number): ContextEntry => ({
  id: `ctx-${n}`,
  type: input.type,
  author: input.author,
  timestamp: iso(t),
  summary: input.summary,
  consuming_agents: [...input.consuming_agents],
  payload: input.payload,
  version: "1.0",
});

/** The next version of `previous`, or the refusal: a stale expectedVersion, or a payload its type does not take. */
export function revisedContextEntry(previous: ContextEntry, input: ContextUpdate, t: number): ContextEntry {
  if (input.expectedVersion !== undefined && input.expectedVersion !== previous.version) {
    throw errors.contextVersionConflict(previous);
  }
  if (input.payload !== undefined) validatePayload(previous.type, input.payload);
  return {
    ...previous,
    author: input.author,
    timestamp: iso(t),
    summary: input.summary ?? previous.summary,
    consuming_agents: input.consuming_agents ? [...input.consuming_agents] : previous.consuming_agents,
    payload: input.payload === undefined ? previous.payload : input.payload,
    version: `1.${minor(previous.version) + 1}`,
  };
}

/** Approval apr-<n>, pending until `input.expiresInMs` after t. */
export const newApproval = (n: number, input: NewApproval, t: number): Approval => ({
  id: `apr-${n}`,
  action: input.action,
  details: input.details,
  requestedBy: input.requestedBy,
  status: "pending",
  created_at: iso(t),
  expires_at: iso(t + input.expiresInMs),
});

/** The decided record of `current` (as read at t, effectiveApproval), or the refusal: expired or already decided. */
export function decidedApproval(current: Approval, input: ApprovalDecisionInput, t: number): Approval {
  if (current.status === "expired") throw peopleErrors.approvalExpired(current);
  if (current.status !== "pending") throw peopleErrors.approvalDecided(current);
  return {
    ...current,
    status: input.decision === "approve" ? "approved" : "rejected",
    decidedBy: input.decidedBy,
    ...(input.note !== undefined ? { note: input.note } : {}),
    decided_at: iso(t),
  };
}

export const newVerdict = (n: number, input: NewVerdict, t: number): Verdict => ({
  id: `vrd-${n}`,
  verdict: input.verdict,
  summary: input.summary,
  details: input.details,
  ref: input.ref,
  by: input.by,
  created_at: iso(t),
});

/** Handoff hof-<n> as offered, with each offered task's owner at the offer. */
export function newHandoff(
  n: number,
  input: NewHandoff,
  owners: Record<string, string | null>,
  t: number,
): Handoff {
  const at = iso(t);
  return {
    id: `hof-${n}`,
    from: input.from,
    to: input.to,
    taskIds: input.taskIds,
    contextIds: input.contextIds,
    note: input.note,
    status: "offered",
    offeredBy: input.offeredBy,
    owners,
    created_at: at,
    updated_at: at,
  };
}

/** Review rev-<n>, pending; `contextVersion` is the reviewed entry's version when it names one. */
export const newReview = (n: number, input: NewReview, contextVersion: string | null, t: number): Review => ({
  id: `rev-${n}`,
  status: "pending",
  requester: input.requester,
  reviewer: input.reviewer,
  subject: input.subject,
  details: input.details,
  task_id: input.taskId ?? null,
  context_id: input.contextId ?? null,
  context_version: contextVersion,
  comment: null,
  created_at: iso(t),
  decided_at: null,
});

/** The decided record of `review`, or the refusal: not its reviewer, or already decided. */
export function decidedReview(review: Review, input: ReviewDecision, t: number): Review {
  if (review.reviewer !== input.agentId) throw toolErrors.notReviewer(review.id, review.reviewer);
  if (review.status !== "pending") {
    throw toolErrors.reviewDecided(review.id, review.status, review.reviewer, review.decided_at ?? "");
  }
  return { ...review, status: input.status, comment: input.comment ?? null, decided_at: iso(t) };
}

/**
 * Why `input` takes the wheel from `current` (whose holder is not input.holder), or the refusal: an agent never
 * takes it from anyone, a person takes it from an agent, and from another person only with force.
 */
export function driverTakeReason(current: DriverState, input: TakeDriver): DriverReason {
  if (current.holder === null) return input.kind === "agent" ? "claimed" : "taken";
  if (input.kind === "agent") throw peopleErrors.driverTaken(current);
  if (current.holderKind === "agent") return "taken_from_agent";
  if (input.force === true) return "forced";
  throw peopleErrors.driverHeld(current);
}

/** Refuses an accept by an agent the offer is not for, or by its `from` or `offeredBy`. */
export function checkHandoffAccept(handoff: Handoff, agentId: string): void {
  if (handoff.to !== ANY_AGENT && handoff.to !== agentId)
    throw peopleErrors.handoffNotForYou(handoff, agentId);
  if (handoff.from === agentId || handoff.offeredBy === agentId)
    throw peopleErrors.handoffOwnOffer(handoff.id);
}

/** Refuses a decline of an offer made to any agent, or by an agent the offer is not for. */
export function checkHandoffDecline(handoff: Handoff, agentId: string): void {
  if (handoff.to === ANY_AGENT) throw peopleErrors.handoffToAny(handoff.id);
  if (handoff.to !== agentId) throw peopleErrors.handoffNotForYou(handoff, agentId);
}

/** Refuses a cancel by anyone but the offer's `from` or `offeredBy`. */
export function checkHandoffCancel(handoff: Handoff, by: string): void {
  if (by !== handoff.from && by !== handoff.offeredBy) throw peopleErrors.handoffNotOfferer(handoff);
}
