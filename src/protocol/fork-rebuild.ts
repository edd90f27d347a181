/**
 * Rebuilding a room's plan and context as they stood at a seq (humans.md §5), the one definition every driver's
 * fork uses. The plan comes from the log alone: every event that changes a task carries the whole task in
 * `payload.task` (task_added, task_updated, and any later kind that follows the rule); deletions and lease expiries
 * carry ids (`task_deleted` {taskId, task}, `task_lease_expired` {taskId, previousOwner}, `context_deleted`
 * {contextId}). Context entries come from their version history, each version placed at the log head it became
 * current at.
 */
import type { ContextEntry, JsonObject, Task, TaskStatus } from "./records.ts";

export interface RebuildEvent {
  seq: number;
  type: string;
  /** ms */
  ts: number;
  payload: JsonObject;
}

export interface RebuiltPlan {
  /** In creation order (first appearance in the log). */
  tasks: Task[];
  /** The highest n of any `task-<n>` the log names, so the fork never mints an id its own log already used. */
  taskN: number;
  byStatus: Record<TaskStatus, number>;
  /** ms of the first and the last plan change, null for a log without one. */
  createdMs: number | null;
  updatedMs: number | null;
  /** Context entries the log deleted (the fork leaves them out). */
  deletedContexts: string[];
}

/** The number of a minted id (`task-7` → 7), 0 for anything else. */
export const serialOf = (id: string): number => {
  const match = /-(\d+)$/.exec(id);
  return match ? Number(match[1]) : 0;
};

const isTask = (value: unknown): value is Task =>
  value !== null && typeof value === "object" && typeof (value as Task).id === "string";
const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** Replays the log's plan events, oldest first. */
export function rebuildPlan(events: readonly RebuildEvent[]): RebuiltPlan {
  const tasks = new Map<string, Task>();
  const deletedContexts: string[] = [];
  let taskN = 0;
  let createdMs: number | null = null;
  let updatedMs: number | null = null;
  const touched = (ts: number) => {
    createdMs ??= ts;
    updatedMs = ts;
  };
  for (const event of events) {
    const { payload } = event;
    if (event.type === "context_deleted") {
      const id = text(payload.contextId);
      if (id !== undefined) deletedContexts.push(id);
      continue;
    }
    if (event.type === "task_deleted") {
      const id = text(payload.taskId) ?? (isTask(payload.task) ? payload.task.id : undefined);
      if (id !== undefined) {
        taskN = Math.max(taskN, serialOf(id));
        tasks.delete(id);
        touched(event.ts);
      }
      continue;
    }
    if (isTask(payload.task)) {
      tasks.set(payload.task.id, payload.task);
      taskN = Math.max(taskN, serialOf(payload.task.id));
      touched(event.ts);
      continue;
    }
    if (event.type === "task_lease_expired") {
      const id = text(payload.taskId);
      const task = id === undefined ? undefined : tasks.get(id);
      if (id !== undefined && task) {
        tasks.set(id, { ...task, status: "pending", owner: null });
        touched(event.ts);
      }
    }
  }
  const byStatus: Record<TaskStatus, number> = { pending: 0, in_progress: 0, done: 0, blocked: 0 };
  for (const task of tasks.values()) byStatus[task.status] = (byStatus[task.status] ?? 0) + 1;
  return { tasks: [...tasks.values()], taskN, byStatus, createdMs, updatedMs, deletedContexts };
}

/** One version of a context entry (the entry without id and type) with the log head it became current at. */
export interface ContextVersionAt {
  version: Omit<ContextEntry, "id" | "type">;
  /** null for versions written before roomd recorded it: placed by their timestamp instead. */
  atSeq: number | null;
}

/**
 * The version of an entry that was current when the log's head was `atSeq`, and the earlier ones (its history
 * then); null when the entry did not exist yet. `versions` is oldest first. A version without atSeq counts as
 * current by then when it was written before the event after atSeq (`nextTs`, ms; null when atSeq is the head).
 */
export function contextAt(
  versions: readonly ContextVersionAt[],
  atSeq: number,
  nextTs: number | null,
): { current: ContextVersionAt; history: ContextVersionAt[] } | null {
  const placed = (v: ContextVersionAt) =>
    v.atSeq !== null ? v.atSeq <= atSeq : nextTs === null || Date.parse(v.version.timestamp) < nextTs;
  let last = -1;
  for (let i = 0; i < versions.length; i++) if (placed(versions[i] as ContextVersionAt)) last = i;
  if (last < 0) return null;
  return { current: versions[last] as ContextVersionAt, history: versions.slice(0, last) };
}
