/** Event operations of the Redis store. */
import type { UnreadBatch } from "../../protocol/records.ts";
import { eventFields, fieldTerms } from "../../protocol/search.ts";
import type { EventList, RoomStore } from "../types.ts";
import type { Call } from "./call.ts";
import { toEvent } from "./records.ts";

type EventOps = Pick<
  RoomStore,
  "postEvent" | "readEvents" | "readLog" | "consumeEvents" | "markEventRead" | "getEventReads"
>;

export function eventOps(call: Call): EventOps {
  return {
    async postEvent(scope, input) {
      const { value } = await call(scope, "POST_EVENT", {
        etype: input.type,
        from: input.from,
        to: input.to,
        payload: input.payload ?? {},
        replyTo: input.replyToId,
        terms: fieldTerms(eventFields({ type: input.type, payload: input.payload ?? {} })),
      });
      return toEvent({ e: value, r: [] });
    },

    async readEvents(scope, query) {
      const { value } = await call(scope, "READ_EVENTS", {
        sinceSeq: query.sinceSeq ?? 0,
        sinceMs: query.sinceMs,
        beforeSeq: query.beforeSeq,
        limit: query.limit,
      });
      const list: EventList = value.events.map(toEvent);
      if (value.trimmedBefore !== undefined) list.trimmedBefore = value.trimmedBefore;
      return list;
    },

    async readLog(scope, after, limit) {
      const { value } = await call(scope, "READ_LOG", { after, limit });
      return { events: value.events.map(toEvent), head: value.head, exists: value.exists };
    },

    async consumeEvents(scope, agentId, limit) {
      const { value } = await call(scope, "CONSUME_EVENTS", { agent: agentId, limit });
      const events = value.events.map(toEvent);
      return {
        events,
        cursor: value.cursor,
        count: events.length,
        remaining: value.remaining,
        ...(value.trimmedBefore === undefined ? {} : { trimmedBefore: value.trimmedBefore }),
      } satisfies UnreadBatch;
    },

    async markEventRead(scope, eventId, agentId) {
      await call(scope, "MARK_EVENT_READ", { id: eventId, agent: agentId });
    },

    async getEventReads(scope, eventId) {
      return (await call(scope, "GET_EVENT_READS", { id: eventId })).value;
    },
  };
}
