/**
 * Event retention on SQLite (store/move-types.ts EventRetention): each append trims the room's oldest events in
 * its own transaction — while the room keeps more than maxEvents, or while they are older than maxAgeMs — at most
 * TRIM_PER_APPEND of them (TRIM_INDEXED_PER_APPEND searchable ones), never the event just appended. With them go
 * their read receipts, first-delivery times, queued webhook deliveries and search documents; the per-recipient
 * count of trimmed events keeps `remaining` exact for cursors left behind (events.ts deliver).
 */
import type { Database } from "bun:sqlite";
import { eventId } from "../../protocol/event-rules.ts";
import { type EventRetention, TRIM_INDEXED_PER_APPEND, TRIM_PER_APPEND } from "../move-types.ts";

interface OldRow {
  seq: number;
  ts: number;
  to_agent: string;
  posted: number;
  deleted_by: string | null;
}

/** Rows of the room keyed by seq that go with their event. */
const BY_SEQ = ["events", "event_reads", "context_reads", "webhook_outbox"] as const;

export function createTrimmer(db: Database, retention: EventRetention) {
  const enabled = retention.maxEvents > 0 || retention.maxAgeMs > 0;
  const trimmedSeq = db.query<{ trimmed_seq: number }, [string]>(
    "SELECT trimmed_seq FROM rooms WHERE room_id = ?",
  );
  const oldest = db.query<OldRow, [string, number]>(
    "SELECT seq, ts, to_agent, posted, deleted_by FROM events WHERE room_id = ? AND seq > ? ORDER BY seq",
  );
  const drops = BY_SEQ.map((table) =>
    db.query<unknown, [string, number]>(`DELETE FROM ${table} WHERE room_id = ? AND seq <= ?`),
  );
  const unindex = db.query<unknown, [string, string]>(
    "DELETE FROM search_docs WHERE room_id = ? AND doc = ?",
  );
  const counted = db.query<unknown, [number, string, string]>(
    "UPDATE addr_counts SET trimmed = trimmed + ? WHERE room_id = ? AND to_agent = ?",
  );
  const setTrimmed = db.query<unknown, [number, string]>(
    "UPDATE rooms SET trimmed_seq = ? WHERE room_id = ?",
  );

  return {
    /** Trims what retention allows after event `head` was appended at `now`; returns how many went. */
    trim(roomId: string, head: number, now: number): number {
      if (!enabled) return 0;
      const from = trimmedSeq.get(roomId)?.trimmed_seq ?? 0;
      const byRecipient = new Map<string, number>();
      const docs: string[] = [];
      let last = from;
      for (const row of oldest.iterate(roomId, from)) {
        if (row.seq >= head || last - from >= TRIM_PER_APPEND) break;
        const tooMany = retention.maxEvents > 0 && head - row.seq >= retention.maxEvents;
        const tooOld = retention.maxAgeMs > 0 && row.ts < now - retention.maxAgeMs;
        if (!tooMany && !tooOld) break;
        const searchable = row.posted === 1 && row.deleted_by === null;
        if (searchable && docs.length >= TRIM_INDEXED_PER_APPEND) break;
        if (searchable) docs.push(eventId(row.seq));
        byRecipient.set(row.to_agent, (byRecipient.get(row.to_agent) ?? 0) + 1);
        last = row.seq;
      }
      if (last === from) return 0;
      for (const doc of docs) unindex.run(roomId, doc);
      for (const drop of drops) drop.run(roomId, last);
      for (const [to, n] of byRecipient) counted.run(n, roomId, to);
      setTrimmed.run(last, roomId);
      return last - from;
    },
  };
}

export type Trimmer = ReturnType<typeof createTrimmer>;
