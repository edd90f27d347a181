/**
 * Deleting a task and adding one dependency: the plan's rules (protocol/plan-rules.ts) inside one transaction. A
 * deleted task's lease goes with its row.
 */
import { errors } from "../../protocol/errors.ts";
import { checkDependencies, checkOwnership, checkStatus } from "../../protocol/plan-rules.ts";
import { BROADCAST, type Task } from "../../protocol/records.ts";
import { checkTaskVersion } from "../../protocol/task-rules.ts";
import { iso } from "../../protocol/time.ts";
import { toolErrors } from "../../protocol/tool-errors.ts";
import type { NewDependency, RoomScope, TaskDeletion } from "../types.ts";
import type { Events } from "./events.ts";
import type { Leases } from "./leases.ts";
import type { Locks } from "./locks.ts";
import type { SqlParts } from "./rooms.ts";
import type { Op } from "./run.ts";

export function createPlanEdits(
  { sql, now, rooms, dialect }: SqlParts,
  events: Events,
  locks: Locks,
  leases: Pick<Leases, "recordExpired">,
) {
  const { graph, search } = dialect;
  const get = sql.query<{ json: string }, [string, string]>(
    "SELECT json FROM tasks WHERE room_id = ? AND id = ?",
  );
  const remove = sql.query<unknown, [string, string]>("DELETE FROM tasks WHERE room_id = ? AND id = ?");
  const update = sql.query<unknown, [string, string, string]>(
    "UPDATE tasks SET json = ?1 WHERE room_id = ?2 AND id = ?3",
  );

  function* find(roomId: string, id: string): Op<Task> {
    const row = yield* get.get(roomId, id);
    if (!row) throw errors.taskNotFound(id);
    return JSON.parse(row.json);
  }

  /** Plan lock, existence, version, ownership: the checks every plan write makes first, in this order. */
  function* checked(scope: RoomScope, taskId: string, agentId?: string, expectedVersion?: number) {
    const room = yield* rooms.check(scope);
    if (!room) throw errors.taskNotFound(taskId);
    yield* locks.assertPlanWritable(room.room_id, agentId);
    // Like every plan write: leases that ran out are recorded first (a refusal rolls that back too).
    yield* leases.recordExpired(room.room_id);
    const task = yield* find(room.room_id, taskId);
    checkTaskVersion(task, expectedVersion);
    checkOwnership(task, agentId, expectedVersion);
    return { roomId: room.room_id, task };
  }

  return {
    *deleteTask(scope: RoomScope, input: TaskDeletion): Op<Task> {
      const { roomId, task } = yield* checked(scope, input.taskId, input.agentId, input.expectedVersion);
      const waiting = yield* graph.dependents(roomId, task.id);
      if (waiting.length > 0 && !input.force) throw toolErrors.hasDependents(task.id, waiting);
      yield* rooms.claim(scope);
      yield* remove.run(roomId, task.id);
      yield* search.drop(roomId, task.id);
      yield* rooms.taskMoved(roomId, task.status, null);
      yield* rooms.planChanged(roomId, now());
      yield* events.append(roomId, {
        type: "task_deleted",
        from: input.agentId ?? "system",
        to: BROADCAST,
        payload: { taskId: task.id, task, dependents: waiting },
      });
      return task;
    },
    *addDependency(scope: RoomScope, input: NewDependency): Op<Task> {
      const { roomId, task } = yield* checked(scope, input.taskId, input.agentId, input.expectedVersion);
      if (task.depends_on.includes(input.dependsOn)) return task;
      // Only the new dependency is checked: earlier ones were when they were set (one may have gone since).
      checkDependencies(task.id, [input.dependsOn], yield* graph.dependencies(roomId));
      const statusOf = yield* graph.statuses(roomId, [input.dependsOn]);
      checkStatus({ id: task.id, depends_on: [input.dependsOn] }, task.status, statusOf);
      const t = now();
      const next: Task = {
        ...task,
        depends_on: [...task.depends_on, input.dependsOn],
        version: task.version + 1,
        updated_at: iso(t),
      };
      yield* rooms.claim(scope);
      yield* update.run(JSON.stringify(next), roomId, task.id);
      yield* rooms.planChanged(roomId, t);
      yield* events.append(roomId, {
        type: "task_updated",
        from: input.agentId ?? "system",
        to: BROADCAST,
        payload: { task: next, previousStatus: task.status, changes: { depends_on: next.depends_on } },
      });
      return next;
    },
  };
}
