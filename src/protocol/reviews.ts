/**
 * Peer reviews, the same on every store: a review requested of one named reviewer, decided once and only by that
 * reviewer, and the filter of list_reviews. The SQL stores call these inside their transaction (store/sql/); the
 * Redis scripts carry the same rules in Lua (store/redis/; a decision's refusals are lua-tools.ts review_refused,
 * which lua-people.test.ts runs beside decidedReview on generated cases).
 */
import type { Review, ReviewStatus } from "./records.ts";
import { iso } from "./time.ts";
import { toolErrors } from "./tool-errors.ts";

export interface ReviewFilterFields {
  reviewer?: string;
  requester?: string;
  status?: ReviewStatus;
  taskId?: string;
  contextId?: string;
}

/** Whether a review passes a filter: every given field must match. */
export function reviewMatches(review: Review, filter: ReviewFilterFields): boolean {
  return (
    (filter.reviewer === undefined || review.reviewer === filter.reviewer) &&
    (filter.requester === undefined || review.requester === filter.requester) &&
    (filter.status === undefined || review.status === filter.status) &&
    (filter.taskId === undefined || review.task_id === filter.taskId) &&
    (filter.contextId === undefined || review.context_id === filter.contextId)
  );
}

/** What a review request is made of (store/types.ts NewReview). */
export interface ReviewInput {
  requester: string;
  reviewer: string;
  subject: string;
  details: string;
  taskId?: string;
  contextId?: string;
}

/** A reviewer's decision (store/types.ts ReviewDecision). */
export interface ReviewVerdictFields {
  agentId: string;
  status: Exclude<ReviewStatus, "pending">;
  comment?: string;
}

/** Review rev-<n>, pending; `contextVersion` is the reviewed entry's version when it names one. */
export const newReview = (
  n: number,
  input: ReviewInput,
  contextVersion: string | null,
  t: number,
): Review => ({
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
export function decidedReview(review: Review, input: ReviewVerdictFields, t: number): Review {
  if (review.reviewer !== input.agentId) throw toolErrors.notReviewer(review.id, review.reviewer);
  if (review.status !== "pending") {
    throw toolErrors.reviewDecided(review.id, review.status, review.reviewer, review.decided_at ?? "");
  }
  return { ...review, status: input.status, comment: input.comment ?? null, decided_at: iso(t) };
}
