/**
 * Event log additions: which events agents posted (only those may be deleted), tombstones, and when context events
 * reached each agent (for the analytics). Every function runs inside the caller's transaction.
 */
import { errors } from "../../protocol/errors.ts";
import { checkEventDeletion, eventSeq, TIMED_DELIVERIES } from "../../protocol/event-rules.ts";
import { BROADCAST, type RoomEvent } from "../../protocol/records.ts";
import type { EventRemoval, RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { SqlParts } from "./rooms.ts";
import { EVENT_COLUMNS, type EventRow, perDialect, toEvent } from "./rows.ts";
import type { Op } from "./run.ts";

export function createEventEdits({ sql, now, rooms, dialect }: SqlParts, events: Events) {
  const head = sql.query<
    { type: string; from_agent: string; posted: number; deleted_by: string | null },
    [string, number]
  >("SELECT type, from_agent, posted, deleted_by FROM events WHERE room_id = ? AND seq = ?");
  const full = sql.query<EventRow, [string, number]>(
    perDialect((d) => `SELECT ${EVENT_COLUMNS[d]} FROM events e WHERE e.room_id = ? AND e.seq = ?`),
  );
  const markPosted = sql.query<unknown, [string, number]>(
    "UPDATE events SET posted = 1 WHERE room_id = ? AND seq = ?",
  );
  const bury = sql.query<unknown, [string, number, string, number]>(
    "UPDATE events SET payload = '{}', deleted_by = ?3, deleted_at = ?4 WHERE room_id = ?1 AND seq = ?2",
  );
  const noteRead = sql.query<unknown, [string, number, string, number]>(
    "INSERT INTO context_reads (room_id, seq, agent_id, at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
  );

  return {
    /** Marks an event as posted by an agent (post_event, reply_to_event): deletable and searchable. */
    *posted(roomId: string, seq: number): Op<void> {
      yield* markPosted.run(roomId, seq);
    },
    /** Records when context events were delivered to an agent (first delivery only). */
    *delivered(roomId: string, agentId: string, delivered: RoomEvent[]): Op<void> {
      const t = now();
      for (const e of delivered) {
        if (TIMED_DELIVERIES.has(e.type)) yield* noteRead.run(roomId, e.seq, agentId, t);
      }
    },
    *deleteEvent(scope: RoomScope, input: EventRemoval): Op<RoomEvent> {
      const room = yield* rooms.check(scope);
      const seq = eventSeq(input.eventId);
      const row = room && seq !== null ? yield* head.get(room.room_id, seq) : null;
      if (!room || seq === null || !row) throw errors.eventNotFound(input.eventId);
      checkEventDeletion(
        { id: input.eventId, type: row.type, from: row.from_agent, posted: row.posted === 1 },
        input,
      );
      const read = () => full.get(room.room_id, seq);
      if (row.deleted_by !== null) return toEvent((yield* read()) as EventRow);
      yield* rooms.claim(scope);
      yield* bury.run(room.room_id, seq, input.by, now());
      yield* dialect.search.drop(room.room_id, input.eventId);
      yield* events.append(room.room_id, {
        type: "event_deleted",
        from: input.by,
        to: BROADCAST,
        payload: { eventId: input.eventId, seq, type: row.type },
      });
      return toEvent((yield* read()) as EventRow);
    },
  };
}
export type EventEdits = ReturnType<typeof createEventEdits>;
