/**
 * The plan's dependency rules (protocol/plan-rules.ts) take synchronous lookups; the SQLite driver answers them
 * with one indexed statement each. Here each check first reads what it may look at in one statement: the tasks it
 * names, or, for the cycle check, every task (O(tasks of the room), only when a write adds dependencies).
 *
 * Stored JSON is decoded here, never with PostgreSQL's JSON operators: those refuse a document holding an escaped
 * U+0000 anywhere (text cannot hold it), and a task's description may.
 */
import type { Task, TaskStatus } from "../../protocol/records.ts";
import type { Pg } from "./db.ts";

interface GraphRow {
  id: string;
  json: string;
}

export function createPlanGraph(pg: Pg) {
  const named = pg.query<GraphRow, [string, string[]]>(
    "SELECT id, json FROM tasks WHERE room_id = ? AND id = ANY(?::text[])",
  );
  const every = pg.query<GraphRow, [string]>("SELECT id, json FROM tasks WHERE room_id = ?");
  const rowsOf = (rows: GraphRow[]) => new Map(rows.map((r) => [r.id, JSON.parse(r.json) as Task]));

  return {
    /** statusOf for the named tasks (undefined: no such task). */
    async statuses(roomId: string, ids: readonly string[]): Promise<(id: string) => TaskStatus | undefined> {
      const tasks = ids.length === 0 ? new Map<string, Task>() : rowsOf(await named.all(roomId, [...ids]));
      return (id) => tasks.get(id)?.status;
    },
    /** dependsOn over the whole plan (undefined: no such task), for the cycle check. */
    async dependencies(roomId: string): Promise<(id: string) => string[] | undefined> {
      const tasks = rowsOf(await every.all(roomId));
      return (id) => tasks.get(id)?.depends_on;
    },
  };
}

export type PlanGraph = ReturnType<typeof createPlanGraph>;
