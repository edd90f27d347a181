/** Review tools (4): peer review between agents — one named reviewer decides, nobody else. */
import { z } from "zod";
import { FIELDS } from "../../protocol/record-fields.ts";
import { REVIEW_STATUSES } from "../../protocol/records.ts";
import { toolErrors } from "../../protocol/tool-errors.ts";
import { actingAgentId, contextId, otherAgentId, recordId, roomId, taskId } from "../schemas.ts";
import { defineTool, type ExampleRoom } from "../tool.ts";

const reviewId = recordId("review").describe("Review id, as returned by request_review (e.g. rev-1).");
const comment = FIELDS.reviewComment;

export const reviewShape = z.object({
  id: z.string(),
  status: z.enum(REVIEW_STATUSES),
  requester: z.string(),
  reviewer: z.string(),
  subject: z.string(),
  details: z.string(),
  task_id: z.string().nullable(),
  context_id: z.string().nullable(),
  context_version: z.string().nullable(),
  comment: z.string().nullable(),
  created_at: z.string().describe("ISO 8601 time"),
  decided_at: z.string().nullable().describe("ISO 8601 time"),
});

const DECIDE_ERRORS = [
  toolErrors.reviewNotFound("<id>").message,
  toolErrors.notReviewer("<id>", "<reviewer>").message,
  toolErrors.reviewDecided("<id>", "<status>", "<reviewer>", "<time>").message,
];

/** A review requested by bob of alice (the example agent), so alice can decide it. */
const reviewForAlice = (room: ExampleRoom) =>
  room.call("request_review", { reviewer: "alice", subject: "The login endpoint", agentId: "bob" });

/** What approve and reject both take. */
const deciding = {
  roomId,
  reviewId,
  agentId: actingAgentId.describe("Your agent id: you must be the review's reviewer."),
};

export const reviewTools = [
  defineTool({
    name: "request_review",
    title: "Ask an agent for a review",
    description:
      "Ask another agent to review your work: a task, a context entry (its current version is recorded) or anything described in subject/details. Only the named reviewer can approve or reject it. The reviewer gets a review_requested event.",
    returns: "Review (status pending)",
    input: z.strictObject({
      roomId,
      reviewer: otherAgentId.describe("The agent who decides (not you)."),
      subject: FIELDS.reviewSubject.describe("What to review, in a line, e.g. 'POST /login handler'."),
      details: FIELDS.reviewDetails.optional().describe("What to look at; default empty."),
      taskId: taskId.optional().describe("The task under review, if any."),
      contextId: contextId.optional().describe("The context entry under review, if any."),
      agentId: actingAgentId,
    }),
    output: reviewShape,
    effect: "write",
    acting: ["agentId"],
    addressees: ["reviewer"],
    events: ["review_requested"],
    errors: [toolErrors.selfReview().message, "Task not found: <id>", "Context entry not found: <id>"],
    example: async () => ({ reviewer: "bob", subject: "The login endpoint", agentId: "alice" }),
    handler: (a, call) => {
      if (a.reviewer === a.agentId) throw toolErrors.selfReview();
      return call.store.requestReview(call.scope, {
        requester: a.agentId,
        reviewer: a.reviewer,
        subject: a.subject,
        details: a.details ?? "",
        taskId: a.taskId,
        contextId: a.contextId,
      });
    },
  }),
  defineTool({
    name: "approve",
    title: "Approve a review",
    description:
      "Approve a peer review you were asked for (request_review; ids rev-…; you must be its named reviewer), optionally with a comment. A review is decided once. The requester gets a review_decided event. Not for approvals (apr-…): only people decide those.",
    returns: "Review (status approved)",
    input: z.strictObject({
      ...deciding,
      comment: comment.optional().describe("What you checked or suggest (optional)."),
    }),
    output: reviewShape,
    effect: "write",
    acting: ["agentId"],
    events: ["review_decided"],
    errors: DECIDE_ERRORS,
    example: async (room) => ({ reviewId: (await reviewForAlice(room)).id, agentId: "alice" }),
    handler: (a, call) =>
      call.store.decideReview(call.scope, {
        reviewId: a.reviewId,
        agentId: a.agentId,
        status: "approved",
        comment: a.comment,
      }),
  }),
  defineTool({
    name: "reject",
    title: "Reject a review",
    description:
      "Reject a peer review you were asked for (request_review; ids rev-…; you must be its named reviewer), with a comment saying what to change. A review is decided once: the requester revises and asks again. The requester gets a review_decided event. Not for approvals (apr-…): only people decide those.",
    returns: "Review (status rejected)",
    input: z.strictObject({
      ...deciding,
      comment: comment.describe("What must change before you would approve."),
    }),
    output: reviewShape,
    effect: "write",
    acting: ["agentId"],
    events: ["review_decided"],
    errors: DECIDE_ERRORS,
    example: async (room) => ({
      reviewId: (await reviewForAlice(room)).id,
      agentId: "alice",
      comment: "Validate the password length first.",
    }),
    handler: (a, call) =>
      call.store.decideReview(call.scope, {
        reviewId: a.reviewId,
        agentId: a.agentId,
        status: "rejected",
        comment: a.comment,
      }),
  }),
  defineTool({
    name: "list_reviews",
    title: "List reviews",
    description:
      "Reviews of the room in request order, optionally only those of one reviewer or requester, one status (pending, approved, rejected), one task or one context entry. E.g. reviewer=<you>, status=pending: what waits for you.",
    returns: "Review[], in request order",
    input: z.strictObject({
      roomId,
      reviewer: otherAgentId.optional().describe("Only reviews this agent was asked for."),
      requester: otherAgentId.optional().describe("Only reviews this agent asked for."),
      status: z.enum(REVIEW_STATUSES).optional().describe("Only reviews in this status."),
      taskId: taskId.optional().describe("Only reviews of this task."),
      contextId: contextId.optional().describe("Only reviews of this context entry."),
    }),
    effect: "read",
    filters: ["reviewer", "requester"],
    example: async (room) => {
      await reviewForAlice(room);
      return { reviewer: "alice", status: "pending" };
    },
    handler: (a, call) =>
      call.store.listReviews(call.scope, {
        reviewer: a.reviewer,
        requester: a.requester,
        status: a.status,
        taskId: a.taskId,
        contextId: a.contextId,
      }),
  }),
];
