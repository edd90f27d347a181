/**
 * The rules of people's records, as pure functions every store applies: approvals decided once by a person,
 * handoffs offered, accepted, declined or cancelled by whom they concern, verdicts, the wheel (who may take it and
 * who may act with it), and where a mailbox resumes. The SQL stores call these inside their transaction
 * (store/sql/); the Redis scripts repeat the refusals in Lua (store/redis/lua-people-helpers.ts), and
 * store/redis/lua-people.test.ts runs both on the same generated cases and requires the same answers. The records
 * and refusals themselves are people.ts.
 */
import {
  ANY_AGENT,
  type Approval,
  type ApprovalDecision,
  type DriverReason,
  type DriverState,
  type Handoff,
  type MailboxType,
  peopleErrors,
  type Verdict,
  type VerdictValue,
} from "./people.ts";
import type { JsonObject } from "./records.ts";
import { iso } from "./time.ts";

/** What an approval request is made of (store/people-types.ts NewApproval). */
export interface ApprovalInput {
  requestedBy: string;
  action: string;
  details: JsonObject;
  /** The people who alone may decide it (`human:<id>`); absent: any approver of the room. */
  approvers?: string[];
  /** Lifetime in ms from now. */
  expiresInMs: number;
}

/** A person's decision (store/people-types.ts ApprovalDecisionInput). */
export interface ApprovalDecisionFields {
  decidedBy: string;
  decision: ApprovalDecision;
  note?: string;
}

/** Approval apr-<n>, pending until `input.expiresInMs` after t. */
export const newApproval = (n: number, input: ApprovalInput, t: number): Approval => ({
  id: `apr-${n}`,
  action: input.action,
  details: input.details,
  requestedBy: input.requestedBy,
  ...(input.approvers !== undefined ? { approvers: input.approvers } : {}),
  status: "pending",
  created_at: iso(t),
  expires_at: iso(t + input.expiresInMs),
});

/** The decided record of `current` (as read at t, effectiveApproval), or the refusal: expired or already decided. */
export function decidedApproval(current: Approval, input: ApprovalDecisionFields, t: number): Approval {
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

/** What a verdict is made of (store/people-types.ts NewVerdict). */
export interface VerdictInput {
  by: string;
  verdict: VerdictValue;
  summary: string;
  details: string;
  ref: string | null;
}

/** Verdict vrd-<n>, as recorded at t. */
export const newVerdict = (n: number, input: VerdictInput, t: number): Verdict => ({
  id: `vrd-${n}`,
  verdict: input.verdict,
  summary: input.summary,
  details: input.details,
  ref: input.ref,
  by: input.by,
  created_at: iso(t),
});

/** What a handoff offer is made of (store/people-types.ts NewHandoff). */
export interface HandoffInput {
  from: string;
  to: string;
  taskIds: string[];
  contextIds: string[];
  note: string;
  offeredBy: string;
  /** True when `from` is an agent: it hands on only its own or unowned tasks. */
  agentOffer: boolean;
}

/** Refuses an agent's offer of a task someone else owns (`owner` as reads show it); a person offers any task. */
export function checkHandoffTask(
  input: Pick<HandoffInput, "from" | "agentOffer">,
  taskId: string,
  owner: string | null,
) {
  if (input.agentOffer && owner !== null && owner !== input.from)
    throw peopleErrors.taskNotYours(taskId, owner);
}

/** Handoff hof-<n> as offered at t, with each offered task's owner at the offer. */
export function newHandoff(
  n: number,
  input: HandoffInput,
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

/** Refuses a decision on a handoff that is no longer offered, naming who closed it. */
export function checkHandoffOpen(handoff: Handoff): void {
  if (handoff.status !== "offered") throw peopleErrors.handoffClosed(handoff);
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

/** What take_wheel / claim_driver asks (store/people-types.ts TakeDriver). */
export interface DriverTake {
  holder: string;
  kind: "human" | "agent";
  force?: boolean;
}

/**
 * Why `input` takes the wheel from `current` (whose holder is not input.holder), or the refusal: an agent never
 * takes it from anyone, a person takes it from an agent, and from another person only with force.
 */
export function driverTakeReason(current: DriverState, input: DriverTake): DriverReason {
  if (current.holder === null) return input.kind === "agent" ? "claimed" : "taken";
  if (input.kind === "agent") throw peopleErrors.driverTaken(current);
  if (current.holderKind === "agent") return "taken_from_agent";
  if (input.force === true) return "forced";
  throw peopleErrors.driverHeld(current);
}

/**
 * Refuses a driver-only action (`action`, as the refusal names it) by `by` carrying `epoch`: stale first — whoever
 * sent it, an action carrying an epoch that is no longer current never lands — then anyone but the holder.
 */
export function checkDriverAction(current: DriverState, by: string, epoch: number, action: string): void {
  if (epoch !== current.epoch) throw peopleErrors.staleEpoch(epoch, current);
  if (current.holder !== by) throw peopleErrors.notDriver(action, current);
}

/**
 * The seq after which an agent's mailbox of `kind` resumes: after its mark (the last one delivered), after a
 * fork's copied prefix (meant for the source's agents), and for people's messages also after the agent's cursor
 * (a message it consumed as an event counts as delivered).
 */
export function mailAfter(kind: MailboxType, mark: number, forkSeq: number, cursor: number): number {
  const after = Math.max(mark, forkSeq);
  return kind === "human_message" ? Math.max(after, cursor) : after;
}
