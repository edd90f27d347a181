/**
 * How the event log changes the plan: the one reading of task events that forks (fork-rebuild.ts) and the room
 * analytics (analytics.ts) share, so a fork's plan and the analytics' view of who owned what never disagree.
 *
 * - An event roomd appended (not posted by an agent) whose type starts with `task_` and whose `payload.task` is a
 *   whole task sets that task: task_added, task_updated (a handoff's moves included), task_claimed, and
 *   task_lease_expired since it carries the task.
 * - `task_deleted` {taskId} removes the task.
 * - `task_lease_expired` {taskId} without a task (written before it carried one) returns the task to pending with
 *   no owner, version + 1, updated_at = the lease's end (protocol/leases.ts effectiveTask).
 * - `agent_left` {tasks} and `agent_suspended` {tasks} return each listed task to pending with no owner, version + 1,
 *   updated_at = the event's time: what leave_room or the suspension did to them in the same step.
 * - `room_forked` {released} sets each whole task listed: the leases a fork let go of (fork-release.ts).
 * Events posted by agents (post_event, reply_to_event) never change the plan, whatever they carry.
 */
import { effectiveTask } from "./leases.ts";
import { type JsonObject, TASK_STATUSES, type Task, type TaskStatus } from "./records.ts";
import { iso } from "./time.ts";

export interface LoggedEvent {
  type: string;
  /** ms */
  ts: number;
  payload: JsonObject;
  /** True for an event an agent posted (post_event, reply_to_event). */
  posted?: boolean;
}

export type PlanStep = { set: Task } | { remove: string };

/** A payload's value when it is a whole task (an id, a known status, an owner that is a string or null). */
export function wholeTask(value: unknown): Task | null {
  if (value === null || typeof value !== "object") return null;
  const task = value as Partial<Task>;
  if (typeof task.id !== "string") return null;
  if (!TASK_STATUSES.includes(task.status as TaskStatus)) return null;
  if (task.owner !== null && typeof task.owner !== "string") return null;
  return task as Task;
}

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** A task its holder no longer has: pending, no owner, no lease, version + 1 (a departure, a fork's release). */
export function releasedTask(task: Task, at: string): Task {
  const { lease_expires_at: _lease, ...rest } = task;
  return { ...rest, status: "pending", owner: null, version: task.version + 1, updated_at: at };
}

/** What one event does to the plan, given the tasks as they stood before it (`current`). */
export function planSteps(event: LoggedEvent, current: (id: string) => Task | undefined): PlanStep[] {
  if (event.posted === true) return [];
  const { payload } = event;
  if (event.type === "task_deleted") {
    const id = text(payload.taskId) ?? wholeTask(payload.task)?.id;
    return id === undefined ? [] : [{ remove: id }];
  }
  if (event.type === "agent_left" || event.type === "agent_suspended") {
    const ids = Array.isArray(payload.tasks) ? payload.tasks : [];
    return ids.flatMap((id): PlanStep[] => {
      const task = typeof id === "string" ? current(id) : undefined;
      return task ? [{ set: releasedTask(task, iso(event.ts)) }] : [];
    });
  }
  if (event.type === "room_forked") {
    const list = Array.isArray(payload.released) ? payload.released : [];
    return list.flatMap((value): PlanStep[] => {
      const task = wholeTask(value);
      return task ? [{ set: task }] : [];
    });
  }
  if (!event.type.startsWith("task_")) return [];
  const whole = wholeTask(payload.task);
  if (whole) return [{ set: whole }];
  if (event.type === "task_lease_expired") {
    const id = text(payload.taskId);
    const task = id === undefined ? undefined : current(id);
    if (!task) return [];
    // As reads showed it once the lease ran out (updated_at = the lease's end); with no lease known, at the event.
    const end = task.lease_expires_at;
    if (end === undefined) return [{ set: releasedTask(task, iso(event.ts)) }];
    return [{ set: effectiveTask(task, Date.parse(end)) }];
  }
  return [];
}
