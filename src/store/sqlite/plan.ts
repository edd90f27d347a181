/** The plan: tasks in creation order, each stored as its Task JSON plus the columns queries filter on. */
import { errors } from "../../protocol/errors.ts";
import { BROADCAST, type Plan, type Task } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import type { NewTask, RoomScope, TaskUpdate } from "../types.ts";
import type { Events } from "./events.ts";
import type { Locks } from "./locks.ts";
import type { StoreParts } from "./rooms.ts";

/** The fields of a TaskUpdate that count as changes (and are echoed in the task_updated event). */
const CHANGE_FIELDS = ["status", "owner", "description", "note"] as const;

const parse = (row: { json: string }): Task => JSON.parse(row.json);

export function createPlan({ db, now, rooms }: StoreParts, events: Events, locks: Locks) {
  const insert = db.query<unknown, [string, string, number, string]>(
    "INSERT INTO tasks (room_id, id, n, owner, json) VALUES (?1, ?2, ?3, NULL, ?4)",
  );
  const update = db.query<unknown, [string | null, string, string, string]>(
    "UPDATE tasks SET owner = ?1, json = ?2 WHERE room_id = ?3 AND id = ?4",
  );
  const get = db.query<{ json: string }, [string, string]>(
    "SELECT json FROM tasks WHERE room_id = ? AND id = ?",
  );
  const all = db.query<{ json: string }, [string]>("SELECT json FROM tasks WHERE room_id = ? ORDER BY n");
  const owned = db.query<{ json: string }, [string, string]>(
    "SELECT json FROM tasks WHERE room_id = ? AND owner = ? ORDER BY n",
  );

  function find(roomId: string, taskId: string): Task {
    const row = get.get(roomId, taskId);
    if (!row) throw errors.taskNotFound(taskId);
    return parse(row);
  }

  return {
    /** Tasks owned by agentId in plan order (the room must be live and visible). */
    myTasks(roomId: string, agentId: string): Task[] {
      return owned.all(roomId, agentId).map(parse);
    },
    readPlan(scope: RoomScope): Plan {
      const room = rooms.read(scope);
      if (!room) return { project: scope.roomId, created_at: null, updated_at: null, tasks: [] };
      return {
        project: scope.roomId,
        created_at: room.plan_created_at === null ? null : iso(room.plan_created_at),
        updated_at: room.plan_updated_at === null ? null : iso(room.plan_updated_at),
        tasks: all.all(room.room_id).map(parse),
      };
    },
    getTask(scope: RoomScope, taskId: string): Task {
      const room = rooms.read(scope);
      if (!room) throw errors.taskNotFound(taskId);
      return find(room.room_id, taskId);
    },
    addTask(scope: RoomScope, input: NewTask): Task {
      if (rooms.check(scope)) locks.assertPlanWritable(scope.roomId, input.agentId);
      rooms.claim(scope);
      const n = rooms.next(scope.roomId, "task_n");
      const t = now();
      const task: Task = {
        id: `task-${n}`,
        title: input.title,
        description: input.description,
        status: "pending",
        owner: null,
        depends_on: [...input.depends_on],
        priority: input.priority,
        version: 1,
        created_at: iso(t),
        updated_at: iso(t),
      };
      insert.run(scope.roomId, task.id, n, JSON.stringify(task));
      rooms.planChanged(scope.roomId, t);
      events.append(scope.roomId, {
        type: "task_added",
        from: input.agentId ?? "system",
        to: BROADCAST,
        payload: { task },
      });
      return task;
    },
    updateTask(scope: RoomScope, input: TaskUpdate): Task {
      const room = rooms.check(scope);
      if (!room) throw errors.taskNotFound(input.taskId);
      // Lock first, then existence, then version: the same order as the Redis script.
      locks.assertPlanWritable(room.room_id, input.agentId);
      const previous = find(room.room_id, input.taskId);
      if (input.expectedVersion !== undefined && input.expectedVersion !== previous.version) {
        throw errors.taskVersionConflict(previous.id, previous.version);
      }
      const changes: Record<string, unknown> = {};
      for (const field of CHANGE_FIELDS) if (input[field] !== undefined) changes[field] = input[field];
      const t = now();
      const task: Task = {
        ...previous,
        ...(input.status !== undefined && { status: input.status }),
        ...(input.owner !== undefined && { owner: input.owner }),
        ...(input.description !== undefined && { description: input.description }),
        version: previous.version + 1,
        updated_at: iso(t),
      };
      rooms.claim(scope);
      update.run(task.owner, JSON.stringify(task), room.room_id, task.id);
      rooms.planChanged(room.room_id, t);
      events.append(room.room_id, {
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
