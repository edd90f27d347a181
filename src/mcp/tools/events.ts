/** Event tools (8): the append-only log, each agent's read cursor, waiting, and tombstones. */
import { z } from "zod";
import { waitForEvents } from "../../live/wait.ts";
import { RoomError } from "../../protocol/errors.ts";
import { LIMITS } from "../../protocol/limits.ts";
import { FIELDS } from "../../protocol/record-fields.ts";
import { BROADCAST } from "../../protocol/records.ts";
import { toolErrors } from "../../protocol/tool-errors.ts";
import type { NewEvent } from "../../store/types.ts";
import {
  actingAgentId,
  eventId,
  eventPayload,
  eventShape,
  otherAgentId,
  postableEventType,
  roomId,
  unreadShape,
} from "../schemas.ts";
import { defineTool, type ExampleRoom, Noted, type RoomToolCall } from "../tool.ts";

const eventType = FIELDS.eventType.describe(
  "Event type, an open string such as task_blocked or question (not one of the types roomd appends itself, see the protocol).",
);
const recipient = otherAgentId.describe('The addressee: one agent id, or "all" (the default) for everyone.');
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
  type: postableEventType(eventType),
  from: actingAgentId,
  to: recipient.optional(),
  payload: eventPayload.optional(),
};

type EventArgs = { type: string; from: string; to?: string; payload?: Record<string, unknown> };

const newEvent = (a: EventArgs): NewEvent => ({
  type: a.type,
  from: a.from,
  to: a.to ?? BROADCAST,
  payload: a.payload ?? {},
});

const postedEvent = (room: ExampleRoom) =>
  room.call("post_event", { type: "build_failed", from: "alice", payload: { job: 42 } });

const EVENT_NOT_FOUND = "Event not found: <id>";

/** wait_for_events and the compact profile's wait: the defaults, then the live wait (live/wait.ts). */
export function waitFor(
  a: { agentId: string; limit?: number; timeoutSeconds?: number; types?: string[] },
  call: RoomToolCall,
) {
  return waitForEvents({
    store: call.store,
    live: call.live,
    scope: call.scope,
    agent: a.agentId,
    limit: a.limit ?? LIMITS.unreadDefault,
    timeoutMs: (a.timeoutSeconds ?? LIMITS.waitSecondsDefault) * 1000,
    ...(a.types ? { types: new Set(a.types) } : {}),
    ...(call.signal ? { signal: call.signal } : {}),
  });
}

export const eventTools = [
  defineTool({
    name: "post_event",
    title: "Post an event",
    description:
      "Append an event to the room's log, to every agent (to='all', default) or to one agent. For ephemeral signals (e.g. task_blocked); durable requests belong in change_request context.",
    returns: "Event",
    input: z.strictObject({ roomId, ...eventFields }),
    output: eventShape,
    effect: "write",
    acting: ["from"],
    addressees: ["to"],
    events: ["<type>"],
    example: async () => ({ type: "task_blocked", from: "alice", to: "bob", payload: { taskId: "task-1" } }),
    handler: (a, call) => call.store.postEvent(call.scope, newEvent(a)),
  }),
  defineTool({
    name: "read_events",
    title: "Browse the event log",
    description:
      "Browse the event log, newest first, without consuming anything. since: an event seq or ISO time (only later events); before: an event seq (only earlier events) to page back through the whole log; limit 1-100 (default 20). When the room's retention trimmed old events and your range reaches below them, a second text part says {trimmedBefore: <oldest seq kept>}.",
    returns: "Event[], newest first (and {trimmedBefore} beside it when old events were trimmed)",
    input: z.strictObject({
      roomId,
      since: z
        .union([z.string().min(1).max(40), seq])
        .optional()
        .describe("Only events after this event seq or ISO time."),
      before: seq.optional().describe("Only events with a lower seq (to page back)."),
      limit: z.number().int().min(1).max(LIMITS.readEventsMax).optional().describe("Default 20."),
    }),
    effect: "read",
    example: async (room) => {
      await postedEvent(room);
      return { limit: 10 };
    },
    handler: async (a, call) => {
      const events = await call.store.readEvents(call.scope, {
        ...parseSince(a.since),
        beforeSeq: a.before,
        limit: a.limit ?? LIMITS.readEventsDefault,
      });
      const { trimmedBefore } = events;
      return trimmedBefore === undefined ? [...events] : new Noted([...events], { trimmedBefore });
    },
  }),
  defineTool({
    name: "get_unread_events",
    title: "Consume my unread events",
    description:
      "Consume your unread events (addressed to 'all' or to you), oldest first, and advance your cursor past them: each event is delivered to you exactly once. remaining tells how many are still waiting. Call once per turn.",
    returns: "UnreadBatch {events (oldest first), cursor, count, remaining}",
    input: z.strictObject({
      roomId,
      agentId: actingAgentId,
      limit: z.number().int().min(1).max(LIMITS.unreadMax).optional().describe("Default 50."),
    }),
    output: unreadShape,
    effect: "write",
    acting: ["agentId"],
    example: async (room) => {
      await postedEvent(room);
      return { agentId: "alice" };
    },
    handler: (a, call) => call.store.consumeEvents(call.scope, a.agentId, a.limit ?? LIMITS.unreadDefault),
  }),
  defineTool({
    name: "wait_for_events",
    title: "Wait for my next events",
    description:
      "Like get_unread_events, but when nothing is waiting for you, wait (up to timeoutSeconds) until an event addressed to you or 'all' is posted by anyone, then consume and return it. Returns at once when you have unread events; after the timeout returns events: [] with timedOut: true. With types, only events of those types end the wait (every unread event is still returned, none skipped). Use it instead of polling between turns.",
    returns: "UnreadBatch {events (oldest first), cursor, count, remaining} + timedOut",
    input: z.strictObject({
      roomId,
      agentId: actingAgentId,
      timeoutSeconds: z
        .number()
        .int()
        .min(0)
        .max(LIMITS.waitSecondsMax)
        .optional()
        .describe(
          `Longest wait in seconds, 0-${LIMITS.waitSecondsMax}. Default ${LIMITS.waitSecondsDefault}.`,
        ),
      limit: z.number().int().min(1).max(LIMITS.unreadMax).optional().describe("Default 50."),
      types: z
        .array(eventType)
        .min(1)
        .max(LIMITS.waitTypesMax)
        .optional()
        .describe("Only events of these types end the wait."),
    }),
    output: unreadShape.extend({
      timedOut: z.boolean().describe("true when the wait ended with nothing for you."),
    }),
    effect: "write",
    acting: ["agentId"],
    example: async (room) => {
      await postedEvent(room);
      return { agentId: "alice", timeoutSeconds: 0 };
    },
    handler: waitFor,
  }),
  defineTool({
    name: "mark_event_read",
    title: "Acknowledge an event",
    description: "Acknowledge an event: you are added to its read_by list.",
    returns: "{eventId, agentId, ok: true}",
    input: z.strictObject({ roomId, eventId, agentId: actingAgentId }),
    output: z.object({ eventId: z.string(), agentId: z.string(), ok: z.literal(true) }),
    effect: "write",
    idempotent: true,
    acting: ["agentId"],
    errors: [EVENT_NOT_FOUND],
    example: async (room) => ({ eventId: (await postedEvent(room)).id, agentId: "alice" }),
    handler: async (a, call) => {
      await call.store.markEventRead(call.scope, a.eventId, a.agentId);
      return { eventId: a.eventId, agentId: a.agentId, ok: true as const };
    },
  }),
  defineTool({
    name: "get_event_reads",
    title: "Who acknowledged an event",
    description: "Who has acknowledged an event (mark_event_read).",
    returns: "{eventId, readBy}",
    input: z.strictObject({ roomId, eventId }),
    output: z.object({ eventId: z.string(), readBy: z.array(z.string()) }),
    effect: "read",
    errors: [EVENT_NOT_FOUND],
    example: async (room) => ({ eventId: (await postedEvent(room)).id }),
    handler: async (a, call) => ({
      eventId: a.eventId,
      readBy: await call.store.getEventReads(call.scope, a.eventId),
    }),
  }),
  defineTool({
    name: "reply_to_event",
    title: "Reply to an event",
    description: "Post an event that answers an earlier one (reply_to_id links them); to defaults to 'all'.",
    returns: "Event (with reply_to_id)",
    input: z.strictObject({
      roomId,
      replyToId: eventId.describe("Id of the event this one answers (e.g. evt-17)."),
      ...eventFields,
    }),
    output: eventShape,
    effect: "write",
    acting: ["from"],
    addressees: ["to"],
    events: ["<type>"],
    errors: [EVENT_NOT_FOUND],
    example: async (room) => ({
      replyToId: (await postedEvent(room)).id,
      type: "build_fixed",
      from: "alice",
    }),
    handler: (a, call) => call.store.postEvent(call.scope, { ...newEvent(a), replyToId: a.replyToId }),
  }),
  defineTool({
    name: "delete_event",
    title: "Delete an event",
    description:
      "Delete an event you posted (post_event or reply_to_event): it becomes a tombstone with the same id, seq, type, from, to and time, an empty payload and deleted {by, at}, so the log keeps no gap and every cursor stays exact. A key bound to an agent deletes only that agent's events; an unbound team key any event an agent posted. People's messages, and events roomd appends itself (task_added, context_updated, …), cannot be deleted. Posts an event_deleted event.",
    returns: "Event (the tombstone)",
    input: z.strictObject({ roomId, eventId, agentId: actingAgentId }),
    output: eventShape,
    effect: "destructive",
    idempotent: true,
    acting: ["agentId"],
    events: ["event_deleted"],
    errors: [
      EVENT_NOT_FOUND,
      toolErrors.notAuthor("<id>", "<agent>").message,
      toolErrors.roomdEvent("<id>", "<type>").message,
    ],
    example: async (room) => ({ eventId: (await postedEvent(room)).id, agentId: "alice" }),
    handler: (a, call) =>
      call.store.deleteEvent(call.scope, {
        eventId: a.eventId,
        by: a.agentId,
        // A bound key (every invite is bound) deletes only its own agent's events; an unbound team key any.
        onlyAuthor: call.principal.boundAgentId,
      }),
  }),
];
