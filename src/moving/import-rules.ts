/**
 * What an import checks beyond each line's shape and the hash chain (which proves the file unedited, not who made
 * it: anyone can compute a new chain):
 * - which records are people's acts, that only a person may import (docs/people.md: a decision, a message, a steer,
 *   an interrupt, the wheel, anything sent, decided, offered or held by `human:<id>`);
 * - records that contradict themselves, refused whoever imports them: a decided approval without a person as its
 *   decider, a person's act sent by no person or a steer by someone not at the wheel, a driver whose kind and holder
 *   disagree;
 * - the plan's rules and the references between records, as a live room keeps them (plan-rules.ts;
 *   docs/protocol.md#deleting-a-task).
 * Each check returns the problem as text (or undefined); import-file.ts names the line.
 */
import { PEOPLE_EVENT_TYPES } from "../protocol/event-types.ts";
import type { StateLine } from "../protocol/export-format.ts";
import { serialOf } from "../protocol/fork-rebuild.ts";
import { COUNTER_MAX } from "../protocol/limits.ts";
import { findCycle, planErrors } from "../protocol/plan-rules.ts";
import { isPersonName } from "../protocol/principal.ts";
import type { RoomEvent } from "../protocol/records.ts";
import type { RoomSnapshot } from "../store/move-types.ts";

const person = (name: string | null | undefined) => typeof name === "string" && isPersonName(name);

/** Whether a state line records something a person did or holds (an approval decided or expired counts). */
export function stateActs(line: StateLine): boolean {
  switch (line.kind) {
    case "room":
      return line.driver.holder !== null || line.driver.holderKind !== null;
    case "task":
      return person(line.task.owner);
    case "context_version":
      return person(line.version.author);
    case "context":
      return person(line.entry.author);
    case "review":
      return person(line.review.requester) || person(line.review.reviewer);
    case "approval":
      return (
        line.approval.status !== "pending" ||
        [line.approval.requestedBy, line.approval.decidedBy].some(person)
      );
    case "handoff":
      return [line.handoff.from, line.handoff.offeredBy, line.handoff.closedBy].some(person);
    case "verdict":
      return person(line.verdict.by);
    default:
      return false;
  }
}

/** Whether an event is a person's act: sent or deleted by a person, or of a type only people (or the wheel) cause. */
export const eventActs = (event: RoomEvent): boolean =>
  PEOPLE_EVENT_TYPES.has(event.type) || person(event.from) || person(event.deleted?.by);

/** Ids roomd mints: a fork or an import of the room sets its counters from the numbers of those its log names. */
const MINTED = /^(?:task|ctx|rev|apr|hof|vrd|evt)-(\d+)$/;

/**
 * A minted id past COUNTER_MAX named in the payload of an event roomd appended (not one an agent posted, whose
 * payload is the agent's own text): the next ids of a fork or a copy of the room would follow it. The walk is
 * iterative; the payload's size was bounded by its line's schema.
 */
export function namedIdProblem(event: RoomEvent, posted: boolean): string | undefined {
  if (posted) return undefined;
  const stack: unknown[] = [event.payload];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === "string") {
      const n = MINTED.exec(value)?.[1];
      if (n !== undefined && Number(n) > COUNTER_MAX)
        return `${event.id} (${event.type}) names ${value.slice(0, 40)}, whose number is past ${COUNTER_MAX} (2^39)`;
    } else if (value !== null && typeof value === "object") {
      stack.push(...Object.values(value));
    }
  }
  return undefined;
}

/** A state line that contradicts itself, whoever imports it. */
export function stateProblem(line: StateLine): string | undefined {
  if (line.kind === "room") {
    const { holder, holderKind } = line.driver;
    if ((holder === null) !== (holderKind === null))
      return "the driver has a holder without a kind, or a kind without a holder";
    if (holder !== null && person(holder) !== (holderKind === "human"))
      return `the driver ${holder} is held as ${holderKind}: a person (human:<id>) holds it as human, an agent as agent`;
  }
  if (line.kind === "approval") {
    const a = line.approval;
    const decided = a.status === "approved" || a.status === "rejected";
    if (decided && !person(a.decidedBy))
      return `approval ${a.id} is ${a.status} by ${a.decidedBy ?? "nobody"}: only a person (human:<id>) decides approvals`;
    if (decided && a.decided_at === undefined) return `approval ${a.id} is ${a.status} without decided_at`;
    if (!decided && (a.decidedBy !== undefined || a.decided_at !== undefined))
      return `approval ${a.id} is ${a.status} but names a decision (decidedBy, decided_at)`;
  }
  return undefined;
}

/** Reasons of driver_changed whose sender is the new holder, and whether that holder is a person. */
const TAKEN: Record<string, boolean> = { taken: true, taken_from_agent: true, forced: true, claimed: false };

/**
 * Checks events in log order against who drives: a people-only event must come from a person, a change of driver
 * from the one it names, a steer or an interrupt from the holder of the wheel. The holder is known from the last
 * driver_changed of the file; before the first one (its history trimmed, or never driven) and after room_forked (a
 * fork sets its driver without an event) only the sender's kind is checked.
 */
export function createLogRules() {
  let holder: string | null | undefined;
  return {
    /** The problem of the next event of the log, or undefined. */
    problem(event: RoomEvent): string | undefined {
      const { type, from, payload } = event;
      if (type === "room_forked") holder = undefined;
      if (type === "driver_changed") {
        const reason = payload.reason;
        const next = typeof payload.holder === "string" ? payload.holder : null;
        const byHolder = typeof reason === "string" ? TAKEN[reason] : undefined;
        if (byHolder !== undefined && (from !== next || person(from) !== byHolder))
          return `${event.id} (driver_changed, ${reason}) is from ${from}, not the ${byHolder ? "person" : "agent"} taking the wheel (${next})`;
        if (reason === "released" && from !== payload.previous)
          return `${event.id} (driver_changed, released) is from ${from}, not the holder who released it (${String(payload.previous)})`;
        holder = next;
        return undefined;
      }
      if (!PEOPLE_EVENT_TYPES.has(type)) return undefined;
      if (!person(from))
        return `${event.id} (${type}) is from ${from}: only a person (human:<id>) sends a ${type}`;
      if ((type === "steer" || type === "interrupt") && holder !== undefined && from !== holder)
        return `${event.id} (${type}) is from ${from}, but ${holder ?? "nobody"} held the wheel then: only the driver steers and interrupts`;
      return undefined;
    },
  };
}

/** A problem of the snapshot as a whole, with the key of the record to blame (import-file.ts knows its line). */
export interface SnapshotProblem {
  /** The record's key, as the gatherer keeps lines: "task task-3", "review rev-1", "handoff hof-2". */
  key: string;
  message: string;
}

/**
 * The plan's rules and the references between records. A task, entry or record the file does not hold is one that
 * was deleted, as a live room allows (docs/protocol.md#deleting-a-task: `delete_task` with force leaves dependents
 * naming the task; reviews and handoffs keep naming deleted tasks and entries), so:
 * - a dependency, a review's task or a handoff's task names a task of the file or a deleted one — a `task-<n>` the
 *   room minted (n ≤ counters.tasks: every task ever added is counted, in forks too, since task_added is always
 *   logged);
 * - a review's or a handoff's entry names an entry of the file or a deleted `ctx-<n>` (not compared with the
 *   counter: a fork copies reviews that may name an entry deleted after the fork's seq, above its own counter);
 * - dependencies form no cycle;
 * - a handoff's owners, moved tasks and conflicts are among the tasks it offers.
 * Not checked: that an in_progress or done task has every dependency done. Only moving a task there requires it; a
 * dependency may be reopened (or deleted with force) afterwards, so live rooms hold such tasks.
 */
export function snapshotProblem(s: RoomSnapshot): SnapshotProblem | undefined {
  const deps = new Map(s.tasks.map(({ task }) => [task.id, task.depends_on]));
  const entries = new Set(s.contexts.map((c) => c.entry.id));
  const minted = (id: string) => /^task-[1-9][0-9]*$/.test(id) && serialOf(id) <= s.counters.tasks;
  const taskKnown = (id: string) => deps.has(id) || minted(id);
  const entryKnown = (id: string) => entries.has(id) || /^ctx-[1-9][0-9]*$/.test(id);
  const neverHad = (id: string, what: "task" | "entry") =>
    `${what} ${id}, which this room never had (not in the file, and ${what === "task" ? `not a task-<n> up to counters.tasks (${s.counters.tasks})` : "not a ctx-<n> id"})`;

  for (const { task } of s.tasks) {
    const unknown = task.depends_on.find((dep) => !taskKnown(dep));
    if (unknown !== undefined)
      return {
        key: `task ${task.id}`,
        message: `task ${task.id} depends on ${neverHad(unknown, "task")}`,
      };
  }
  const cycle = findCycle(deps.keys(), (id) => deps.get(id));
  if (cycle) return { key: `task ${cycle[0]}`, message: planErrors.cycle(cycle).message };
  for (const review of s.reviews) {
    const key = `review ${review.id}`;
    if (review.task_id !== null && !taskKnown(review.task_id))
      return { key, message: `review ${review.id} names ${neverHad(review.task_id, "task")}` };
    if (review.context_id !== null && !entryKnown(review.context_id))
      return { key, message: `review ${review.id} names ${neverHad(review.context_id, "entry")}` };
  }
  for (const h of s.handoffs) {
    const key = `handoff ${h.id}`;
    const task = h.taskIds.find((id) => !taskKnown(id));
    if (task !== undefined) return { key, message: `handoff ${h.id} offers ${neverHad(task, "task")}` };
    const entry = h.contextIds.find((id) => !entryKnown(id));
    if (entry !== undefined) return { key, message: `handoff ${h.id} names ${neverHad(entry, "entry")}` };
    const offered = new Set(h.taskIds);
    const named = [...Object.keys(h.owners), ...(h.moved ?? []), ...(h.conflicts ?? []).map((c) => c.taskId)];
    const stray = named.find((id) => !offered.has(id));
    if (stray !== undefined)
      return {
        key,
        message: `handoff ${h.id} records ${stray} (owners, moved or conflicts) but does not offer it`,
      };
  }
  return undefined;
}
