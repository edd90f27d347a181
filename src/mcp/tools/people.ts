/**
 * People tools for agents (docs/people.md#who-can-do-what): the driver, approvals (asked for, never decided: no tool
 * can decide one, whatever key calls it), handoffs between agents, and verdicts (advice only).
 */
import { z } from "zod";
import { RoomError } from "../../protocol/errors.ts";
import { APPROVAL_STATUSES, HANDOFF_STATUSES, PEOPLE_LIMITS, VERDICTS } from "../../protocol/people.ts";
import { FIELDS } from "../../protocol/record-fields.ts";
import { approversSchema } from "../../protocol/role-schemas.ts";
import { approverNames } from "../../protocol/roles.ts";
import { actingAgentId, contextId, otherAgentId, recordId, roomId, taskId } from "../schemas.ts";
import { defineTool, type RoomToolCall } from "../tool.ts";

const iso = z.string().describe("ISO 8601 time");

export const driverShape = z.object({
  holder: z.string().nullable(),
  holderKind: z.enum(["human", "agent"]).nullable(),
  epoch: z.number().int(),
  since: iso.nullable(),
});

export const approvalShape = z.object({
  id: z.string(),
  action: z.string(),
  details: z.record(z.string(), z.unknown()),
  requestedBy: z.string(),
  approvers: z.array(z.string()).optional(),
  status: z.enum(APPROVAL_STATUSES),
  decidedBy: z.string().optional(),
  note: z.string().optional(),
  created_at: iso,
  decided_at: iso.optional(),
  expires_at: iso,
});

export const handoffShape = z.object({
  id: z.string(),
  from: z.string(),
  to: z.string(),
  taskIds: z.array(z.string()),
  contextIds: z.array(z.string()),
  note: z.string(),
  status: z.enum(HANDOFF_STATUSES),
  offeredBy: z.string(),
  owners: z.record(z.string(), z.string().nullable()),
  created_at: iso,
  updated_at: iso,
  closedBy: z.string().optional(),
  reason: z.string().optional(),
  moved: z.array(z.string()).optional(),
  conflicts: z.array(z.object({ taskId: z.string(), owner: z.string().nullable() })).optional(),
});

const verdictShape = z.object({
  id: z.string(),
  verdict: z.enum(VERDICTS),
  summary: z.string(),
  details: z.string(),
  ref: z.string().nullable(),
  by: z.string(),
  created_at: iso,
});

const approvalId = recordId("approval").describe(
  "Approval id, as request_approval returned it (e.g. apr-3).",
);
const handoffId = recordId("handoff").describe("Handoff id, as offer_handoff returned it (e.g. hof-2).");
const epoch = z
  .number()
  .int()
  .min(0)
  .describe("The driver epoch you hold, as claim_driver or get_driver showed it.");

const HELD = "The room is driven by <holder> (epoch <n>): claim_driver succeeds only when nobody drives";
const STALE = "Stale driver epoch <n>; the driver is now <holder> at epoch <m>";
const NOT_DRIVER = "Only the driver (<holder>) can release the wheel";
const HANDOFF_CLOSED = "Handoff <id> was <accepted|declined|cancelled> by <who>";

/** How long an asked approval stays open, in seconds (request_approval and the compact `ask`). */
export const approvalExpiry = z
  .number()
  .int()
  .min(PEOPLE_LIMITS.expiresMinSeconds)
  .max(PEOPLE_LIMITS.expiresMaxSeconds);

/** What request_approval and the compact `ask` take to ask for an approval. */
interface ApprovalAsk {
  action: string;
  details?: Record<string, unknown>;
  approvers?: string[];
  expiresInSeconds?: number;
}

/** The approval write of request_approval and the compact `ask`: the arguments as the store takes them. */
export function requestApproval(call: RoomToolCall, agentId: string, a: ApprovalAsk) {
  return call.store.requestApproval(call.scope, {
    requestedBy: agentId,
    action: a.action,
    details: a.details ?? {},
    ...(a.approvers !== undefined ? { approvers: approverNames(a.approvers) } : {}),
    expiresInMs: (a.expiresInSeconds ?? PEOPLE_LIMITS.expiresDefaultSeconds) * 1000,
  });
}

/** What offer_handoff and the board's hand_over take: an offer (to, tasks, context, note) or a cancel. */
interface HandoffAsk {
  to?: string;
  taskIds?: string[];
  contextIds?: string[];
  note?: string;
  cancel?: string;
}

/**
 * Makes an offer from `by`, or withdraws the offer `cancel` names: an agent offers its own or unowned tasks
 * (agentOffer), a person any task on behalf of the room.
 */
export function offerOrCancel(
  call: RoomToolCall,
  a: HandoffAsk,
  { by, agentOffer }: { by: string; agentOffer: boolean },
) {
  if (a.cancel !== undefined) {
    if (a.to !== undefined || a.taskIds !== undefined || a.contextIds !== undefined || a.note !== undefined) {
      const others = agentOffer ? "roomId, from and cancel" : "roomId and cancel";
      throw new RoomError("invalid", `Invalid arguments: cancel: give only ${others} to withdraw an offer`);
    }
    return call.store.cancelHandoff(call.scope, { id: a.cancel, by });
  }
  if (a.to === undefined) throw new RoomError("invalid", "Invalid arguments: to: required to make an offer");
  if (a.note === undefined)
    throw new RoomError("invalid", "Invalid arguments: note: required to make an offer");
  return call.store.offerHandoff(call.scope, {
    from: by,
    to: a.to,
    taskIds: a.taskIds ?? [],
    contextIds: a.contextIds ?? [],
    note: a.note,
    offeredBy: by,
    agentOffer,
  });
}

export const peopleTools = [
  defineTool({
    name: "claim_driver",
    title: "Take the wheel (when free)",
    description:
      "Become the room's driver when nobody drives (an orchestrator driving a factory room). Refused, naming the driver, when anyone drives. A person who takes the wheel later gets it at once: you stop driving (driver_changed tells you). Returns the driver state with its epoch.",
    returns: "DriverState {holder, holderKind, epoch, since}",
    input: z.strictObject({ roomId, agentId: actingAgentId }),
    output: driverShape,
    effect: "write",
    personAct: "drive",
    idempotent: true,
    acting: ["agentId"],
    events: ["driver_changed"],
    errors: [HELD],
    example: async () => ({ agentId: "alice" }),
    handler: (a, call) => call.store.takeDriver(call.scope, { holder: a.agentId, kind: "agent" }),
  }),
  defineTool({
    name: "release_driver",
    title: "Release the wheel",
    description:
      "Stop driving the room. Only the driver, at the epoch it holds (a stale epoch is refused, naming the current driver). The epoch grows by one.",
    returns: "DriverState",
    input: z.strictObject({ roomId, agentId: actingAgentId, epoch }),
    output: driverShape,
    effect: "write",
    acting: ["agentId"],
    events: ["driver_changed"],
    errors: [STALE, NOT_DRIVER],
    example: async (room) => {
      const held = (await room.call("claim_driver", { agentId: "alice" })) as unknown as { epoch: number };
      return { agentId: "alice", epoch: held.epoch };
    },
    handler: (a, call) => call.store.releaseDriver(call.scope, { holder: a.agentId, epoch: a.epoch }),
  }),
  defineTool({
    name: "get_driver",
    title: "Who drives",
    description:
      "Who holds the room's wheel (a person or an agent, or nobody), since when, and the epoch that fences driver-only actions.",
    returns: "DriverState",
    input: z.strictObject({ roomId }),
    output: driverShape,
    effect: "read",
    example: async () => ({}),
    handler: (_a, call) => call.store.getDriver(call.scope),
  }),
  defineTool({
    name: "request_approval",
    title: "Ask a person to approve",
    description:
      "Ask the people of the room to approve an action before you take it (a deploy, a migration, a destructive step). Returns a pending approval; poll get_approval (or watch for approval_decided, addressed to you). Only a person decides, once; past expiresInSeconds it reads as expired.",
    returns: "Approval {id, action, details, requestedBy, status, expires_at, …}",
    input: z.strictObject({
      roomId,
      agentId: actingAgentId,
      action: FIELDS.approvalAction.describe(
        "What you want to do, one line, e.g. 'deploy api to production'.",
      ),
      details: FIELDS.approvalDetails
        .optional()
        .describe("Anything a person needs to decide, as a JSON object (at most 16 KB)."),
      expiresInSeconds: approvalExpiry.optional().describe("60-86400; default 3600."),
      approvers: approversSchema
        .optional()
        .describe(
          "Only these people may decide it (their ids, e.g. ['alice']), when it needs particular people; default: any approver of the room.",
        ),
    }),
    output: approvalShape,
    effect: "write",
    acting: ["agentId"],
    events: ["approval_requested"],
    example: async () => ({
      agentId: "alice",
      action: "run the database migration",
      details: { migration: "0042" },
    }),
    handler: (a, call) => requestApproval(call, a.agentId, a),
  }),
  defineTool({
    name: "get_approval",
    title: "Read an approval",
    description:
      "Read an approval you asked for: pending, approved or rejected (with who decided and their note), or expired when nobody decided in time.",
    returns: "Approval",
    input: z.strictObject({ roomId, approvalId }),
    output: approvalShape,
    effect: "read",
    errors: ["Approval not found: <id>"],
    example: async (room) => ({
      approvalId: (await room.call("request_approval", { agentId: "alice", action: "deploy" })).id,
    }),
    handler: (a, call) => call.store.getApproval(call.scope, a.approvalId),
  }),
  defineTool({
    name: "offer_handoff",
    title: "Hand work to another agent",
    description:
      "Offer your tasks (your own or unowned ones) and context entries to another agent, or to='any' for whoever accepts first, with a note on where things stand. The acceptor gets every listed task that is still yours. To withdraw an offer not yet accepted, call again with cancel=<handoffId> (and only from).",
    returns: "Handoff {id, from, to, taskIds, contextIds, note, status, …}",
    input: z.strictObject({
      roomId,
      from: actingAgentId,
      to: otherAgentId.optional().describe("The agent to hand to, or 'any' for whoever accepts first."),
      taskIds: z.array(taskId).max(PEOPLE_LIMITS.handoffItemsMax).optional().describe("Tasks to hand on."),
      contextIds: z
        .array(contextId)
        .max(PEOPLE_LIMITS.handoffItemsMax)
        .optional()
        .describe("Context entries the acceptor should read."),
      note: FIELDS.handoffNote.optional().describe("Where things stand (required to offer)."),
      cancel: handoffId.optional().describe("Withdraw this offer of yours instead of making one."),
    }),
    output: handoffShape,
    effect: "write",
    acting: ["from"],
    addressees: ["to"],
    events: ["handoff_offered", "handoff_cancelled"],
    errors: [
      "Task <id> is owned by <agent>: an agent hands on only its own or unowned tasks",
      "Task not found: <id>",
      "Context entry not found: <id>",
      "Only the offerer (<agent>) can cancel handoff <id>",
      HANDOFF_CLOSED,
    ],
    example: async () => ({ from: "alice", to: "bob", note: "API done; the UI is yours" }),
    handler: (a, call) => offerOrCancel(call, a, { by: a.from, agentOffer: true }),
  }),
  defineTool({
    name: "accept_handoff",
    title: "Accept a handoff",
    description:
      "Accept a handoff offered to you (or to any agent): every listed task still owned as offered becomes yours at once (without a lease: claim_task takes one); tasks whose owner changed since are listed in conflicts, unchanged. Two agents accepting at once: one wins, the other is told who.",
    returns: "Handoff (status accepted, moved, conflicts)",
    input: z.strictObject({ roomId, handoffId, agentId: actingAgentId }),
    output: handoffShape,
    effect: "write",
    acting: ["agentId"],
    events: ["task_updated", "handoff_accepted", "task_lease_expired"],
    errors: [
      HANDOFF_CLOSED,
      "Handoff <id> is offered to <agent>, not to <you>",
      "Handoff <id> is your own offer: cancel it instead",
      "Plan is locked by <agent> until <time>; retry after it",
      "Handoff not found: <id>",
    ],
    example: async (room) => ({
      handoffId: (await room.call("offer_handoff", { from: "bob", to: "any", note: "take it" })).id,
      agentId: "alice",
    }),
    handler: (a, call) => call.store.acceptHandoff(call.scope, { id: a.handoffId, agentId: a.agentId }),
  }),
  defineTool({
    name: "decline_handoff",
    title: "Decline a handoff",
    description:
      "Decline a handoff offered to you by name, saying why; the offerer is told. An offer to any agent cannot be declined: leave it for another.",
    returns: "Handoff (status declined)",
    input: z.strictObject({
      roomId,
      handoffId,
      agentId: actingAgentId,
      reason: FIELDS.handoffReason.describe("Why, for the offerer."),
    }),
    output: handoffShape,
    effect: "write",
    acting: ["agentId"],
    events: ["handoff_declined"],
    errors: [
      HANDOFF_CLOSED,
      "Handoff <id> is offered to any agent: leave it for another one (the offerer may cancel it)",
    ],
    example: async (room) => ({
      handoffId: (await room.call("offer_handoff", { from: "bob", to: "alice", note: "yours?" })).id,
      agentId: "alice",
      reason: "busy with the release",
    }),
    handler: (a, call) =>
      call.store.declineHandoff(call.scope, { id: a.handoffId, agentId: a.agentId, reason: a.reason }),
  }),
  defineTool({
    name: "record_verdict",
    title: "Record a review verdict",
    description:
      "As a reviewer, record your verdict on the work (pass, fail or neutral) with a one-paragraph summary, optional markdown details and the pull request's URL. Advice only: it changes no task, approval or driver; webhooks carry it on (e.g. to CI, as one comment on the pull request).",
    returns: "Verdict {id, verdict, summary, details, ref, by, created_at}",
    input: z.strictObject({
      roomId,
      agentId: actingAgentId,
      verdict: z.enum(VERDICTS).describe("pass, fail or neutral."),
      summary: FIELDS.verdictSummary.describe("The verdict in a paragraph."),
      details: FIELDS.verdictDetails.optional().describe("Markdown, at most 16 KB."),
      ref: FIELDS.verdictRef.optional().describe("What was reviewed: a URL such as the pull request."),
    }),
    output: verdictShape,
    effect: "write",
    acting: ["agentId"],
    events: ["verdict_recorded"],
    example: async () => ({
      agentId: "alice",
      verdict: "pass",
      summary: "Looks good: tests cover the new endpoint.",
      ref: "https://example.com/org/repo/pull/7",
    }),
    handler: (a, call) =>
      call.store.recordVerdict(call.scope, {
        by: a.agentId,
        verdict: a.verdict,
        summary: a.summary,
        details: a.details ?? "",
        ref: a.ref ?? null,
      }),
  }),
];
