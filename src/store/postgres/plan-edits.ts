/**
 * Deleting a task and adding one dependency, as the SQLite driver's (src/store/sqlite/plan-edits.ts): the plan's
 * rules inside one transaction. A deleted task's lease goes with its row.
 */
import { errors } from "../../protocol/errors.ts";
import { checkDependencies, checkOwnership, checkStatus } from "../../protocol/plan-rules.ts";
import { BROADCAST, type Task } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import { toolErrors } from "../../protocol/tool-errors.ts";
import type { NewDependency, RoomScope, TaskDeletion } from "../types.ts";
import type { Events } from "./events.ts";
import type { Leases } from "./leases.ts";
import type { Locks } from "./locks.ts";
import { createPlanGraph } from "./plan-graph.ts";
import type { StoreParts } from "./rooms.ts";
import type { Search } from "./search.ts";

export function createPlanEdits(
  { pg, now, rooms }: StoreParts,
  events: Events,
  locks: Locks,
  search: Search,
  leases: Pick<Leases, "recordExpired">,
) {
  const get = pg.query<{ json: string }, [string, string]>(
    "SELECT json FROM tasks WHERE room_id = ? AND id = ?",
  );
  const remove = pg.query<unknown, [string, string]>("DELETE FROM tasks WHERE room_id = ? AND id = ?");
  const update = pg.query<unknown, [string, string, string]>(
    "UPDATE tasks SET json = ?1 WHERE room_id = ?2 AND id = ?3",
  );
  // O(tasks of the room): depends_on lives inside each task's JSON (decoded here: see plan-graph.ts).
  const others = pg.query<{ id: string; json: string }, [string, string]>(
    "SELECT id, json FROM tasks WHERE room_id = ? AND id <> ? ORDER BY n",
  );
  const graph = createPlanGraph(pg);

  const find = async (roomId: string, id: string): Promise<Task> => {
    const row = await get.get(roomId, id);
    if (!row) throw errors.taskNotFound(id);
    return JSON.parse(row.json);
  };

  /** Plan lock, existence, version, ownership: the checks every plan write makes first, in this order. */
  async function checked(scope: RoomScope, taskId: string, agentId?: string, expectedVersion?: number) {
    const room = await rooms.check(scope);
    if (!room) throw errors.taskNotFound(taskId);
    await locks.assertPlanWritable(room.room_id, agentId);
    // Like every plan write: leases that ran out are recorded first (a refusal rolls that back too).
    await leases.recordExpired(room.room_id);
    const task = await find(room.room_id, taskId);
    if (expectedVersion !== undefined && expectedVersion !== task.version)
      throw errors.taskVersionConflict(task);
    checkOwnership(task, agentId, expectedVersion);
    return { roomId: room.room_id, task };
  }

  return {
    async deleteTask(scope: RoomScope, input: TaskDeletion): Promise<Task> {
      const { roomId, task } = await checked(scope, input.taskId, input.agentId, input.expectedVersion);
      const waiting = (await others.all(roomId, task.id))
        .filter((r) => (JSON.parse(r.json) as Task).depends_on.includes(task.id))
        .map((r) => r.id);
      if (waiting.length > 0 && !input.force) throw toolErrors.hasDependents(task.id, waiting);
      await rooms.claim(scope);
      await remove.run(roomId, task.id);
      await search.drop(roomId, task.id);
      await rooms.taskMoved(roomId, task.status, null);
      await rooms.planChanged(roomId, now());
      await events.append(roomId, {
        type: "task_deleted",
        from: input.agentId ?? "system",
        to: BROADCAST,
        payload: { taskId: task.id, task, dependents: waiting },
      });
      return task;
    },
    async addDependency(scope: RoomScope, input: NewDependency): Promise<Task> {
      const { roomId, task } = await checked(scope, input.taskId, input.agentId, input.expectedVersion);
      if (task.depends_on.includes(input.dependsOn)) return task;
      // Only the new dependency is checked: earlier ones were when they were set (one may have gone since).
      checkDependencies(task.id, [input.dependsOn], await graph.dependencies(roomId));
      const statusOf = await graph.statuses(roomId, [input.dependsOn]);
      checkStatus({ id: task.id, depends_on: [input.dependsOn] }, task.status, statusOf);
      const t = now();
      const next: Task = {
        ...task,
        depends_on: [...task.depends_on, input.dependsOn],
        version: task.version + 1,
        updated_at: iso(t),
      };
      await rooms.claim(scope);
      await update.run(JSON.stringify(next), roomId, task.id);
      await rooms.planChanged(roomId, t);
      await events.append(roomId, {
        type: "task_updated",
        from: input.agentId ?? "system",
        to: BROADCAST,
        payload: { task: next, previousStatus: task.status, changes: { depends_on: next.depends_on } },
      });
      return next;
    },
  };
}
