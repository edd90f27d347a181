/**
 * The plan's lookups on SQLite (store/sql/parts.ts PlanGraph): each an indexed statement run when the rule asks
 * for it, so a check that stops early reads no more; depends_on lives inside each task's JSON (json_extract).
 */
import type { TaskStatus } from "../../protocol/records.ts";
import type { PlanGraph } from "../sql/parts.ts";
import { done, runSync, type SqlClient } from "../sql/run.ts";

export function createPlanGraph(sql: SqlClient): PlanGraph {
  const dependencies = sql.query<{ deps: string | null }, [string, string]>(
    "SELECT json_extract(json, '$.depends_on') AS deps FROM tasks WHERE room_id = ? AND id = ?",
  );
  const status = sql.query<{ status: TaskStatus }, [string, string]>(
    "SELECT json_extract(json, '$.status') AS status FROM tasks WHERE room_id = ? AND id = ?",
  );
  // O(tasks of the room): depends_on lives inside each task's JSON.
  const dependents = sql.query<{ id: string }, [string, string]>(
    `SELECT t.id FROM tasks t WHERE t.room_id = ?1 AND t.id <> ?2
     AND EXISTS (SELECT 1 FROM json_each(t.json, '$.depends_on') d WHERE d.value = ?2) ORDER BY t.n`,
  );

  return {
    statuses: (roomId) => done((id: string) => runSync(status.get(roomId, id))?.status),
    dependencies: (roomId) =>
      done((id: string) => {
        const row = runSync(dependencies.get(roomId, id));
        return row ? (JSON.parse(row.deps ?? "[]") as string[]) : undefined;
      }),
    *dependents(roomId, taskId) {
      return (yield* dependents.all(roomId, taskId)).map((r) => r.id);
    },
  };
}
