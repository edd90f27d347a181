/**
 * Deleting a task and adding one dependency: the plan's rules (protocol/plan-rules.ts) inside one transaction. A
 * deleted task's lease goes with its row.
 */
import { errors } from "../../protocol/errors.ts";
import { checkDependencies, checkOwnership, checkStatus } from "../../protocol/plan-rules.ts";
import { BROADCAST, type Task, type TaskStatus } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import { toolErrors } from "../../protocol/tool-errors.ts";
import type { NewDependency, RoomScope, TaskDeletion } from "../types.ts";
import type { Events } from "./events.ts";
import type { Leases } from "./leases.ts";
import type { Locks } from "./locks.ts";
import type { StoreParts } from "./rooms.ts";
import type { Search } from "./search.ts";

export function createPlanEdits(
  { db, now, rooms }: StoreParts,
  events: Events,
  locks: Locks,
  search: Search,
  leases: Pick<Leases, "recordExpired">,
) {
  const get = db.query<{ json: string }, [string, string]>(
    "SELECT json FROM tasks WHERE room_id = ? AND id = ?",
  );
  const remove = db.query<unknown, [string, string]>("DELETE FROM tasks WHERE room_id = ? AND id = ?");
  const update = db.query<unknown, [string, string, string]>(
    "UPDATE tasks SET json = ?1 WHERE room_id = ?2 AND id = ?3",
  );
  // O(tasks of the room): depends_on lives inside each task's JSON.
  const dependents = db.query<{ id: string }, [string, string]>(
    `SELECT t.id FROM tasks t WHERE t.room_id = ?1 AND t.id <> ?2
     AND EXISTS (SELECT 1 FROM json_each(t.json, '$.depends_on') d WHERE d.value = ?2) ORDER BY t.n`,
  );

  const find = (roomId: string, id: string): Task => {
    const row = get.get(roomId, id);
    if (!row) throw errors.taskNotFound(id);
    return JSON.parse(row.json);
  };
  const dependsOn = (roomId: string) => (id: string) => {
    const row = get.get(roomId, id);
    return row ? (JSON.parse(row.json) as Task).depends_on : undefined;
  };
  const statusOf =
    (roomId: string) =>
    (id: string): TaskStatus | undefined => {
      const row = get.get(roomId, id);
      return row ? (JSON.parse(row.json) as Task).status : undefined;
    };

  /** Plan lock, existence, version, ownership: the checks every plan write makes first, in this order. */
  function checked(scope: RoomScope, taskId: string, agentId?: string, expectedVersion?: number) {
    const room = rooms.check(scope);
    if (!room) throw errors.taskNotFound(taskId);
    locks.assertPlanWritable(room.room_id, agentId);
    // Like every plan write: leases that ran out are recorded first (a refusal rolls that back too).
    leases.recordExpired(room.room_id);
    const task = find(room.room_id, taskId);
    if (expectedVersion !== undefined && expectedVersion !== task.version)
      throw errors.taskVersionConflict(task);
    checkOwnership(task, agentId, expectedVersion);
    return { roomId: room.room_id, task };
  }

  return {
    deleteTask(scope: RoomScope, input: TaskDeletion): Task {
      const { roomId, task } = checked(scope, input.taskId, input.agentId, input.expectedVersion);
      const waiting = dependents.all(roomId, task.id).map((r) => r.id);
      if (waiting.length > 0 && !input.force) throw toolErrors.hasDependents(task.id, waiting);
      rooms.claim(scope);
      remove.run(roomId, task.id);
      search.drop(roomId, task.id);
      rooms.taskMoved(roomId, task.status, null);
      rooms.planChanged(roomId, now());
      events.append(roomId, {
        type: "task_deleted",
        from: input.agentId ?? "system",
        to: BROADCAST,
        payload: { taskId: task.id, task, dependents: waiting },
      });
      return task;
    },
    addDependency(scope: RoomScope, input: NewDependency): Task {
      const { roomId, task } = checked(scope, input.taskId, input.agentId, input.expectedVersion);
      if (task.depends_on.includes(input.dependsOn)) return task;
      // Only the new dependency is checked: earlier ones were when they were set (one may have gone since).
      checkDependencies(task.id, [input.dependsOn], dependsOn(roomId));
      checkStatus({ id: task.id, depends_on: [input.dependsOn] }, task.status, statusOf(roomId));
      const t = now();
      const next: Task = {
        ...task,
        depends_on: [...task.depends_on, input.dependsOn],
        version: task.version + 1,
        updated_at: iso(t),
      };
      rooms.claim(scope);
      update.run(JSON.stringify(next), roomId, task.id);
      rooms.planChanged(roomId, t);
      events.append(roomId, {
        type: "task_updated",
        from: input.agentId ?? "system",
        to: BROADCAST,
        payload: { task: next, previousStatus: task.status, changes: { depends_on: next.depends_on } },
      });
      return next;
    },
  };
}
