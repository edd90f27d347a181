/**
 * The room report (GET /rooms/:roomId/report, roomctl report): how a room's coordination went, computed in one pass
 * over its log — people's interventions, approvals, handoffs and how stale their consumers were, concurrency
 * incidents and the fate of tasks. The input is what get_room_analytics reads (the log, the live plan and entries,
 * the recorded deliveries of context events) plus the room's approvals; the report writes nothing. What the room
 * does not record is null, never guessed. Definitions: docs/http.md (GET /rooms/:roomId/report).
 *
 * - Window: events with from ≤ time ≤ to count; earlier events only set the state (who holds which task, the
 *   versions of each entry). Later events are not read.
 * - humanInterventions: human_message, steer and interrupt events sent by people (human:<id>).
 * - approvals: approval_requested and approval_decided events; medianDecisionMs over the approvals decided in the
 *   window, from their request to their decision.
 * - concurrency.duplicateClaims: an agent starting a task (claim_task, or update_task setting in_progress) that
 *   another agent had started and neither finished nor given back. refusedStaleWrites and claimConflicts are null:
 *   a refused call changes nothing, so the room keeps no trace of it.
 * - tasks: done = moves into done; abandoned = a started task going back to pending (its holder gave it back or
 *   left, or its lease ran out); reclaimedAfterLease = starts of a task whose lease had run out; medianCycleMs = the
 *   median time from a task's last start to its done (get_room_analytics' claimToDone).
 */
import { type AnalyticsLog, median } from "./analytics.ts";
import type { Approval } from "./people.ts";
import { isPersonName } from "./principal.ts";
import type { Task } from "./records.ts";
import { type HandoffReport, handoffTracker } from "./report-handoffs.ts";
import { planSteps } from "./task-log.ts";
import { iso } from "./time.ts";

export interface RoomReport {
  roomId: string;
  from: string | null;
  to: string;
  humanInterventions: { total: number; messages: number; steers: number; interrupts: number };
  approvals: { requested: number; decided: number; medianDecisionMs: number | null };
  handoffs: HandoffReport[];
  handoffCorrectness: number | null;
  staleness: { count: number; p50Ms: number | null; p99Ms: number | null };
  concurrency: { duplicateClaims: number; refusedStaleWrites: null; claimConflicts: null };
  tasks: { done: number; abandoned: number; reclaimedAfterLease: number; medianCycleMs: number | null };
}

export interface ReportInput {
  log: AnalyticsLog;
  approvals: Approval[];
  /** ms; null: from the room's first event. */
  from: number | null;
  /** ms; null: up to now. */
  to: number | null;
  now: number;
}

/** The nearest-rank percentile (p in 0–100) of the values; null for none. */
export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

const PEOPLE_TYPES = { human_message: "messages", steer: "steers", interrupt: "interrupts" } as const;

export function computeReport(roomId: string, input: ReportInput): RoomReport {
  const { log } = input;
  const first = log.events[0];
  const from = input.from ?? (first ? Date.parse(first.timestamp) : null);
  const to = input.to ?? input.now;
  const window = { from: from ?? Number.NEGATIVE_INFINITY, to };
  const inWindow = (at: number) => at >= window.from && at <= to;
  const people = { messages: 0, steers: 0, interrupts: 0 };
  const approvals = { requested: 0, decided: 0 };
  const tasks = { done: 0, abandoned: 0, reclaimedAfterLease: 0 };
  let duplicateClaims = 0;
  const state = new Map<string, Task>();
  /** Who started each task now in progress (an unowned start names the agent that made it). */
  const startedBy = new Map<string, string>();
  const lapsed = new Set<string>();
  const lastStart = new Map<string, number>();
  const cycles: number[] = [];
  const handoffs = handoffTracker(log, window);
  const posted = new Set(log.posted);

  for (const event of log.events) {
    const at = Date.parse(event.timestamp);
    if (at > to) break;
    const counted = inWindow(at);
    // People's messages are posted events too; their sender (human:<id>) is what makes them a person's.
    const kind = PEOPLE_TYPES[event.type as keyof typeof PEOPLE_TYPES];
    if (kind && counted && isPersonName(event.from)) people[kind]++;
    // An agent's own post never stands for a change of the room, whatever its type.
    if (posted.has(event.seq)) continue;
    if (counted && event.type === "approval_requested") approvals.requested++;
    if (counted && event.type === "approval_decided") approvals.decided++;
    handoffs.context(event, at);
    const changes = (event.payload as { changes?: { status?: unknown } }).changes;
    for (const step of planSteps({ type: event.type, ts: at, payload: event.payload }, (id) =>
      state.get(id),
    )) {
      if ("remove" in step) {
        state.delete(step.remove);
        startedBy.delete(step.remove);
        continue;
      }
      const task = step.set;
      const before = state.get(task.id);
      const takenOver = task.status === "in_progress" && task.owner !== null && before?.owner !== task.owner;
      const start =
        task.status === "in_progress" &&
        (event.type === "task_claimed" ||
          (event.type === "task_updated" && changes?.status === "in_progress"));
      if (start) {
        const starter = task.owner ?? event.from;
        const holder = startedBy.get(task.id);
        if (counted && holder !== undefined && holder !== starter) duplicateClaims++;
        if (counted && lapsed.has(task.id)) tasks.reclaimedAfterLease++;
        lapsed.delete(task.id);
        startedBy.set(task.id, starter);
      } else if (takenOver) {
        startedBy.set(task.id, task.owner as string); // a take-over or a handoff: the new owner holds it now
      }
      // The cycle's clock starts at a task's first start, or again when someone else takes it over.
      if (takenOver || (start && !lastStart.has(task.id))) lastStart.set(task.id, at);
      if (task.status !== "in_progress") {
        if (before?.status === "in_progress" && task.status === "pending") {
          if (counted) tasks.abandoned++;
          if (event.type === "task_lease_expired") lapsed.add(task.id);
        }
        startedBy.delete(task.id);
      }
      if (task.status === "done" && before?.status !== "done" && counted) {
        tasks.done++;
        const since = lastStart.get(task.id);
        if (since !== undefined) cycles.push(at - since);
        handoffs.finished(task.owner ?? event.from, at);
      }
      if (task.status !== "in_progress") lastStart.delete(task.id);
      state.set(task.id, task);
    }
  }

  const decisions = input.approvals.flatMap((a) => {
    if (a.decided_at === undefined || a.decidedBy === undefined) return [];
    const decided = Date.parse(a.decided_at);
    return inWindow(decided) ? [decided - Date.parse(a.created_at)] : [];
  });
  const live = new Map(log.contexts.map((c) => [c.id, c.version]));
  const handoffReports = handoffs.finish(live, input.to !== null);
  const judged = handoffReports.flatMap((h) => h.consumers.filter((c) => c.correct !== null));
  const lags = handoffReports.flatMap((h) =>
    h.consumers.flatMap((c) => c.stalenessMs.filter((ms): ms is number => ms !== null)),
  );
  return {
    roomId,
    from: from === null ? null : iso(from),
    to: iso(to),
    humanInterventions: { total: people.messages + people.steers + people.interrupts, ...people },
    approvals: { ...approvals, medianDecisionMs: median(decisions) },
    handoffs: handoffReports,
    handoffCorrectness:
      judged.length === 0 ? null : judged.filter((c) => c.correct === true).length / judged.length,
    staleness: { count: lags.length, p50Ms: percentile(lags, 50), p99Ms: percentile(lags, 99) },
    concurrency: { duplicateClaims, refusedStaleWrites: null, claimConflicts: null },
    tasks: { ...tasks, medianCycleMs: median(cycles) },
  };
}
