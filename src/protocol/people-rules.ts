/**
 * The rules of people's operations, as pure functions every driver applies inside its atomic step: taking and
 * acting on the wheel, deciding approvals and reviews, offering and closing handoffs. Each refuses with the
 * RoomError every driver answers with (people.ts peopleErrors, tool-errors.ts). The Redis scripts carry the same
 * rules in Lua (store/redis/lua-people-helpers.ts, lua-tools.ts), and store/redis/lua-people.test.ts runs both on
 * the same generated cases and requires the same answers.
 */
import {
  ANY_AGENT,
  type Approval,
  type DriverReason,
  type DriverState,
  type Handoff,
  peopleErrors,
} from "./people.ts";
import type { Review } from "./records.ts";
import { toolErrors } from "./tool-errors.ts";

/**
 * Why a taker of `input.kind` takes the wheel from `current` (whose holder is not the taker), or the refusal: an
 * agent never takes it from anyone, a person takes it from an agent, and from another person only with force.
 */
export function driverTakeReason(
  current: DriverState,
  input: { kind: "human" | "agent"; force?: boolean },
): DriverReason {
  if (current.holder === null) return input.kind === "agent" ? "claimed" : "taken";
  if (input.kind === "agent") throw peopleErrors.driverTaken(current);
  if (current.holderKind === "agent") return "taken_from_agent";
  if (input.force === true) return "forced";
  throw peopleErrors.driverHeld(current);
}

/**
 * Refuses releasing the wheel, steering or interrupting (`action`) at an epoch other than the current one
 * (checked first), or by anyone but the holder.
 */
export function checkDriverAct(current: DriverState, by: string, epoch: number, action: string): void {
  if (epoch !== current.epoch) throw peopleErrors.staleEpoch(epoch, current);
  if (current.holder !== by) throw peopleErrors.notDriver(action, current);
}

/** Refuses a decision on an approval (as read now, people.ts effectiveApproval) that expired or was decided. */
export function checkApprovalOpen(approval: Approval): void {
  if (approval.status === "expired") throw peopleErrors.approvalExpired(approval);
  if (approval.status !== "pending") throw peopleErrors.approvalDecided(approval);
}

/** Refuses a review decision by anyone but its reviewer, or on a review decided already. */
export function checkReviewDecision(review: Review, agentId: string): void {
  if (review.reviewer !== agentId) throw toolErrors.notReviewer(review.id, review.reviewer);
  if (review.status !== "pending") {
    throw toolErrors.reviewDecided(review.id, review.status, review.reviewer, review.decided_at ?? "");
  }
}

/** Refuses offering another agent's task when an agent (`from`) offers: it hands on only its own or unowned ones. */
export function checkHandoffOffer(
  taskId: string,
  owner: string | null,
  from: string,
  agentOffer: boolean,
): void {
  if (agentOffer && owner !== null && owner !== from) throw peopleErrors.taskNotYours(taskId, owner);
}

/** Refuses acting on a handoff that is no longer offered. */
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
