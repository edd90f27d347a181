/**
 * Rebuilding a room's plan and context as they stood at a seq (docs/people.md#forks), the one definition every
 * driver's fork uses. The plan comes from the log alone: every event that changes a task carries the whole task in
 * `payload.task` (task_added, task_updated, task_claimed, task_lease_expired, and any later task_ kind that follows
 * the rule); deletions and departures carry ids (`task_deleted` {taskId}, `agent_left` {tasks}, `context_deleted`
 * {contextId}); protocol/task-log.ts is the one reading of them. Events posted by agents never count. Context entries
 * come from their version history, each version placed at the log head it became current at. People's records are
 * read by fork-records.ts, and what a fork releases is settled by fork-release.ts.
 */
import { RECORD_EVENT_TYPES, serialOf } from "./fork-records.ts";
import { movingErrors } from "./moving.ts";
import { peopleErrors } from "./people.ts";
import type { ContextEntry, Task } from "./records.ts";
import { type LoggedEvent, planSteps } from "./task-log.ts";

/**
 * Refuses forking a room (its log's head `head`, everything up to `trimmedSeq` trimmed by retention) at `atSeq`:
 * past the head, or — once its log was trimmed, so it cannot be replayed — anywhere but at the head.
 */
export function checkForkPoint(atSeq: number, head: number, trimmedSeq: number): void {
  if (atSeq > head) throw peopleErrors.forkPastHead(atSeq, head);
  if (trimmedSeq > 0 && atSeq < head) throw movingErrors.forkTrimmed(atSeq, head, trimmedSeq + 1);
}

/**
 * Events a fork's rebuild reads besides those carrying a whole task (payload.task): the deletions, lease expiries
 * and departures that carry ids, and those people's records and the wheel are read from (fork-records.ts).
 */
export const FORK_PLAN_TYPES: ReadonlySet<string> = new Set([
  "task_deleted",
  "task_lease_expired",
  "context_deleted",
  "agent_left",
  "agent_suspended",
  ...RECORD_EVENT_TYPES,
]);

export interface RebuildEvent extends LoggedEvent {
  seq: number;
}

export interface RebuiltPlan {
  /**
   * In creation order (first appearance in the log), as the log left them: a task leased at the seq still carries
   * its lease (fork-release.ts settles it).
   */
  tasks: Task[];
  /** The highest n of any `task-<n>` the log names, so the fork never mints an id its own log already used. */
  taskN: number;
  /** ms of the first and the last plan change, null for a log without one. */
  createdMs: number | null;
  updatedMs: number | null;
  /** Context entries the log deleted (the fork leaves them out). */
  deletedContexts: string[];
}

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** Replays the log's plan events, oldest first (protocol/task-log.ts planSteps). */
export function rebuildPlan(events: readonly RebuildEvent[]): RebuiltPlan {
  const tasks = new Map<string, Task>();
  const deletedContexts: string[] = [];
  let taskN = 0;
  let createdMs: number | null = null;
  let updatedMs: number | null = null;
  for (const event of events) {
    if (event.type === "context_deleted" && event.posted !== true) {
      const id = text(event.payload.contextId);
      if (id !== undefined) deletedContexts.push(id);
      continue;
    }
    const steps = planSteps(event, (id) => tasks.get(id));
    for (const step of steps) {
      const id = "set" in step ? step.set.id : step.remove;
      taskN = Math.max(taskN, serialOf(id));
      if ("set" in step) tasks.set(id, step.set);
      else tasks.delete(id);
    }
    if (steps.length > 0) {
      createdMs ??= event.ts;
      updatedMs = event.ts;
    }
  }
  return { tasks: [...tasks.values()], taskN, createdMs, updatedMs, deletedContexts };
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
