/**
 * People's acts from the room board (docs/people.md, "The room board in chat clients"): a message to an agent,
 * an approval decided, work handed over — the acts of `POST /rooms/:roomId/messages`, `/approvals/:id` and
 * `/handoffs`, as tools the board calls through its host. Each is the calling person's, by their key: only
 * people's keys may call them (peopleOnly), and only with the role the act needs in the room (personAct), whoever
 * lists or hides them. The board is their caller (hosts list them to no model), but a hidden tool is checked like
 * any other: an agent's key is refused, whatever host it comes through.
 */
import { z } from "zod";
import { PEOPLE_LIMITS } from "../../protocol/people.ts";
import { personOf } from "../../protocol/principal.ts";
import { FIELDS } from "../../protocol/record-fields.ts";
import { checkApprover } from "../../protocol/roles.ts";
import { BOARD_APP_ONLY } from "../board/ui.ts";
import { contextId, eventShape, otherAgentId, recordId, roomId, taskId } from "../schemas.ts";
import { defineTool, type RoomToolCall } from "../tool.ts";
import { approvalShape, handoffShape, offerOrCancel } from "./people.ts";

/** The calling person as events name them (peopleOnly lets no one else this far). */
function person(call: RoomToolCall): string {
  const name = personOf(call.principal);
  if (name === undefined) throw new Error("a people-only tool ran for an agent's key");
  return name;
}

const forPeople = { ui: BOARD_APP_ONLY, effect: "write" } as const;

export const boardActTools = [
  defineTool({
    ...forPeople,
    name: "message_agent",
    title: "Message an agent (people)",
    description:
      "The room board's message box: posts the calling person's message (human_message from human:<id>) to one agent or to all; the agent reads it on its next turn. People's keys only, with the member role.",
    returns: "Event (human_message)",
    input: z.strictObject({
      roomId,
      to: otherAgentId.describe('The agent, or "all".'),
      text: z.string().min(1).max(PEOPLE_LIMITS.messageMax).describe("The message."),
    }),
    output: eventShape,
    personAct: "message",
    peopleOnly: "post messages",
    addressees: ["to"],
    events: ["human_message"],
    example: async () => ({ to: "alice", text: "Use the v2 endpoint for the cart." }),
    handler: (a, call) =>
      call.store.postEvent(call.scope, {
        type: "human_message",
        from: person(call),
        to: a.to,
        payload: { text: a.text },
      }),
  }),
  defineTool({
    ...forPeople,
    name: "decide_approval",
    title: "Decide an approval (people)",
    description:
      "The room board's Approve and Reject: decides a pending approval as the calling person, once, with an optional note; the requester is told (approval_decided). People's keys only, with the approver role — and one the approval names, when it names its approvers.",
    returns: "Approval (approved or rejected, decidedBy human:<id>)",
    input: z.strictObject({
      roomId,
      approvalId: recordId("approval").describe("The approval, e.g. apr-3."),
      decision: z.enum(["approve", "reject"]).describe("approve or reject."),
      note: FIELDS.approvalNote.optional().describe("Why, for the requester."),
    }),
    output: approvalShape,
    personAct: "decide",
    peopleOnly: "decide approvals",
    roundTrips: 2,
    events: ["approval_decided"],
    errors: [
      "Approval not found: <id>",
      "Approval <id> was already <status> by <who> at <time>",
      "Approval <id> expired at <time>; ask for a new one",
      "Approval <id> is for <people> to decide; you (<person>) are not one of them",
    ],
    example: async (room) => ({
      approvalId: (await room.call("request_approval", { agentId: "alice", action: "deploy" })).id,
      decision: "approve",
    }),
    handler: async (a, call) => {
      const decidedBy = person(call);
      // Approvers are fixed when the approval is asked for, so reading them before the decision cannot race it.
      checkApprover(await call.store.getApproval(call.readScope, a.approvalId), decidedBy);
      return call.store.decideApproval(call.scope, {
        id: a.approvalId,
        decidedBy,
        decision: a.decision,
        note: a.note,
      });
    },
  }),
  defineTool({
    ...forPeople,
    name: "hand_over",
    title: "Hand work over (people)",
    description:
      "The room board's hand-over form: offers tasks (any task: a person hands over on behalf of the room) and context entries to one agent or to any, with a note on where things stand; with cancel, withdraws an offer the person made. People's keys only, with the member role.",
    returns: "Handoff",
    input: z.strictObject({
      roomId,
      to: otherAgentId.optional().describe('The agent, or "any" for whoever accepts first.'),
      taskIds: z.array(taskId).max(PEOPLE_LIMITS.handoffItemsMax).optional().describe("Tasks to hand over."),
      contextIds: z
        .array(contextId)
        .max(PEOPLE_LIMITS.handoffItemsMax)
        .optional()
        .describe("Context entries to read."),
      note: FIELDS.handoffNote.optional().describe("Where things stand (required to offer)."),
      cancel: recordId("handoff").optional().describe("Withdraw this offer of yours instead."),
    }),
    output: handoffShape,
    personAct: "handoff",
    peopleOnly: "hand work over",
    addressees: ["to"],
    events: ["handoff_offered", "handoff_cancelled"],
    errors: [
      "Task not found: <id>",
      "Context entry not found: <id>",
      "Handoff not found: <id>",
      "Only the offerer (<who>) can cancel handoff <id>",
    ],
    example: async (room) => ({
      to: "bob",
      taskIds: [(await room.call("add_task", { title: "Cart page", agentId: "alice" })).id],
      note: "The API is done; the page is yours.",
    }),
    handler: (a, call) => offerOrCancel(call, a, { by: person(call), agentOffer: false }),
  }),
];
