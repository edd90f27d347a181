/**
 * A search hit's record: the title and fields of a document from the record it indexes (a task, a context entry
 * or a posted event), as both SQL drivers' search reads them for snippets (sqlite/search.ts, postgres/search.ts).
 */
import { eventSeq } from "../../protocol/event-rules.ts";
import type { ContextEntry, Task } from "../../protocol/records.ts";
import { contextFields, eventFields, kindOf, type SearchFields, taskFields } from "../../protocol/search.ts";
import { type EventRow, toEvent } from "./rows.ts";
import type { Op, SqlClient } from "./run.ts";

export function createSearchRecords(sql: SqlClient) {
  const task = sql.query<{ json: string }, [string, string]>(
    "SELECT json FROM tasks WHERE room_id = ? AND id = ?",
  );
  const entry = sql.query<{ json: string }, [string, string]>(
    "SELECT json FROM contexts WHERE room_id = ? AND id = ?",
  );
  // Read receipts play no part in the index.
  const event = sql.query<EventRow, [string, number]>(
    `SELECT e.seq, e.type, e.from_agent, e.to_agent, e.ts, e.payload, e.reply_to, e.deleted_by, e.deleted_at,
       '[]' AS read_by FROM events e WHERE e.room_id = ? AND e.seq = ?`,
  );

  /** Title and fields of a document, from its record (null when the record is gone: never, inside one transaction). */
  return function* record(roomId: string, id: string): Op<{ title: string; fields: SearchFields } | null> {
    const kind = kindOf(id);
    if (kind === "task") {
      const row = yield* task.get(roomId, id);
      if (!row) return null;
      const t = JSON.parse(row.json) as Task;
      return { title: t.title, fields: taskFields(t) };
    }
    if (kind === "context") {
      const row = yield* entry.get(roomId, id);
      if (!row) return null;
      const e = JSON.parse(row.json) as ContextEntry;
      return { title: e.summary, fields: contextFields(e) };
    }
    const seq = eventSeq(id);
    const row = seq === null ? null : yield* event.get(roomId, seq);
    if (!row) return null;
    const e = toEvent(row);
    return { title: e.type, fields: eventFields(e) };
  };
}
