/** The plan, as the SQLite driver's (src/store/sqlite/plan.ts): tasks in creation order, each its Task JSON. */
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
import { iso } from "../../protocol/time.ts";
import { newTask, revisedTask, taskChanges } from "../sql-records.ts";
import type { NewTask, RoomScope, TaskUpdate } from "../types.ts";
import type { Events } from "./events.ts";
import type { Leases } from "./leases.ts";
import type { Locks } from "./locks.ts";
import { createPlanGraph } from "./plan-graph.ts";
import type { StoreParts } from "./rooms.ts";

const parse = (row: { json: string }): Task => JSON.parse(row.json);

export function createPlan({ pg, now, rooms }: StoreParts, events: Events, locks: Locks, leases: Leases) {
  const insert = pg.query<unknown, [string, string, number, string]>(
    "INSERT INTO tasks (room_id, id, n, owner, json) VALUES (?1, ?2, ?3, NULL, ?4)",
  );
  const get = pg.query<{ json: string }, [string, string]>(
    "SELECT json FROM tasks WHERE room_id = ? AND id = ?",
  );
  const all = pg.query<{ json: string }, [string]>("SELECT json FROM tasks WHERE room_id = ? ORDER BY n");
  const owned = pg.query<{ json: string }, [string, string]>(
    "SELECT json FROM tasks WHERE room_id = ? AND owner = ? ORDER BY n",
  );
  const graph = createPlanGraph(pg);

  async function find(roomId: string, taskId: string): Promise<Task> {
    const row = await get.get(roomId, taskId);
    if (!row) throw errors.taskNotFound(taskId);
    return parse(row);
  }

  return {
    /** Tasks owned by agentId in plan order, as reads show them (a lease that ran out is no longer its). */
    async myTasks(roomId: string, agentId: string): Promise<Task[]> {
      const t = now();
      return (await owned.all(roomId, agentId))
        .map((row) => effectiveTask(parse(row), t))
        .filter((task) => task.owner === agentId);
    },
    async readPlan(scope: RoomScope): Promise<Plan> {
      const room = await rooms.read(scope);
      if (!room) return { project: scope.roomId, created_at: null, updated_at: null, tasks: [] };
      const t = now();
      return {
        project: scope.roomId,
        created_at: room.plan_created_at === null ? null : iso(room.plan_created_at),
        updated_at: room.plan_updated_at === null ? null : iso(room.plan_updated_at),
        tasks: (await all.all(room.room_id)).map((row) => effectiveTask(parse(row), t)),
      };
    },
    async getTask(scope: RoomScope, taskId: string): Promise<Task> {
      const room = await rooms.read(scope);
      if (!room) throw errors.taskNotFound(taskId);
      return effectiveTask(await find(room.room_id, taskId), now());
    },
    async addTask(scope: RoomScope, input: NewTask): Promise<Task> {
      const room = await rooms.check(scope);
      if (room) await locks.assertPlanWritable(scope.roomId, input.agentId);
      if (room) await leases.recordExpired(room.room_id);
      const deps = uniqueDependencies(input.depends_on);
      // A new task cannot close a cycle (nothing depends on it yet); only unknown ids are refused.
      const known = room ? await graph.statuses(room.room_id, deps) : () => undefined;
      checkKnown(deps, (id) => known(id) !== undefined);
      await rooms.claim(scope);
      const n = await rooms.next(scope.roomId, "task_n");
      const t = now();
      const task = newTask(n, input, deps, t);
      await insert.run(scope.roomId, task.id, n, JSON.stringify(task));
      await rooms.taskMoved(scope.roomId, null, task.status);
      await rooms.planChanged(scope.roomId, t);
      await events.append(scope.roomId, {
        type: "task_added",
        from: input.agentId ?? "system",
        to: BROADCAST,
        payload: { task },
      });
      return task;
    },
    async updateTask(scope: RoomScope, input: TaskUpdate): Promise<Task> {
      const room = await rooms.check(scope);
      if (!room) throw errors.taskNotFound(input.taskId);
      // Lock first, then existence, then version: the same order as the Redis script.
      await locks.assertPlanWritable(room.room_id, input.agentId);
      await leases.recordExpired(room.room_id);
      const previous = await find(room.room_id, input.taskId);
      if (input.expectedVersion !== undefined && input.expectedVersion !== previous.version) {
        throw errors.taskVersionConflict(previous);
      }
      checkOwnership(previous, input.agentId, input.expectedVersion);
      const deps =
        input.depends_on === undefined ? previous.depends_on : uniqueDependencies(input.depends_on);
      if (input.depends_on !== undefined) {
        checkDependencies(previous.id, deps, await graph.dependencies(room.room_id));
      }
      const next = input.status ?? previous.status;
      // Moving to (or staying in) in_progress/done needs every dependency done; checked when either changes.
      if (input.status !== undefined || input.depends_on !== undefined) {
        checkStatus({ id: previous.id, depends_on: deps }, next, await graph.statuses(room.room_id, deps));
      }
      const changes = taskChanges(input, deps);
      const t = now();
      const lease = previous.lease_expires_at;
      const owner = input.owner !== undefined ? input.owner : previous.owner;
      // The lease ends when the task leaves its holder or becomes done or pending (protocol/leases.ts).
      const leaseMs =
        lease !== undefined && keepsLease(previous, owner, next)
          ? await leases.leaseMsOf(room.room_id, previous.id)
          : null;
      const task = revisedTask(previous, input, deps, leaseMs, t);
      await rooms.claim(scope);
      await leases.store(room.room_id, task, leaseMs);
      if (task.status !== previous.status) await rooms.taskMoved(room.room_id, previous.status, task.status);
      await rooms.planChanged(room.room_id, t);
      await events.append(room.room_id, {
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
