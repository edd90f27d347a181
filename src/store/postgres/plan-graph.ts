/**
 * The plan's lookups on PostgreSQL (store/sql/parts.ts PlanGraph): each check first reads what it may look at in
 * one statement — the tasks it names, or, for the cycle check, every task (O(tasks of the room), only when a write
 * adds dependencies). Stored JSON is decoded here, never with PostgreSQL's JSON operators: those refuse a document
 * holding an escaped U+0000 anywhere (text cannot hold it), and a task's description may.
 */
import type { Task } from "../../protocol/records.ts";
import type { PlanGraph } from "../sql/parts.ts";
import type { SqlClient } from "../sql/run.ts";

interface GraphRow {
  id: string;
  json: string;
}

export function createPlanGraph(sql: SqlClient): PlanGraph {
  const named = sql.query<GraphRow, [string, string[]]>(
    "SELECT id, json FROM tasks WHERE room_id = ? AND id = ANY(?::text[])",
  );
  const every = sql.query<GraphRow, [string]>("SELECT id, json FROM tasks WHERE room_id = ?");
  const others = sql.query<GraphRow, [string, string]>(
    "SELECT id, json FROM tasks WHERE room_id = ? AND id <> ? ORDER BY n",
  );
  const rowsOf = (rows: GraphRow[]) => new Map(rows.map((r) => [r.id, JSON.parse(r.json) as Task]));

  return {
    *statuses(roomId, ids) {
      const tasks = ids.length === 0 ? new Map<string, Task>() : rowsOf(yield* named.all(roomId, [...ids]));
      return (id) => tasks.get(id)?.status;
    },
    *dependencies(roomId) {
      const tasks = rowsOf(yield* every.all(roomId));
      return (id) => tasks.get(id)?.depends_on;
    },
    *dependents(roomId, taskId) {
      return (yield* others.all(roomId, taskId))
        .filter((r) => (JSON.parse(r.json) as Task).depends_on.includes(taskId))
        .map((r) => r.id);
    },
  };
}
