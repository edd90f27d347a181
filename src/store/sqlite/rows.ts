/** SQLite's event columns; the row shapes and their records are shared with PostgreSQL (store/sql-rows.ts). */
export * from "../sql-rows.ts";

/**
 * Column list that yields an EventRow from `events e`; read_by is a correlated subquery in rowid order, run only
 * for events someone marked read (one index probe otherwise: the ordered subquery cost ~1.5 µs per event).
 */
export const EVENT_COLUMNS = `e.seq, e.type, e.from_agent, e.to_agent, e.ts, e.payload, e.reply_to, e.deleted_by,
  e.deleted_at,
  CASE WHEN EXISTS (SELECT 1 FROM event_reads r WHERE r.room_id = e.room_id AND r.seq = e.seq)
    THEN (SELECT json_group_array(agent_id) FROM
            (SELECT agent_id FROM event_reads r WHERE r.room_id = e.room_id AND r.seq = e.seq ORDER BY r.rowid))
    ELSE '[]' END AS read_by`;
