/** Event operations of the Redis store. */
import type { RoomEvent, UnreadBatch } from "../../protocol/records.ts";
import { eventFields, fieldTerms } from "../../protocol/search.ts";
import type { EventList, RoomStore } from "../types.ts";
import type { Call } from "./call.ts";
import { type StoredEvent, toEvent } from "./records.ts";

type EventOps = Pick<
  RoomStore,
  "postEvent" | "readEvents" | "readLog" | "consumeEvents" | "markEventRead" | "getEventReads"
>;

const opt = (value: number | undefined) => (value === undefined ? "" : String(value));

export function eventOps(call: Call): EventOps {
  return {
    async postEvent(scope, input) {
      const { value } = await call<Omit<RoomEvent, "read_by">>(scope, "POST_EVENT", [
        input.type,
        input.from,
        input.to,
        JSON.stringify(input.payload ?? {}),
        input.replyToId ?? "",
        JSON.stringify(fieldTerms(eventFields({ type: input.type, payload: input.payload ?? {} }))),
      ]);
      return toEvent({ e: value, r: [] });
    },

    async readEvents(scope, query) {
      const { value } = await call<{ events: StoredEvent[]; trimmedBefore?: number }>(scope, "READ_EVENTS", [
        opt(query.sinceSeq),
        opt(query.sinceMs),
        opt(query.beforeSeq),
        String(query.limit),
      ]);
      const list: EventList = value.events.map(toEvent);
      if (value.trimmedBefore !== undefined) list.trimmedBefore = value.trimmedBefore;
      return list;
    },

    async readLog(scope, after, limit) {
      const { value } = await call<{ events: StoredEvent[]; head: number; exists: boolean }>(
        scope,
        "READ_LOG",
        [String(after), String(limit)],
      );
      return { events: value.events.map(toEvent), head: value.head, exists: value.exists };
    },

    async consumeEvents(scope, agentId, limit) {
      const { value } = await call<{
        events: StoredEvent[];
        cursor: number | null;
        remaining: number;
        trimmedBefore?: number;
      }>(scope, "CONSUME_EVENTS", [agentId, String(limit)]);
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
      await call(scope, "MARK_EVENT_READ", [eventId, agentId]);
    },

    async getEventReads(scope, eventId) {
      return (await call<string[]>(scope, "GET_EVENT_READS", [eventId])).value;
    },
  };
}
