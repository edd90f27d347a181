/** Filtering reviews (list_reviews), the same on every driver. */
import type { Review, ReviewStatus } from "./records.ts";

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
