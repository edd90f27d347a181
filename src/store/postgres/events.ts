/**
 * The event log, as the SQLite driver's (src/store/sqlite/events.ts): append with seq = event_seq + 1 (the room's
 * lock makes it gap-free), paged reads, exactly-once delivery through cursors in O(log n + k), and the webhook
 * outbox filled by the append itself; event retention trims the oldest events inside the append (retention.ts).
 */
import { errors } from "../../protocol/errors.ts";
import { BROADCAST, type RoomEvent, type UnreadBatch } from "../../protocol/records.ts";
import { type EventRetention, NO_RETENTION } from "../move-types.ts";
import type { EventList, EventQuery, LogPage, NewEvent, RoomScope } from "../types.ts";
import { createTrimmer } from "./retention.ts";
import type { RoomRow, StoreParts } from "./rooms.ts";
import {
  type AddressedCounts,
  type CursorRow,
  EVENT_COLUMNS,
  type EventRow,
  eventSeq,
  NO_LOWER,
  NO_UPPER,
  standingOf,
  toEvent,
  trimmedBefore,
} from "./rows.ts";

/** The next `$limit` events addressed to "all" or to `$agent` after seq `$after`: two index range scans, merged. */
export const ADDRESSED_SQL = `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.room_id = $room AND e.seq IN (
  SELECT seq FROM (SELECT seq FROM events WHERE room_id = $room AND to_agent = '${BROADCAST}' AND seq > $after
                   ORDER BY seq LIMIT $limit) a
  UNION ALL
  SELECT seq FROM (SELECT seq FROM events WHERE room_id = $room AND to_agent = $agent AND seq > $after
                     AND $agent <> '${BROADCAST}' ORDER BY seq LIMIT $limit) b
) ORDER BY e.seq LIMIT $limit`;

export function createEvents(
  { pg, now, rooms, changes }: StoreParts,
  retention: EventRetention = NO_RETENTION,
) {
  const trimmer = createTrimmer(pg, retention);
  const insert = pg.query<unknown, [string, number, string, string, string, number, string, string | null]>(
    `INSERT INTO events (room_id, seq, type, from_agent, to_agent, ts, payload, reply_to)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const exists = pg.query<{ seq: number }, [string, number]>(
    "SELECT seq FROM events WHERE room_id = ? AND seq = ?",
  );
  const page = pg.query<
    EventRow,
    [{ room: string; since: number; before: number; sinceMs: number; limit: number }]
  >(
    `SELECT ${EVENT_COLUMNS} FROM events e
     WHERE e.room_id = $room AND e.seq > $since AND e.seq < $before AND e.ts > $sinceMs
     ORDER BY e.seq DESC LIMIT $limit`,
  );
  const addressed = pg.query<EventRow, [{ room: string; after: number; agent: string; limit: number }]>(
    ADDRESSED_SQL,
  );
  // How many events were ever addressed to "all" and to the agent; `remaining` is that minus what it consumed.
  // `trimmed` of them went by retention: a cursor behind the trimmed range has (in effect) consumed those.
  const addressedTotal = pg.query<AddressedCounts, [{ room: string; agent: string }]>(
    `SELECT coalesce(sum(n), 0) AS n, coalesce(sum(trimmed), 0) AS trimmed FROM addr_counts
     WHERE room_id = $room AND to_agent IN ('${BROADCAST}', $agent)`,
  );
  const countTo = pg.query<unknown, [string, string]>(
    `INSERT INTO addr_counts (room_id, to_agent, n) VALUES (?1, ?2, 1)
     ON CONFLICT (room_id, to_agent) DO UPDATE SET n = addr_counts.n + 1`,
  );
  const cursorGet = pg.query<CursorRow, [string, string]>(
    "SELECT seq, delivered FROM cursors WHERE room_id = ? AND agent_id = ?",
  );
  const cursorSet = pg.query<unknown, [string, string, number, number]>(
    `INSERT INTO cursors (room_id, agent_id, seq, delivered) VALUES (?1, ?2, ?3, ?4)
     ON CONFLICT (room_id, agent_id) DO UPDATE SET seq = excluded.seq, delivered = excluded.delivered`,
  );
  const after = pg.query<EventRow, [string, number, number]>(
    `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.room_id = ? AND e.seq > ? ORDER BY e.seq LIMIT ?`,
  );
  const readInsert = pg.query<unknown, [string, number, string]>(
    "INSERT INTO event_reads (room_id, seq, agent_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
  );
  const readList = pg.query<{ agent_id: string }, [string, number]>(
    "SELECT agent_id FROM event_reads WHERE room_id = ? AND seq = ? ORDER BY rowid",
  );
  // The outbox: one delivery per matching active webhook of the room, in the append's own transaction.
  const enqueue = pg.query<unknown, [{ room: string; seq: number; type: string; now: number }]>(
    `INSERT INTO webhook_outbox (room_id, seq, webhook_id, attempt, due_at)
     SELECT room_id, $seq, webhook_id, 1, $now FROM webhooks w
     WHERE w.room_id = $room AND w.active = 1
       AND (w.types = '[]' OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(w.types::jsonb) t WHERE t = $type))`,
  );

  async function existingSeq(room: RoomRow | null, id: string): Promise<number> {
    const seq = eventSeq(id);
    if (room === null || seq === null || !(await exists.get(room.room_id, seq)))
      throw errors.eventNotFound(id);
    return seq;
  }

  /** Appends an event to a claimed room (inside its write); the seq is exactly the previous one + 1. */
  async function append(roomId: string, input: NewEvent): Promise<RoomEvent> {
    const seq = await rooms.next(roomId, "event_seq");
    const ts = now();
    const reply = input.replyToId ?? null;
    const payload = JSON.stringify(input.payload ?? {});
    await insert.run(roomId, seq, input.type, input.from, input.to, ts, payload, reply);
    await countTo.run(roomId, input.to);
    await enqueue.run({ room: roomId, seq, type: input.type, now: ts });
    await trimmer.trim(roomId, seq, ts);
    changes.appended(roomId, seq);
    const row = { seq, type: input.type, from_agent: input.from, to_agent: input.to, ts, payload };
    return toEvent({ ...row, reply_to: reply, read_by: "[]" });
  }

  /** Where the agent stands in the log (sql-rows.ts standingOf). */
  async function standing(room: RoomRow, agentId: string) {
    return standingOf(
      room,
      await cursorGet.get(room.room_id, agentId),
      await addressedTotal.get({ room: room.room_id, agent: agentId }),
    );
  }

  /**
   * Delivers up to `limit` addressed events after the agent's cursor and moves the cursor, claiming the room only
   * when something is delivered (unless the caller already did). Runs inside the caller's write transaction, which
   * holds the room's lock: that makes delivery exactly-once across processes. A cursor behind the trimmed range
   * carries on from the oldest kept event, and the batch says trimmedBefore.
   */
  async function deliver(
    scope: RoomScope,
    room: RoomRow | null,
    agentId: string,
    limit: number,
    claimed = false,
  ): Promise<UnreadBatch> {
    if (room === null) return { events: [], cursor: null, count: 0, remaining: 0 };
    const at = await standing(room, agentId);
    const trimmed = at.trimmedBefore === undefined ? {} : { trimmedBefore: at.trimmedBefore };
    const rows = await addressed.all({ room: room.room_id, after: at.after, agent: agentId, limit });
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
    if (!claimed) await rooms.claim(scope);
    await cursorSet.run(room.room_id, agentId, last.seq, delivered);
    return {
      events: rows.map(toEvent),
      cursor: last.seq,
      count: rows.length,
      remaining: at.total - delivered,
      ...trimmed,
    };
  }

  /** Addressed events the agent has not consumed yet (the bridge's digest). */
  async function unread(room: RoomRow, agentId: string): Promise<number> {
    const at = await standing(room, agentId);
    return Math.max(0, at.total - at.consumed);
  }

  return {
    append,
    deliver,
    unread,
    existingSeq,
    async postEvent(scope: RoomScope, input: NewEvent): Promise<RoomEvent> {
      const room = await rooms.check(scope);
      if (input.replyToId !== undefined) await existingSeq(room, input.replyToId);
      await rooms.claim(scope);
      return append(scope.roomId, input);
    },
    async readEvents(scope: RoomScope, query: EventQuery): Promise<EventList> {
      const room = await rooms.read(scope);
      if (room === null) return [];
      const rows = await page.all({
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
    async readLog(scope: RoomScope, from: number, limit: number): Promise<LogPage> {
      const room = await rooms.read(scope);
      if (room === null) return { events: [], head: 0, exists: false };
      return {
        events: (await after.all(room.room_id, from, limit)).map(toEvent),
        head: room.event_seq,
        exists: true,
      };
    },
    async consumeEvents(scope: RoomScope, agentId: string, limit: number): Promise<UnreadBatch> {
      return deliver(scope, await rooms.check(scope), agentId, limit);
    },
    async markEventRead(scope: RoomScope, id: string, agentId: string): Promise<void> {
      const seq = await existingSeq(await rooms.check(scope), id);
      await rooms.claim(scope);
      await readInsert.run(scope.roomId, seq, agentId);
    },
    async getEventReads(scope: RoomScope, id: string): Promise<string[]> {
      const seq = await existingSeq(await rooms.read(scope), id);
      return (await readList.all(scope.roomId, seq)).map((r) => r.agent_id);
    },
  };
}

export type Events = ReturnType<typeof createEvents>;
