/**
 * Rebuilding a room's plan and context as they stood at a seq (docs/people.md#forks), the one definition every
 * driver's fork uses. The plan comes from the log alone: every event that changes a task carries the whole task in
 * `payload.task` (task_added, task_updated, task_claimed, task_lease_expired, and any later task_ kind that follows
 * the rule); deletions and departures carry ids (`task_deleted` {taskId}, `agent_left` {tasks}, `context_deleted`
 * {contextId}); protocol/task-log.ts is the one reading of them. Events posted by agents never count. Context entries
 * come from their version history, each version placed at the log head it became current at.
 */
import { movingErrors } from "./moving.ts";
import { peopleErrors } from "./people.ts";
import type { ContextEntry, Review, Task, TaskStatus } from "./records.ts";
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
 * and departures that carry ids, and those that create reviews, handoffs, approvals and verdicts.
 */
export const FORK_PLAN_TYPES: ReadonlySet<string> = new Set([
  "task_deleted",
  "task_lease_expired",
  "context_deleted",
  "agent_left",
  "review_requested",
  "review_decided",
  "handoff_offered",
  "approval_requested",
  "verdict_recorded",
]);

export interface RebuildEvent extends LoggedEvent {
  seq: number;
}

export interface RebuiltPlan {
  /**
   * In creation order (first appearance in the log), as the fork holds them: leases are not copied (a fork's agents
   * are not running in it), so a task leased at the seq stays in_progress and owned, without `lease_expires_at`.
   */
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
  const byStatus: Record<TaskStatus, number> = { pending: 0, in_progress: 0, done: 0, blocked: 0 };
  const held = [...tasks.values()].map(({ lease_expires_at: _lease, ...task }): Task => task);
  for (const task of held) byStatus[task.status] = (byStatus[task.status] ?? 0) + 1;
  return { tasks: held, taskN, byStatus, createdMs, updatedMs, deletedContexts };
}

/** Where a fork's own records start: the highest n of each kind of id its log names (0 for none). */
export interface IdFloors {
  handoff: number;
  approval: number;
  verdict: number;
  review: number;
}

/** Each kind's record, by the event that creates it, and the field holding it. */
const CREATED: Record<string, [keyof IdFloors, string]> = {
  handoff_offered: ["handoff", "handoff"],
  approval_requested: ["approval", "approval"],
  verdict_recorded: ["verdict", "verdict"],
  review_requested: ["review", "review"],
  review_decided: ["review", "review"],
};

export const noFloors = (): IdFloors => ({ handoff: 0, approval: 0, verdict: 0, review: 0 });

/** What a room stores of its floors (`rooms.id_floors`): reviews are copied as records, so theirs is not needed. */
export const forkFloors = ({ review: _review, ...stored }: IdFloors): string => JSON.stringify(stored);

/**
 * Raises `floors` to the id of the record `event` creates, if it creates one (agents' posts never do); returns the
 * record. One event at a time, so an import can keep the floors of a log it streams: a room whose log names ids its
 * records do not hold (a fork, and any copy of a fork) must never mint them again.
 */
export function raiseFloor(
  floors: IdFloors,
  event: Pick<LoggedEvent, "type" | "payload" | "posted">,
): { kind: keyof IdFloors; record: { id: string } } | undefined {
  const created = CREATED[event.type];
  if (!created || event.posted === true) return undefined;
  const [kind, field] = created;
  const record = event.payload[field] as { id?: unknown } | null | undefined;
  if (record === null || typeof record !== "object" || typeof record.id !== "string") return undefined;
  floors[kind] = Math.max(floors[kind], serialOf(record.id));
  return { kind, record: record as { id: string } };
}

/**
 * Reviews as they stood (review_requested and review_decided carry the whole review: a fork copies them, so a
 * request its log delivers names a review the fork knows), and the id floors of the records a fork does not copy
 * (handoffs, approvals, verdicts), so its own never reuse an id its log names.
 */
export function rebuildRecords(events: readonly RebuildEvent[]): { reviews: Review[]; floors: IdFloors } {
  const reviews = new Map<string, Review>();
  const floors = noFloors();
  for (const event of events) {
    const named = raiseFloor(floors, event);
    if (named?.kind === "review") reviews.set(named.record.id, named.record as unknown as Review);
  }
  const list = [...reviews.values()].sort((a, b) => serialOf(a.id) - serialOf(b.id));
  return { reviews: list, floors };
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
