/**
 * Event retention on PostgreSQL, as the SQLite driver's (src/store/sqlite/retention.ts; store/move-types.ts
 * EventRetention): each append trims the room's oldest events in its own transaction — while the room keeps more
 * than maxEvents, or while they are older than maxAgeMs — at most TRIM_PER_APPEND of them (TRIM_INDEXED_PER_APPEND
 * searchable ones), never the event just appended. With them go their read receipts, first-delivery times, queued
 * webhook deliveries and search documents; the per-recipient count of trimmed events keeps `remaining` exact for
 * cursors left behind (events.ts deliver).
 *
 * Cost per append with retention on: one statement reading the trimmable prefix of the log (an index range of at
 * most TRIM_PER_APPEND rows, of which only the trimmable ones are sent), and, when something goes, one statement
 * deleting it all and keeping the counts. Without retention: nothing.
 */

import { eventId } from "../../protocol/event-rules.ts";
import { type EventRetention, TRIM_INDEXED_PER_APPEND, TRIM_PER_APPEND } from "../move-types.ts";
import type { Op, SqlClient } from "../sql/run.ts";

interface OldRow {
  seq: number;
  to_agent: string;
  posted: number;
  deleted_by: string | null;
}

export function createTrimmer(sql: SqlClient, retention: EventRetention) {
  const enabled = retention.maxEvents > 0 || retention.maxAgeMs > 0;
  // The oldest events (every seq at or below rooms.trimmed_seq is gone already), up to the first one retention
  // keeps: those the bounds let go, oldest first.
  const trimmable = sql.query<
    OldRow,
    [{ room: string; head: number; now: number; max: number; age: number; limit: number }]
  >(
    `WITH c AS (
       SELECT seq, to_agent, posted, deleted_by,
         (($max::bigint > 0 AND $head::bigint - seq >= $max::bigint)
           OR ($age::bigint > 0 AND ts < $now::bigint - $age::bigint)) AS due
       FROM events WHERE room_id = $room AND seq < $head::bigint ORDER BY seq LIMIT $limit::bigint)
     SELECT seq, to_agent, posted, deleted_by FROM c
     WHERE seq < coalesce((SELECT min(seq) FROM c WHERE NOT due), $head::bigint) ORDER BY seq`,
  );
  // Everything that goes with the events up to ?2, the counts of trimmed events per recipient (?4, ?5) and the
  // room's trimmed_seq, in one statement.
  const drop = sql.query<unknown, [string, number, string[], string[], number[]]>(
    `WITH st AS (DELETE FROM search_terms WHERE room_id = ?1 AND doc = ANY(?3::text[])),
       sd AS (DELETE FROM search_docs WHERE room_id = ?1 AND doc = ANY(?3::text[])),
       er AS (DELETE FROM event_reads WHERE room_id = ?1 AND seq <= ?2),
       cr AS (DELETE FROM context_reads WHERE room_id = ?1 AND seq <= ?2),
       wo AS (DELETE FROM webhook_outbox WHERE room_id = ?1 AND seq <= ?2),
       ev AS (DELETE FROM events WHERE room_id = ?1 AND seq <= ?2),
       ac AS (UPDATE addr_counts a SET trimmed = a.trimmed + x.n
              FROM unnest(?4::text[], ?5::bigint[]) AS x(to_agent, n)
              WHERE a.room_id = ?1 AND a.to_agent = x.to_agent)
     UPDATE rooms SET trimmed_seq = ?2 WHERE room_id = ?1`,
  );

  return {
    /** Trims what retention allows after event `head` was appended at `now`; returns how many went. */
    *trim(roomId: string, head: number, now: number): Op<number> {
      if (!enabled) return 0;
      const rows = yield* trimmable.all({
        room: roomId,
        head,
        now,
        max: retention.maxEvents,
        age: retention.maxAgeMs,
        limit: TRIM_PER_APPEND,
      });
      const byRecipient = new Map<string, number>();
      const docs: string[] = [];
      let last = 0;
      let count = 0;
      for (const row of rows) {
        const searchable = row.posted === 1 && row.deleted_by === null;
        if (searchable && docs.length >= TRIM_INDEXED_PER_APPEND) break;
        if (searchable) docs.push(eventId(row.seq));
        byRecipient.set(row.to_agent, (byRecipient.get(row.to_agent) ?? 0) + 1);
        last = row.seq;
        count += 1;
      }
      if (count === 0) return 0;
      yield* drop.run(roomId, last, docs, [...byRecipient.keys()], [...byRecipient.values()]);
      return count;
    },
  };
}

export type Trimmer = ReturnType<typeof createTrimmer>;
