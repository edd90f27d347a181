/**
 * People's records as a room's log left them at a seq (docs/people.md#forks), the one reading every driver's fork
 * uses. Each record is created by an event carrying it whole — `review_requested` {review}, `approval_requested`
 * {approval}, `handoff_offered` {handoff}, `verdict_recorded` {verdict} — and closed by one carrying what the
 * decision changed: `review_decided` {review} (whole), `approval_decided` {approvalId, decision, decidedBy, note?},
 * `handoff_accepted` {handoffId, by, moved, conflicts}, `handoff_declined` {handoffId, by, reason},
 * `handoff_cancelled` {handoffId, by}; the decision's time is its event's. `driver_changed` {holder, epoch} says who
 * held the wheel. Events agents posted never count, and a decision on a record that is unknown or already closed is
 * ignored (the store refused such a decision, so the log cannot hold one, except in a hand-made file).
 */
import type { Approval, Handoff, HandoffConflict, Verdict } from "./people.ts";
import type { JsonObject, Review } from "./records.ts";
import type { LoggedEvent } from "./task-log.ts";
import { iso } from "./time.ts";

/** The number of a minted id (`task-7` → 7), 0 for anything else. */
export const serialOf = (id: string): number => {
  const match = /-(\d+)$/.exec(id);
  return match ? Number(match[1]) : 0;
};

/** The highest n of each kind of record id a log names (0 for none). */
export interface IdFloors {
  handoff: number;
  approval: number;
  verdict: number;
  review: number;
}

/** Each kind's record, by the event that creates (or, for reviews, decides) it, and the field holding it whole. */
const CREATED: Record<string, [keyof IdFloors, string]> = {
  handoff_offered: ["handoff", "handoff"],
  approval_requested: ["approval", "approval"],
  verdict_recorded: ["verdict", "verdict"],
  review_requested: ["review", "review"],
  review_decided: ["review", "review"],
};

export const noFloors = (): IdFloors => ({ handoff: 0, approval: 0, verdict: 0, review: 0 });

/**
 * What a room stores of its floors (`rooms.id_floors`): the SQL serials of handoffs, approvals and verdicts never
 * fall below them; reviews are always held as records, so theirs is not needed.
 */
export const forkFloors = ({ review: _review, ...stored }: IdFloors): string => JSON.stringify(stored);

/**
 * Raises `floors` to the id of the record `event` carries whole, if it carries one (agents' posts never do);
 * returns the record. One event at a time, so an import can keep the floors of a log it streams: a room whose log
 * names ids its records do not hold (a fork made before forks copied these records, and any copy of one) must never
 * mint them again.
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

/** Who held the wheel at the seq: the holder of the last change (null once released), and the highest epoch. */
export interface WheelAt {
  holder: string | null;
  epoch: number;
  /** ISO time of the last change of holder, null when the log names none. */
  since: string | null;
}

export interface RebuiltRecords {
  /** Each kind in id order, as the stores list them. */
  reviews: Review[];
  approvals: Approval[];
  handoffs: Handoff[];
  verdicts: Verdict[];
  /** The highest n of each kind of id the log names (a fork never mints one again). */
  floors: IdFloors;
  wheel: WheelAt;
}

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const texts = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
const byId = <T extends { id: string }>(records: Map<string, T>): T[] =>
  [...records.values()].sort((a, b) => serialOf(a.id) - serialOf(b.id));

/** What an approval's decision event makes of it while pending. */
function decided(approval: Approval, payload: JsonObject, at: string): Approval | undefined {
  const decision = payload.decision;
  const by = text(payload.decidedBy);
  if (approval.status !== "pending" || by === undefined) return undefined;
  if (decision !== "approve" && decision !== "reject") return undefined;
  const note = text(payload.note);
  return {
    ...approval,
    status: decision === "approve" ? "approved" : "rejected",
    decidedBy: by,
    ...(note !== undefined ? { note } : {}),
    decided_at: at,
  };
}

/** What a handoff's closing event makes of it while offered. */
function closed(handoff: Handoff, type: string, payload: JsonObject, at: string): Handoff | undefined {
  const by = text(payload.by);
  if (handoff.status !== "offered" || by === undefined) return undefined;
  const base = { ...handoff, closedBy: by, updated_at: at };
  if (type === "handoff_cancelled") return { ...base, status: "cancelled" };
  if (type === "handoff_declined") return { ...base, status: "declined", reason: text(payload.reason) ?? "" };
  const conflicts = Array.isArray(payload.conflicts)
    ? (payload.conflicts as unknown as HandoffConflict[])
    : [];
  return { ...base, status: "accepted", moved: texts(payload.moved), conflicts };
}

const HANDOFF_CLOSINGS: ReadonlySet<string> = new Set([
  "handoff_accepted",
  "handoff_declined",
  "handoff_cancelled",
]);

/** Event types this reading needs besides those naming ids (fork-rebuild.ts FORK_PLAN_TYPES lists them all). */
export const RECORD_EVENT_TYPES = [
  "review_requested",
  "review_decided",
  "approval_requested",
  "approval_decided",
  "handoff_offered",
  ...HANDOFF_CLOSINGS,
  "verdict_recorded",
  "driver_changed",
  "room_forked",
] as const;

/** `floors` raised to the id of every record held (a trimmed room's records may be named by no event it kept). */
export function heldFloors(
  floors: IdFloors,
  held: Pick<RebuiltRecords, "reviews" | "approvals" | "handoffs" | "verdicts">,
): IdFloors {
  const kinds = {
    review: held.reviews,
    approval: held.approvals,
    handoff: held.handoffs,
    verdict: held.verdicts,
  };
  const raised = { ...floors };
  for (const kind of Object.keys(kinds) as (keyof IdFloors)[])
    for (const record of kinds[kind]) raised[kind] = Math.max(raised[kind], serialOf(record.id));
  return raised;
}

/** Replays the log's records, oldest first. */
export function rebuildRecords(events: readonly LoggedEvent[]): RebuiltRecords {
  const reviews = new Map<string, Review>();
  const approvals = new Map<string, Approval>();
  const handoffs = new Map<string, Handoff>();
  const verdicts = new Map<string, Verdict>();
  const floors = noFloors();
  const wheel: WheelAt = { holder: null, epoch: 0, since: null };
  for (const event of events) {
    if (event.posted === true) continue;
    const { type, payload } = event;
    const at = iso(event.ts);
    const named = raiseFloor(floors, event);
    if (named) {
      const maps = { review: reviews, approval: approvals, handoff: handoffs, verdict: verdicts } as const;
      (maps[named.kind] as Map<string, unknown>).set(named.record.id, named.record);
      continue;
    }
    if (type === "approval_decided") {
      const current = approvals.get(text(payload.approvalId) ?? "");
      const next = current && decided(current, payload, at);
      if (next) approvals.set(next.id, next);
    } else if (HANDOFF_CLOSINGS.has(type)) {
      const current = handoffs.get(text(payload.handoffId) ?? "");
      const next = current && closed(current, type, payload, at);
      if (next) handoffs.set(next.id, next);
    } else if (type === "driver_changed") {
      const epoch = typeof payload.epoch === "number" ? payload.epoch : wheel.epoch;
      wheel.holder = text(payload.holder) ?? null;
      wheel.epoch = Math.max(wheel.epoch, epoch);
      wheel.since = at;
    } else if (type === "room_forked") {
      // A fork starts with nobody at the wheel (a fork made before this rule gave it to the forker at epoch 1,
      // which its log does not say: the epochs named later still only grow past the source's).
      wheel.holder = null;
    }
  }
  return {
    reviews: byId(reviews),
    approvals: byId(approvals),
    handoffs: byId(handoffs),
    verdicts: byId(verdicts),
    floors,
    wheel,
  };
}
