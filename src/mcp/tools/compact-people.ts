/**
 * The compact profile's tools for the steps that involve someone else: asking a person to approve, handing work
 * to another agent, and leaving. Each wraps the store operation of its full counterparts (request_approval and
 * get_approval; offer_handoff, accept_handoff and decline_handoff; leave_room), so rules and events are the same.
 */
import { z } from "zod";
import { RoomError } from "../../protocol/errors.ts";
import { agentIdSchema, roomIdSchema } from "../../protocol/ids.ts";
import { PEOPLE_LIMITS } from "../../protocol/people.ts";
import { FIELDS } from "../../protocol/record-fields.ts";
import { roomHint } from "../../protocol/records.ts";
import { approversSchema } from "../../protocol/role-schemas.ts";
import { contextId, otherAgentId, recordId, taskId } from "../schemas.ts";
import { defineTool, type Profile } from "../tool.ts";
import { approvalExpiry, requestApproval } from "./people.ts";

const COMPACT: readonly Profile[] = ["compact"];
const room = roomIdSchema.describe("Room; default: X-Roomd-Room header or your invite's room.");
const me = agentIdSchema.describe("You; default: X-Roomd-Agent header or your key's agent.");
const common = { context: "optional", profiles: COMPACT, terse: true } as const;
const invalid = (message: string) => new RoomError("invalid", `Invalid arguments: ${message}`);

/** Refuses arguments that do not belong to the chosen action (they would be silently ignored otherwise). */
function only(action: string, given: Record<string, unknown>, allowed: readonly string[]): void {
  const extra = Object.keys(given).filter((k) => given[k] !== undefined && !allowed.includes(k));
  if (extra.length > 0) throw invalid(`${extra.join(", ")}: not used to ${action}`);
}

export const compactPeopleTools = [
  defineTool({
    ...common,
    name: "ask",
    title: "Ask a person to approve",
    description:
      "Before a step a person must approve (deploy, migration, deleting data): ask with action; you get approval_decided when a person decides. With id: read the decision (pending, approved, rejected, expired).",
    returns: "Approval",
    input: z.strictObject({
      roomId: room,
      agentId: me,
      action: FIELDS.approvalAction.optional().describe("What you want to do, one line."),
      details: FIELDS.approvalDetails.optional().describe("What a person needs to decide (JSON object)."),
      expiresInSeconds: approvalExpiry.optional().describe("Default 3600."),
      approvers: approversSchema
        .optional()
        .describe("Only these people decide (ids); default: any approver."),
      id: recordId("approval").optional().describe("An approval you asked for: read it."),
    }),
    effect: "write",
    // Reading a decision (id) is a read: a viewer may.
    personAct: (a) => (a.id !== undefined ? undefined : "tools"),
    acting: ["agentId"],
    events: ["approval_requested"],
    errors: ["Approval not found: <id>"],
    example: async () => ({ agentId: "alice", action: "run the database migration" }),
    handler: async (a, call) => {
      if (a.id !== undefined) {
        only(
          "read an approval",
          {
            action: a.action,
            details: a.details,
            expiresInSeconds: a.expiresInSeconds,
            approvers: a.approvers,
          },
          [],
        );
        return call.store.getApproval(call.readScope, a.id);
      }
      if (a.action === undefined) throw invalid("action: required to ask (or id, to read a decision)");
      return requestApproval(call, a.agentId, { ...a, action: a.action });
    },
  }),
  defineTool({
    ...common,
    name: "handoff",
    title: "Hand work over",
    description:
      "offer your tasks (and context to read) to another agent or to any, with a note on where things stand; accept an offer made to you (its tasks become yours); decline one made to you by name; cancel your own.",
    returns: "Handoff",
    input: z.strictObject({
      roomId: room,
      agentId: me,
      action: z.enum(["offer", "accept", "decline", "cancel"]).describe("What to do."),
      to: otherAgentId.optional().describe('offer: the agent, or "any".'),
      taskIds: z.array(taskId).max(PEOPLE_LIMITS.handoffItemsMax).optional().describe("offer: tasks."),
      contextIds: z
        .array(contextId)
        .max(PEOPLE_LIMITS.handoffItemsMax)
        .optional()
        .describe("offer: entries to read."),
      note: FIELDS.handoffNote.optional().describe("offer: where things stand."),
      id: recordId("handoff").optional().describe("accept, decline, cancel: the handoff."),
      reason: FIELDS.handoffReason.optional().describe("decline: why."),
    }),
    effect: "write",
    acting: ["agentId"],
    addressees: ["to"],
    events: ["handoff_offered", "handoff_accepted", "handoff_declined", "handoff_cancelled", "task_updated"],
    example: async () => ({
      agentId: "alice",
      action: "offer",
      to: "bob",
      note: "API done; the UI is yours",
    }),
    handler: async (a, call) => {
      const { agentId, action } = a;
      const offer = { to: a.to, taskIds: a.taskIds, contextIds: a.contextIds, note: a.note };
      if (action === "offer") {
        only("offer", { id: a.id, reason: a.reason }, []);
        if (a.to === undefined) throw invalid("to: required to offer");
        if (a.note === undefined) throw invalid("note: required to offer");
        return call.store.offerHandoff(call.scope, {
          from: agentId,
          to: a.to,
          taskIds: a.taskIds ?? [],
          contextIds: a.contextIds ?? [],
          note: a.note,
          offeredBy: agentId,
          agentOffer: true,
        });
      }
      only(action, { ...offer, reason: action === "decline" ? undefined : a.reason }, []);
      if (a.id === undefined) throw invalid(`id: required to ${action}`);
      if (action === "accept") return call.store.acceptHandoff(call.scope, { id: a.id, agentId });
      if (action === "cancel") return call.store.cancelHandoff(call.scope, { id: a.id, by: agentId });
      if (a.reason === undefined) throw invalid("reason: required to decline");
      return call.store.declineHandoff(call.scope, { id: a.id, agentId, reason: a.reason });
    },
  }),
  defineTool({
    ...common,
    name: "leave",
    title: "Leave the room",
    description:
      "When you stop: your claimed tasks go back to the plan, your file claims and locks are released, at once.",
    returns: "{agentId, roomExists, released: {tasks, paths, locks}}",
    input: z.strictObject({ roomId: room, agentId: me }),
    effect: "write",
    idempotent: true,
    acting: ["agentId"],
    events: ["agent_left", "files_released", "driver_changed"],
    example: async (r) => {
      await r.call("claim_files", { agentId: "alice", paths: ["src/auth.ts"] });
      return { agentId: "alice" };
    },
    handler: async (a, call) => {
      const left = await call.store.leaveRoom(call.scope, a.agentId);
      return left.roomExists ? left : { ...left, hint: roomHint(a.roomId) };
    },
  }),
];
