/**
 * Row shapes and their records, shared with SQLite (store/sql-rows.ts), with the event columns written
 * for PostgreSQL (read_by as a JSON array in insertion order, json_agg instead of json_group_array).
 */
import { BROADCAST } from "../../protocol/records.ts";

export * from "../sql-rows.ts";

/** Column list that yields an EventRow from `events e`; read_by is a correlated subquery in insertion order. */
export const EVENT_COLUMNS = `e.seq, e.type, e.from_agent, e.to_agent, e.ts, e.payload, e.reply_to, e.deleted_by,
  e.deleted_at,
  coalesce((SELECT json_agg(r.agent_id ORDER BY r.rowid) FROM event_reads r
            WHERE r.room_id = e.room_id AND r.seq = e.seq)::text, '[]') AS read_by`;

export { BROADCAST };
