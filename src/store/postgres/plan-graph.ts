/**
 * The plan's dependency rules (protocol/plan-rules.ts) take synchronous lookups; the SQLite driver answers them
 * with one indexed statement each. Here each check first reads what it may look at in one statement: the statuses
 * of the tasks it names, or, for the cycle check, every task's dependencies (O(tasks of the room), only when a
 * write adds dependencies).
 */
import type { TaskStatus } from "../../protocol/records.ts";
import type { Pg } from "./db.ts";

interface GraphRow {
  id: string;
  deps: string | null;
  status: TaskStatus;
}

export function createPlanGraph(pg: Pg) {
  const named = pg.query<GraphRow, [string, string[]]>(
    `SELECT id, (json::json->'depends_on')::text AS deps, json::json->>'status' AS status FROM tasks
     WHERE room_id = ? AND id = ANY(?::text[])`,
  );
  const every = pg.query<GraphRow, [string]>(
    "SELECT id, (json::json->'depends_on')::text AS deps, json::json->>'status' AS status FROM tasks WHERE room_id = ?",
  );
  const rowsOf = (rows: GraphRow[]) => new Map(rows.map((r) => [r.id, r]));

  return {
    /** statusOf for the named tasks (undefined: no such task). */
    async statuses(roomId: string, ids: readonly string[]): Promise<(id: string) => TaskStatus | undefined> {
      const rows = ids.length === 0 ? new Map<string, GraphRow>() : rowsOf(await named.all(roomId, [...ids]));
      return (id) => rows.get(id)?.status;
    },
    /** dependsOn over the whole plan (undefined: no such task), for the cycle check. */
    async dependencies(roomId: string): Promise<(id: string) => string[] | undefined> {
      const rows = rowsOf(await every.all(roomId));
      return (id) => {
        const row = rows.get(id);
        return row ? (JSON.parse(row.deps ?? "[]") as string[]) : undefined;
      };
    },
  };
}

export type PlanGraph = ReturnType<typeof createPlanGraph>;
