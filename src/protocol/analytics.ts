/**
 * Room analytics (tool get_room_analytics), computed from the event log — whose task events carry the whole task
 * after each change — plus the few facts the log does not hold: the current plan and context entries, and when
 * each context event was first delivered to each agent. One pure function, so every driver gives the same numbers.
 *
 * Definitions (also in docs/protocol.md#get_room_analytics):
 * - Who owned what comes from the log as protocol/task-log.ts reads it (the reading forks use too): task events
 *   carrying the whole task (task_updated — a handoff's moves included —, task_claimed, task_lease_expired), and
 *   agent_left and agent_suspended returning the agent's tasks; events posted by agents never count.
 * - tasksByStatus, taskCount: the current plan as reads show it. tasksDeleted: task_deleted events.
 * - donePerAgent: transitions of a task into done (from any other status, or added as done), credited to the task's
 *   owner after the change, or to the event's `from` when it has none. A task reopened and done again counts again.
 * - claimToDone: for each transition into done, the time since the task was last claimed — became in_progress
 *   with an owner, or changed owner while in_progress — if it was; medianMs is the median of those times (the mean
 *   of the two middle ones for an even count), null when there is none.
 * - handoffs: changes of a task's owner from one agent to another, whatever made them (a take-over by update_task,
 *   a claim after a lease ran out or its holder left, a person's or an agent's handoff); the new owner is compared
 *   with the last agent that owned the task, so an unassignment, a lease running out or leave_room in between
 *   neither counts nor hides one.
 * - contextChurn: per live entry its updates (the minor number of its version), their sum, live entries, and
 *   context_deleted events.
 * - eventsPerAgent: every event of the log (tombstones included) by its `from`.
 * - contractReads: for every context_updated event of an api_contract, for each consumer of that version other
 *   than the updater, when the event was first delivered to it (get_unread_events / get_my_summary moving its
 *   cursor past the event): readAt and lagMs, or null while it is still unread; medianMs over those read.
 */
import { type RoomEvent, TASK_STATUSES, type Task, type TaskStatus } from "./records.ts";
import { planSteps } from "./task-log.ts";

/** What a driver reads for the analytics, in one atomic step. */
export interface AnalyticsLog {
  /**
   * The whole log, oldest first. Payloads may be left out ({}) except for agent_left, agent_suspended, room_forked and events whose
   * type starts with task_ or context_, which the analytics read.
   */
  events: RoomEvent[];
  /** Seqs of the events agents posted (post_event, reply_to_event): they never change the plan. */
  posted: number[];
  /** The current plan, as reads show it (a lease that ran out already undone). */
  tasks: Task[];
  /** The live context entries' ids, types and versions. */
  contexts: { id: string; type: string; version: string }[];
  /** First delivery of each context event to each agent: the event's seq, the agent, when (ISO). */
  reads: { seq: number; agent: string; at: string }[];
}

export interface ContractRead {
  contextId: string;
  version: string;
  updatedAt: string;
  consumer: string;
  readAt: string | null;
  lagMs: number | null;
}

export interface RoomAnalytics {
  roomId: string;
  eventCount: number;
  taskCount: number;
  tasksByStatus: Record<TaskStatus, number>;
  tasksDeleted: number;
  donePerAgent: Record<string, number>;
  claimToDone: { count: number; medianMs: number | null };
  handoffs: number;
  contextChurn: {
    entries: number;
    updates: number;
    deleted: number;
    byEntry: { contextId: string; type: string; version: string; updates: number }[];
  };
  eventsPerAgent: Record<string, number>;
  contractReads: {
    count: number;
    read: number;
    unread: number;
    medianMs: number | null;
    reads: ContractRead[];
  };
}

/** The median of the values (mean of the two middle ones for an even count), null for none. */
export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const minor = (version: string) => Number(version.slice(version.indexOf(".") + 1));
/** Creation order of a "ctx-<n>" id. */
const serial = (id: string) => Number(id.slice(id.lastIndexOf("-") + 1));

const claimed = (t: Task) => t.status === "in_progress" && t.owner !== null;

/** A record with its keys in code-unit order, so equal numbers serialise equally on every driver. */
function sorted(counts: Map<string, number>): Record<string, number> {
  return Object.fromEntries([...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
const bump = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

export function computeAnalytics(roomId: string, log: AnalyticsLog): RoomAnalytics {
  const state = new Map<string, Task>();
  const lastOwner = new Map<string, string>();
  const claimedAt = new Map<string, number>();
  const done = new Map<string, number>();
  const perAgent = new Map<string, number>();
  const durations: number[] = [];
  const readAt = new Map(log.reads.map((r) => [`${r.seq} ${r.agent}`, r.at]));
  const contractReads: ContractRead[] = [];
  let handoffs = 0;
  let tasksDeleted = 0;
  let contextsDeleted = 0;
  const posted = new Set(log.posted);

  for (const event of log.events) {
    bump(perAgent, event.from);
    const at = Date.parse(event.timestamp);
    const logged = { type: event.type, ts: at, payload: event.payload, posted: posted.has(event.seq) };
    // An agent's own post never stands for a change of the room, whatever its type.
    if (logged.posted) continue;
    if (event.type === "context_deleted") contextsDeleted++;
    for (const step of planSteps(logged, (id) => state.get(id))) {
      if ("remove" in step) {
        tasksDeleted++;
        state.delete(step.remove);
        continue;
      }
      const task = step.set;
      const before = state.get(task.id);
      if (claimed(task) && !(before && claimed(before) && before.owner === task.owner))
        claimedAt.set(task.id, at);
      if (task.status === "done" && before?.status !== "done") {
        bump(done, task.owner ?? event.from);
        const since = claimedAt.get(task.id);
        if (since !== undefined) durations.push(at - since);
        claimedAt.delete(task.id);
      }
      const previousOwner = lastOwner.get(task.id);
      if (task.owner !== null) {
        if (previousOwner !== undefined && previousOwner !== task.owner) handoffs++;
        lastOwner.set(task.id, task.owner);
      }
      state.set(task.id, task);
    }
    if (event.type === "context_updated") {
      const p = event.payload as {
        contextId?: unknown;
        contextType?: unknown;
        version?: unknown;
        consuming_agents?: unknown;
      };
      if (p.contextType !== "api_contract" || typeof p.contextId !== "string") continue;
      const consumers = Array.isArray(p.consuming_agents)
        ? (p.consuming_agents as string[])
        : event.to === "all"
          ? []
          : [event.to];
      for (const consumer of new Set(consumers)) {
        if (consumer === event.from) continue;
        const read = readAt.get(`${event.seq} ${consumer}`) ?? null;
        contractReads.push({
          contextId: p.contextId,
          version: String(p.version ?? ""),
          updatedAt: event.timestamp,
          consumer,
          readAt: read,
          lagMs: read === null ? null : Date.parse(read) - at,
        });
      }
    }
  }

  const byStatus = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
  for (const task of log.tasks) byStatus[task.status]++;
  const byEntry = log.contexts
    .map((c) => ({ contextId: c.id, type: c.type, version: c.version, updates: minor(c.version) }))
    .sort((a, b) => b.updates - a.updates || serial(a.contextId) - serial(b.contextId));
  const lags = contractReads.flatMap((r) => (r.lagMs === null ? [] : [r.lagMs]));
  return {
    roomId,
    eventCount: log.events.length,
    taskCount: log.tasks.length,
    tasksByStatus: byStatus,
    tasksDeleted,
    donePerAgent: sorted(done),
    claimToDone: { count: durations.length, medianMs: median(durations) },
    handoffs,
    contextChurn: {
      entries: log.contexts.length,
      updates: byEntry.reduce((sum, e) => sum + e.updates, 0),
      deleted: contextsDeleted,
      byEntry,
    },
    eventsPerAgent: sorted(perAgent),
    contractReads: {
      count: contractReads.length,
      read: lags.length,
      unread: contractReads.length - lags.length,
      medianMs: median(lags),
      reads: contractReads,
    },
  };
}
