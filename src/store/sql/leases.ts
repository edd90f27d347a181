/**
 * Task leases (protocol/leases.ts): claim_task, renew_lease, and recording the leases that ran out. Every plan
 * write calls recordExpired first, inside its transaction, so a refused write records nothing either.
 */
import { errors } from "../../protocol/errors.ts";
import { checkLeaseHolder, effectiveTask } from "../../protocol/leases.ts";
import { checkStatus } from "../../protocol/plan-rules.ts";
import { BROADCAST, type Task } from "../../protocol/records.ts";
import { claimedTask, releasedTask, taskClaim } from "../../protocol/task-rules.ts";
import { iso } from "../../protocol/time.ts";
import type { RoomScope, TaskClaim } from "../types.ts";
import type { Events } from "./events.ts";
import type { Locks } from "./locks.ts";
import type { SqlParts } from "./rooms.ts";
import type { Op } from "./run.ts";

const parse = (row: { json: string }): Task => JSON.parse(row.json);

export function createLeases({ sql, now, rooms, dialect }: SqlParts, events: Events, locks: Locks) {
  const due = sql.query<{ json: string }, [string, number]>(
    `SELECT json FROM tasks WHERE room_id = ? AND lease_expires_at <= ? AND lease_expires_at IS NOT NULL
     ORDER BY lease_expires_at, id`,
  );
  const get = sql.query<{ json: string; lease_ms: number | null }, [string, string]>(
    "SELECT json, lease_ms FROM tasks WHERE room_id = ? AND id = ?",
  );
  const put = sql.query<unknown, [string | null, string, number | null, number | null, string, string]>(
    "UPDATE tasks SET owner = ?1, json = ?2, lease_expires_at = ?3, lease_ms = ?4 WHERE room_id = ?5 AND id = ?6",
  );
  const leasedBy = sql.query<{ json: string; lease_ms: number }, [string, string]>(
    `SELECT json, lease_ms FROM tasks WHERE room_id = ? AND owner = ? AND lease_expires_at IS NOT NULL
     ORDER BY n`,
  );

  /** Stores a task with its lease (expiry ms and length) or without one (both null). */
  function* store(roomId: string, task: Task, leaseMs: number | null): Op<void> {
    const expires = task.lease_expires_at === undefined ? null : Date.parse(task.lease_expires_at);
    yield* put.run(
      task.owner,
      JSON.stringify(task),
      expires,
      expires === null ? null : leaseMs,
      roomId,
      task.id,
    );
  }

  /**
   * Records every lease of the room that ran out (oldest expiry first): the task as reads already show it, and
   * `task_lease_expired` {taskId, previousOwner, task}. Call in a plan write on a live room, before its checks.
   */
  function* recordExpired(roomId: string): Op<void> {
    const t = now();
    const rows = yield* due.all(roomId, t);
    for (const row of rows) {
      const before = parse(row);
      const after = effectiveTask(before, t);
      yield* store(roomId, after, null);
      yield* rooms.taskMoved(roomId, before.status, after.status);
      yield* events.append(roomId, {
        type: "task_lease_expired",
        from: "system",
        to: BROADCAST,
        payload: { taskId: before.id, previousOwner: before.owner, task: after },
      });
    }
    if (rows.length > 0) yield* rooms.planChanged(roomId, t);
  }

  return {
    recordExpired,
    /** Writes a task and its lease columns (leaseMs null: no lease). */
    store,
    /** The length of a task's lease in ms, null when it has none. */
    *leaseMsOf(roomId: string, id: string): Op<number | null> {
      return (yield* get.get(roomId, id))?.lease_ms ?? null;
    },
    *claimTask(scope: RoomScope, input: TaskClaim): Op<Task> {
      const room = yield* rooms.check(scope);
      if (!room) throw errors.taskNotFound(input.taskId);
      // Plan lock, then existence, then version: the order of every plan write (and of the Redis script).
      yield* locks.assertPlanWritable(room.room_id, input.agentId);
      yield* recordExpired(room.room_id);
      const row = yield* get.get(room.room_id, input.taskId);
      if (!row) throw errors.taskNotFound(input.taskId);
      const task = parse(row);
      const kind = taskClaim(task, input);
      const t = now();
      const expires = iso(t + input.leaseMs);
      yield* rooms.claim(scope);
      // Already the caller's work in progress: (re)leased, no version change, no event.
      if (kind === "renew") {
        const leased: Task = { ...task, lease_expires_at: expires };
        yield* store(room.room_id, leased, input.leaseMs);
        return leased;
      }
      checkStatus(task, "in_progress", yield* dialect.graph.statuses(room.room_id, task.depends_on));
      const claimed = claimedTask(task, input.agentId, expires, t);
      yield* store(room.room_id, claimed, input.leaseMs);
      yield* rooms.taskMoved(room.room_id, task.status, claimed.status);
      yield* rooms.planChanged(room.room_id, t);
      yield* events.append(room.room_id, {
        type: "task_claimed",
        from: input.agentId,
        to: BROADCAST,
        payload: { task: claimed },
      });
      return claimed;
    },
    *renewLeases(scope: RoomScope, agentId: string, taskId?: string): Op<Task[]> {
      const room = yield* rooms.check(scope);
      if (!room) {
        if (taskId !== undefined) throw errors.taskNotFound(taskId);
        return [];
      }
      yield* recordExpired(room.room_id);
      if (taskId !== undefined) {
        const row = yield* get.get(room.room_id, taskId);
        if (!row) throw errors.taskNotFound(taskId);
        checkLeaseHolder(parse(row), agentId);
      }
      yield* rooms.claim(scope);
      const t = now();
      const renewed: Task[] = [];
      for (const row of yield* leasedBy.all(room.room_id, agentId)) {
        const task: Task = { ...parse(row), lease_expires_at: iso(t + row.lease_ms) };
        yield* store(room.room_id, task, row.lease_ms);
        if (taskId === undefined || task.id === taskId) renewed.push(task);
      }
      return renewed;
    },
    /** The agent's live leases end (leave_room): each task back to pending, unowned, version + 1. */
    *releaseAll(roomId: string, agentId: string): Op<string[]> {
      const t = now();
      const released: string[] = [];
      for (const row of yield* leasedBy.all(roomId, agentId)) {
        const task = parse(row);
        const next = releasedTask(task, t);
        yield* store(roomId, next, null);
        yield* rooms.taskMoved(roomId, task.status, next.status);
        released.push(task.id);
      }
      if (released.length > 0) yield* rooms.planChanged(roomId, t);
      return released;
    },
  };
}

export type Leases = ReturnType<typeof createLeases>;
