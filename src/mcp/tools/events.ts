/** Event tools (spec §3, 6 tools): the append-only log and each agent's read cursor. */
import { z } from "zod";
import { RoomError } from "../../protocol/errors.ts";
import { LIMITS } from "../../protocol/limits.ts";
import { BROADCAST } from "../../protocol/records.ts";
import type { NewEvent } from "../../store/types.ts";
import { actingAgent, scope } from "../identity.ts";
import { agentId, eventShape, jsonPayload, roomId, unreadShape } from "../schemas.ts";
import { defineTool, type ToolContext } from "../tool.ts";

const eventId = z.string().min(1).max(100).describe("Event id, as returned in an event's id field.");
const eventType = z.string().min(1).max(LIMITS.eventTypeMax).describe("Open string, e.g. task_blocked.");
const recipient = z.union([z.literal(BROADCAST), agentId]).describe('"all" (default) or one agent id.');
const seq = z.number().int().min(0);

/** `since` is an event seq (digits) or an ISO time; anything else is refused. */
function parseSince(since: string | number | undefined): { sinceSeq?: number; sinceMs?: number } {
  if (since === undefined) return {};
  if (typeof since === "number") return { sinceSeq: since };
  if (/^\d+$/.test(since)) return { sinceSeq: Number(since) };
  const ms = Date.parse(since);
  if (Number.isNaN(ms)) {
    throw new RoomError(
      "invalid",
      `Invalid arguments: since: must be an event seq or an ISO time, got ${JSON.stringify(since.slice(0, 40))}`,
    );
  }
  return { sinceMs: ms };
}

/** What post_event and reply_to_event both take. */
const eventFields = {
  type: eventType,
  from: agentId,
  to: recipient.optional(),
  payload: jsonPayload.optional(),
};

type EventArgs = { type: string; from: string; to?: string; payload?: unknown };

function newEvent(a: EventArgs, ctx: ToolContext): NewEvent {
  return { type: a.type, from: actingAgent(ctx, a.from), to: a.to ?? BROADCAST, payload: a.payload ?? {} };
}

export const eventTools = [
  defineTool({
    name: "post_event",
    description:
      "Append an event to the room's log, to every agent (to='all', default) or to one agent. For ephemeral signals (e.g. task_blocked); durable requests belong in change_request context.",
    input: z.strictObject({ roomId, ...eventFields }),
    output: eventShape,
    handler: (a, ctx) => ctx.store.postEvent(scope(ctx, a.roomId), newEvent(a, ctx)),
  }),
  defineTool({
    name: "read_events",
    description:
      "Browse the event log, newest first, without consuming anything. since: an event seq or ISO time (only later events); before: an event seq (only earlier events) to page back through the whole log; limit 1-100 (default 20).",
    input: z.strictObject({
      roomId,
      since: z.union([z.string().min(1).max(40), seq]).optional(),
      before: seq.optional(),
      limit: z.number().int().min(1).max(LIMITS.readEventsMax).optional(),
    }),
    annotations: { readOnlyHint: true },
    handler: (a, ctx) =>
      ctx.store.readEvents(scope(ctx, a.roomId), {
        ...parseSince(a.since),
        beforeSeq: a.before,
        limit: a.limit ?? LIMITS.readEventsDefault,
      }),
  }),
  defineTool({
    name: "get_unread_events",
    description:
      "Consume your unread events (addressed to 'all' or to you), oldest first, and advance your cursor past them: each event is delivered to you exactly once. remaining tells how many are still waiting. Call once per turn.",
    input: z.strictObject({
      roomId,
      agentId,
      limit: z.number().int().min(1).max(LIMITS.unreadMax).optional().describe("Default 50."),
    }),
    output: unreadShape,
    handler: (a, ctx) =>
      ctx.store.consumeEvents(
        scope(ctx, a.roomId),
        actingAgent(ctx, a.agentId),
        a.limit ?? LIMITS.unreadDefault,
      ),
  }),
  defineTool({
    name: "mark_event_read",
    description: "Acknowledge an event: you are added to its read_by list.",
    input: z.strictObject({ roomId, eventId, agentId }),
    output: z.object({ eventId: z.string(), agentId: z.string(), ok: z.literal(true) }),
    annotations: { idempotentHint: true },
    handler: async (a, ctx) => {
      const agent = actingAgent(ctx, a.agentId);
      await ctx.store.markEventRead(scope(ctx, a.roomId), a.eventId, agent);
      return { eventId: a.eventId, agentId: agent, ok: true as const };
    },
  }),
  defineTool({
    name: "get_event_reads",
    description: "Who has acknowledged an event (mark_event_read).",
    input: z.strictObject({ roomId, eventId }),
    output: z.object({ eventId: z.string(), readBy: z.array(z.string()) }),
    annotations: { readOnlyHint: true },
    handler: async (a, ctx) => ({
      eventId: a.eventId,
      readBy: await ctx.store.getEventReads(scope(ctx, a.roomId), a.eventId),
    }),
  }),
  defineTool({
    name: "reply_to_event",
    description: "Post an event that answers an earlier one (reply_to_id links them); to defaults to 'all'.",
    input: z.strictObject({ roomId, replyToId: eventId, ...eventFields }),
    output: eventShape,
    handler: (a, ctx) =>
      ctx.store.postEvent(scope(ctx, a.roomId), { ...newEvent(a, ctx), replyToId: a.replyToId }),
  }),
];
