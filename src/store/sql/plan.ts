/** The plan: tasks in creation order, each stored as its Task JSON plus the columns queries filter on. */
import { errors } from "../../protocol/errors.ts";
import { effectiveTask, keepsLease } from "../../protocol/leases.ts";
import {
  checkDependencies,
  checkKnown,
  checkOwnership,
  checkStatus,
  uniqueDependencies,
} from "../../protocol/plan-rules.ts";
import { BROADCAST, type Plan, type Task } from "../../protocol/records.ts";
import { checkTaskVersion, newTask, revisedTask, taskChanges } from "../../protocol/task-rules.ts";
import { iso } from "../../protocol/time.ts";
import type { NewTask, RoomScope, TaskUpdate } from "../types.ts";
import type { Events } from "./events.ts";
import type { Leases } from "./leases.ts";
import type { Locks } from "./locks.ts";
import type { RoomRow, SqlParts } from "./rooms.ts";
import type { Op } from "./run.ts";
import { createTaskCache, type PlanRow } from "./task-cache.ts";

const parse = (row: { json: string }): Task => JSON.parse(row.json);

/** The task rows written since a revision of the plan: a range of the (room_id, rev) index (task-cache.ts). */
export const PLAN_WRITTEN_SINCE_SQL = "SELECT id, n, json FROM tasks WHERE room_id = ? AND rev > ?";

/** An agent's own tasks in plan order: a range of the (room_id, owner, n) index. */
export const OWNED_TASKS_SQL = "SELECT id, json FROM tasks WHERE room_id = ? AND owner = ? ORDER BY n";

export function createPlan(
  { sql, now, rooms, dialect }: SqlParts,
  events: Events,
  locks: Locks,
  leases: Leases,
) {
  const { graph } = dialect;
  const insert = sql.query<unknown, [string, string, number, string]>(
    "INSERT INTO tasks (room_id, id, n, owner, json) VALUES (?1, ?2, ?3, NULL, ?4)",
  );
  const get = sql.query<{ json: string }, [string, string]>(
    "SELECT json FROM tasks WHERE room_id = ? AND id = ?",
  );
  const whole = sql.query<PlanRow, [string]>("SELECT id, n, json FROM tasks WHERE room_id = ? ORDER BY n");
  const writtenSince = sql.query<PlanRow, [string, number]>(PLAN_WRITTEN_SINCE_SQL);
  const owned = sql.query<{ id: string; json: string }, [string, string]>(OWNED_TASKS_SQL);
  // Reads decode through the cache (frozen records, serialised once); writes decode their own copy.
  const cache = createTaskCache();

  /**
   * The room's tasks in plan order as this read sees them (task-cache.ts): the kept plan when the room's revision is
   * the one kept, else the rows written since it, else every row. For read bodies only: a plan is kept only from
   * what a read transaction saw, never from a write's uncommitted rows.
   */
  function* planOf(room: RoomRow): Op<readonly Task[]> {
    const { room_id: roomId, plan_base: base, plan_rev: rev } = room;
    const kept = cache.plan(roomId, base, rev);
    if (kept) return kept;
    const from = cache.since(roomId, base);
    if (from !== null && from < rev) {
      const rows = yield* writtenSince.all(roomId, from);
      // Another read may have moved the kept plan while this one waited for its rows (PostgreSQL).
      const moved = cache.keepSince(roomId, base, from, rev, rows);
      if (moved) return moved;
    }
    return cache.keepWhole(roomId, base, rev, yield* whole.all(roomId));
  }

  function* find(roomId: string, taskId: string): Op<Task> {
    const row = yield* get.get(roomId, taskId);
    if (!row) throw errors.taskNotFound(taskId);
    return parse(row);
  }

  return {
    /** Tasks owned by agentId in plan order, as reads show them (a lease that ran out is no longer its). */
    *myTasks(roomId: string, agentId: string): Op<Task[]> {
      const t = now();
      return (yield* owned.all(roomId, agentId))
        .map((row) => effectiveTask(cache.decode(roomId, row), t))
        .filter((task) => task.owner === agentId);
    },
    *readPlan(scope: RoomScope): Op<Plan> {
      const room = yield* rooms.read(scope);
      if (!room) return { project: scope.roomId, created_at: null, updated_at: null, tasks: [] };
      const tasks = yield* planOf(room);
      const t = now();
      return {
        project: scope.roomId,
        created_at: room.plan_created_at === null ? null : iso(room.plan_created_at),
        updated_at: room.plan_updated_at === null ? null : iso(room.plan_updated_at),
        tasks: tasks.map((task) => effectiveTask(task, t)),
      };
    },
    *getTask(scope: RoomScope, taskId: string): Op<Task> {
      const room = yield* rooms.read(scope);
      if (!room) throw errors.taskNotFound(taskId);
      // The kept plan answers when it is the room's revision (found or not); else the row is read.
      const kept = cache.task(room.room_id, room.plan_base, room.plan_rev, taskId);
      if (kept === null) throw errors.taskNotFound(taskId);
      if (kept !== undefined) return effectiveTask(kept, now());
      const row = yield* get.get(room.room_id, taskId);
      if (!row) throw errors.taskNotFound(taskId);
      return effectiveTask(cache.decode(room.room_id, { id: taskId, json: row.json }), now());
    },
    *addTask(scope: RoomScope, input: NewTask): Op<Task> {
      const room = yield* rooms.check(scope);
      if (room) yield* locks.assertPlanWritable(scope.roomId, input.agentId);
      if (room) yield* leases.recordExpired(room.room_id);
      const deps = uniqueDependencies(input.depends_on);
      // A new task cannot close a cycle (nothing depends on it yet); only unknown ids are refused.
      const known = room ? yield* graph.statuses(room.room_id, deps) : () => undefined;
      checkKnown(deps, (id) => known(id) !== undefined);
      yield* rooms.claim(scope);
      const n = yield* rooms.next(scope.roomId, "task_n");
      const t = now();
      const task = newTask(n, input, deps, t);
      yield* insert.run(scope.roomId, task.id, n, JSON.stringify(task));
      yield* rooms.taskMoved(scope.roomId, null, task.status);
      yield* rooms.planChanged(scope.roomId, t);
      yield* events.append(scope.roomId, {
        type: "task_added",
        from: input.agentId ?? "system",
        to: BROADCAST,
        payload: { task },
      });
      return task;
    },
    *updateTask(scope: RoomScope, input: TaskUpdate): Op<Task> {
      const room = yield* rooms.check(scope);
      if (!room) throw errors.taskNotFound(input.taskId);
      // Lock first, then existence, then version: the same order as the Redis script.
      yield* locks.assertPlanWritable(room.room_id, input.agentId);
      yield* leases.recordExpired(room.room_id);
      const previous = yield* find(room.room_id, input.taskId);
      checkTaskVersion(previous, input.expectedVersion);
      checkOwnership(previous, input.agentId, input.expectedVersion);
      const deps =
        input.depends_on === undefined ? previous.depends_on : uniqueDependencies(input.depends_on);
      if (input.depends_on !== undefined) {
        checkDependencies(previous.id, deps, yield* graph.dependencies(room.room_id));
      }
      const next = input.status ?? previous.status;
      // Moving to (or staying in) in_progress/done needs every dependency done; checked when either changes.
      if (input.status !== undefined || input.depends_on !== undefined) {
        checkStatus({ id: previous.id, depends_on: deps }, next, yield* graph.statuses(room.room_id, deps));
      }
      const changes = taskChanges(input, deps);
      const t = now();
      const lease = previous.lease_expires_at;
      const owner = input.owner !== undefined ? input.owner : previous.owner;
      // The lease ends when the task leaves its holder or becomes done or pending (protocol/leases.ts).
      const leaseMs =
        lease !== undefined && keepsLease(previous, owner, next)
          ? yield* leases.leaseMsOf(room.room_id, previous.id)
          : null;
      const task = revisedTask(previous, input, deps, leaseMs, t);
      yield* rooms.claim(scope);
      yield* leases.store(room.room_id, task, leaseMs);
      if (task.status !== previous.status) yield* rooms.taskMoved(room.room_id, previous.status, task.status);
      yield* rooms.planChanged(room.room_id, t);
      yield* events.append(room.room_id, {
        type: "task_updated",
        from: input.agentId ?? "system",
        to: BROADCAST,
        payload: { task, previousStatus: previous.status, changes },
      });
      return task;
    },
  };
}

export type PlanOps = ReturnType<typeof createPlan>;
