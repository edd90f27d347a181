/**
 * The event log: append with seq = event_seq + 1 (the write runs alone on its room, so seqs are gap-free), paged
 * reads, exactly-once delivery through cursors in O(log n + k), and the webhook outbox filled by the append itself
 * (a room without webhooks pays one primary-key range lookup that finds nothing). Event retention trims the oldest
 * events inside the append (Dialect.trim).
 */
import { errors } from "../../protocol/errors.ts";
import { cursorStanding, eventSeq, trimmedBefore } from "../../protocol/event-rules.ts";
import { BROADCAST, type RoomEvent, type UnreadBatch } from "../../protocol/records.ts";
import type { EventList, EventQuery, LogPage, NewEvent, RoomScope } from "../types.ts";
import type { RoomRow, SqlParts } from "./rooms.ts";
import {
  type AddressedCounts,
  type CursorRow,
  EVENT_COLUMNS,
  type EventRow,
  perDialect,
  toEvent,
} from "./rows.ts";
import type { Op } from "./run.ts";

/**
 * The next `$limit` events addressed to "all" or to `$agent` after seq `$after`: two index range scans of at most
 * $limit rows each (events_by_address), merged — O(log n + k) whatever the backlog, where one scan over
 * "to_agent IN (…)" would sort the agent's whole backlog.
 */
export const ADDRESSED_SQL = perDialect(
  (d) => `SELECT ${EVENT_COLUMNS[d]} FROM events e WHERE e.room_id = $room AND e.seq IN (
  SELECT seq FROM (SELECT seq FROM events WHERE room_id = $room AND to_agent = '${BROADCAST}' AND seq > $after
                   ORDER BY seq LIMIT $limit) a
  UNION ALL
  SELECT seq FROM (SELECT seq FROM events WHERE room_id = $room AND to_agent = $agent AND seq > $after
                     AND $agent <> '${BROADCAST}' ORDER BY seq LIMIT $limit) b
) ORDER BY e.seq LIMIT $limit`,
);

/** Bounds that stand in for "no filter", so one prepared statement serves every event query as a PK range scan. */
const NO_LOWER = -1;
const NO_UPPER = Number.MAX_SAFE_INTEGER;

export function createEvents({ sql, now, rooms, changes, dialect }: SqlParts) {
  const insert = sql.query<unknown, [string, number, string, string, string, number, string, string | null]>(
    `INSERT INTO events (room_id, seq, type, from_agent, to_agent, ts, payload, reply_to)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const exists = sql.query<{ seq: number }, [string, number]>(
    "SELECT seq FROM events WHERE room_id = ? AND seq = ?",
  );
  const page = sql.query<
    EventRow,
    [{ room: string; since: number; before: number; sinceMs: number; limit: number }]
  >(
    perDialect(
      (d) => `SELECT ${EVENT_COLUMNS[d]} FROM events e
     WHERE e.room_id = $room AND e.seq > $since AND e.seq < $before AND e.ts > $sinceMs
     ORDER BY e.seq DESC LIMIT $limit`,
    ),
  );
  const addressed = sql.query<EventRow, [{ room: string; after: number; agent: string; limit: number }]>(
    ADDRESSED_SQL,
  );
  // How many events were ever addressed to "all" and to the agent; `remaining` is that minus what it consumed.
  // `trimmed` of them went by retention: a cursor behind the trimmed range has (in effect) consumed those.
  const addressedTotal = sql.query<AddressedCounts, [{ room: string; agent: string }]>(
    `SELECT coalesce(sum(n), 0) AS n, coalesce(sum(trimmed), 0) AS trimmed FROM addr_counts
     WHERE room_id = $room AND to_agent IN ('${BROADCAST}', $agent)`,
  );
  const countTo = sql.query<unknown, [string, string]>(
    `INSERT INTO addr_counts (room_id, to_agent, n) VALUES (?1, ?2, 1)
     ON CONFLICT (room_id, to_agent) DO UPDATE SET n = addr_counts.n + 1`,
  );
  const cursorGet = sql.query<CursorRow, [string, string]>(
    "SELECT seq, delivered FROM cursors WHERE room_id = ? AND agent_id = ?",
  );
  const cursorSet = sql.query<unknown, [string, string, number, number]>(
    `INSERT INTO cursors (room_id, agent_id, seq, delivered) VALUES (?1, ?2, ?3, ?4)
     ON CONFLICT (room_id, agent_id) DO UPDATE SET seq = excluded.seq, delivered = excluded.delivered`,
  );
  const after = sql.query<EventRow, [string, number, number]>(
    perDialect(
      (d) =>
        `SELECT ${EVENT_COLUMNS[d]} FROM events e WHERE e.room_id = ? AND e.seq > ? ORDER BY e.seq LIMIT ?`,
    ),
  );
  const readInsert = sql.query<unknown, [string, number, string]>(
    "INSERT INTO event_reads (room_id, seq, agent_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
  );
  const readList = sql.query<{ agent_id: string }, [string, number]>(
    "SELECT agent_id FROM event_reads WHERE room_id = ? AND seq = ? ORDER BY rowid",
  );
  // The outbox: one delivery per matching active webhook of the room (store/types.ts WebhookStore), due now.
  const enqueue = sql.query<unknown, [{ room: string; seq: number; type: string; now: number }]>(
    perDialect(
      (d) => `INSERT INTO webhook_outbox (room_id, seq, webhook_id, attempt, due_at)
     SELECT room_id, $seq, webhook_id, 1, $now FROM webhooks w
     WHERE w.room_id = $room AND w.active = 1
       AND (w.types = '[]' OR EXISTS (${
         d === "sqlite"
           ? "SELECT 1 FROM json_each(w.types) WHERE value = $type"
           : "SELECT 1 FROM jsonb_array_elements_text(w.types::jsonb) t WHERE t = $type"
       }))`,
    ),
  );

  /** The seq of an existing event of this (live) room, else errors.eventNotFound. */
  function* existingSeq(room: RoomRow | null, id: string): Op<number> {
    const seq = eventSeq(id);
    if (room === null || seq === null || !(yield* exists.get(room.room_id, seq)))
      throw errors.eventNotFound(id);
    return seq;
  }

  /** Appends an event to a claimed room; the seq is exactly the previous one + 1. */
  function* append(roomId: string, input: NewEvent): Op<RoomEvent> {
    const seq = yield* rooms.next(roomId, "event_seq");
    const ts = now();
    const reply = input.replyToId ?? null;
    // Round-trip through JSON so the returned event equals what later reads return.
    const payload = JSON.stringify(input.payload ?? {});
    yield* insert.run(roomId, seq, input.type, input.from, input.to, ts, payload, reply);
    yield* countTo.run(roomId, input.to);
    yield* enqueue.run({ room: roomId, seq, type: input.type, now: ts });
    yield* dialect.trim(roomId, seq, ts);
    changes.appended(roomId, seq);
    const row = { seq, type: input.type, from_agent: input.from, to_agent: input.to, ts, payload };
    return toEvent({ ...row, reply_to: reply, read_by: "[]" });
  }

  /** Where the agent stands in the log (protocol/event-rules.ts cursorStanding). */
  function* standing(room: RoomRow, agentId: string) {
    return cursorStanding(
      room.trimmed_seq,
      yield* cursorGet.get(room.room_id, agentId),
      yield* addressedTotal.get({ room: room.room_id, agent: agentId }),
    );
  }

  /**
   * Delivers up to `limit` addressed events after the agent's cursor and moves the cursor, claiming the room
   * only when something is delivered (unless the caller already did). Runs inside the caller's write, which runs
   * alone on the room in every process: that makes delivery exactly-once. A cursor behind the trimmed range
   * carries on from the oldest kept event, and the batch says trimmedBefore.
   */
  function* deliver(
    scope: RoomScope,
    room: RoomRow | null,
    agentId: string,
    limit: number,
    claimed = false,
  ): Op<UnreadBatch> {
    if (room === null) return { events: [], cursor: null, count: 0, remaining: 0 };
    const at = yield* standing(room, agentId);
    const trimmed = at.trimmedBefore === undefined ? {} : { trimmedBefore: at.trimmedBefore };
    const rows = yield* addressed.all({ room: room.room_id, after: at.after, agent: agentId, limit });
    const last = rows.at(-1);
    const delivered = at.consumed + rows.length;
    if (!last) {
      return {
        events: [],
        cursor: at.seq,
        count: 0,
        remaining: Math.max(0, at.total - delivered),
        ...trimmed,
      };
    }
    if (!claimed) yield* rooms.claim(scope);
    yield* cursorSet.run(room.room_id, agentId, last.seq, delivered);
    return {
      events: rows.map(toEvent),
      cursor: last.seq,
      count: rows.length,
      remaining: at.total - delivered,
      ...trimmed,
    };
  }

  /** Addressed events the agent has not consumed yet (the bridge's digest). */
  function* unread(room: RoomRow, agentId: string): Op<number> {
    const at = yield* standing(room, agentId);
    return Math.max(0, at.total - at.consumed);
  }

  return {
    append,
    deliver,
    unread,
    existingSeq,
    *postEvent(scope: RoomScope, input: NewEvent): Op<RoomEvent> {
      const room = yield* rooms.check(scope);
      if (input.replyToId !== undefined) yield* existingSeq(room, input.replyToId);
      yield* rooms.claim(scope);
      return yield* append(scope.roomId, input);
    },
    *readEvents(scope: RoomScope, query: EventQuery): Op<EventList> {
      const room = yield* rooms.read(scope);
      if (room === null) return [];
      const rows = yield* page.all({
        room: room.room_id,
        since: query.sinceSeq ?? NO_LOWER,
        before: query.beforeSeq ?? NO_UPPER,
        sinceMs: query.sinceMs ?? -NO_UPPER,
        limit: query.limit,
      });
      const list: EventList = rows.map(toEvent);
      // The range asked for reaches below the oldest kept event: say where the log now starts.
      if (room.trimmed_seq > 0 && (query.sinceSeq ?? 0) < room.trimmed_seq) {
        list.trimmedBefore = trimmedBefore(room.trimmed_seq);
      }
      return list;
    },
    *readLog(scope: RoomScope, from: number, limit: number): Op<LogPage> {
      const room = yield* rooms.read(scope);
      if (room === null) return { events: [], head: 0, exists: false };
      return {
        events: (yield* after.all(room.room_id, from, limit)).map(toEvent),
        head: room.event_seq,
        exists: true,
      };
    },
    *consumeEvents(scope: RoomScope, agentId: string, limit: number): Op<UnreadBatch> {
      return yield* deliver(scope, yield* rooms.check(scope), agentId, limit);
    },
    *markEventRead(scope: RoomScope, id: string, agentId: string): Op<void> {
      const seq = yield* existingSeq(yield* rooms.check(scope), id);
      yield* rooms.claim(scope);
      yield* readInsert.run(scope.roomId, seq, agentId);
    },
    *getEventReads(scope: RoomScope, id: string): Op<string[]> {
      const seq = yield* existingSeq(yield* rooms.read(scope), id);
      return (yield* readList.all(scope.roomId, seq)).map((r) => r.agent_id);
    },
  };
}

export type Events = ReturnType<typeof createEvents>;
