import { expect, test } from "bun:test";
import { heldFloors, noFloors, rebuildRecords } from "./fork-records.ts";
import type { Approval, Handoff, Verdict } from "./people.ts";
import type { LoggedEvent } from "./task-log.ts";
import { iso } from "./time.ts";

const ev = (s: number, type: string, payload: Record<string, unknown>, posted = false): LoggedEvent => ({
  type,
  ts: s * 1000,
  payload: payload as LoggedEvent["payload"],
  ...(posted ? { posted } : {}),
});

const approval = (id: string, extra: Partial<Approval> = {}): Approval => ({
  id,
  action: "deploy",
  details: { env: "prod" },
  requestedBy: "bot",
  status: "pending",
  created_at: iso(1000),
  expires_at: iso(3_601_000),
  ...extra,
});
const handoff = (id: string, extra: Partial<Handoff> = {}): Handoff => ({
  id,
  from: "a",
  to: "b",
  taskIds: ["task-1"],
  contextIds: [],
  note: "yours",
  status: "offered",
  offeredBy: "a",
  owners: { "task-1": "a" },
  created_at: iso(1000),
  updated_at: iso(1000),
  ...extra,
});
const verdict = (id: string): Verdict => ({
  id,
  verdict: "pass",
  summary: "ok",
  details: "",
  ref: null,
  by: "r",
  created_at: iso(1000),
});

test("approvals as they stood: requested whole, decided by the decision event at its time; pending ones stay pending", () => {
  const events = [
    ev(1, "approval_requested", { approval: approval("apr-1") }),
    ev(2, "approval_requested", { approval: approval("apr-2", { approvers: ["human:ann"] }) }),
    ev(3, "approval_decided", {
      approvalId: "apr-1",
      action: "deploy",
      decision: "reject",
      decidedBy: "human:ann",
      note: "not today",
    }),
    ev(4, "approval_requested", { approval: approval("apr-3") }),
  ];
  expect(rebuildRecords(events.slice(0, 2)).approvals).toEqual([
    approval("apr-1"),
    approval("apr-2", { approvers: ["human:ann"] }),
  ]);
  expect(rebuildRecords(events).approvals).toEqual([
    approval("apr-1", {
      status: "rejected",
      decidedBy: "human:ann",
      note: "not today",
      decided_at: iso(3000),
    }),
    approval("apr-2", { approvers: ["human:ann"] }),
    approval("apr-3"),
  ]);
  // A second decision, one of an unknown approval, or one without a decision the store makes, changes nothing.
  const odd = rebuildRecords([
    ...events,
    ev(5, "approval_decided", { approvalId: "apr-1", decision: "approve", decidedBy: "human:bob" }),
    ev(6, "approval_decided", { approvalId: "apr-9", decision: "approve", decidedBy: "human:bob" }),
    ev(7, "approval_decided", { approvalId: "apr-3", decision: "maybe", decidedBy: "human:bob" }),
  ]);
  expect(odd.approvals).toEqual(rebuildRecords(events).approvals);
});

test("handoffs as they stood: offered until accepted, declined or cancelled, with who closed them and when", () => {
  const events = [
    ev(1, "handoff_offered", { handoff: handoff("hof-1") }),
    ev(2, "handoff_offered", { handoff: handoff("hof-2", { to: "any" }) }),
    ev(3, "handoff_offered", { handoff: handoff("hof-3") }),
    ev(4, "handoff_offered", { handoff: handoff("hof-4") }),
    ev(5, "handoff_accepted", {
      handoffId: "hof-1",
      from: "a",
      by: "b",
      moved: [],
      conflicts: [{ taskId: "task-1", owner: null }],
    }),
    ev(6, "handoff_cancelled", { handoffId: "hof-2", by: "a" }),
    ev(7, "handoff_declined", { handoffId: "hof-3", by: "b", reason: "busy" }),
  ];
  expect(rebuildRecords(events).handoffs).toEqual([
    handoff("hof-1", {
      status: "accepted",
      closedBy: "b",
      moved: [],
      conflicts: [{ taskId: "task-1", owner: null }],
      updated_at: iso(5000),
    }),
    handoff("hof-2", { to: "any", status: "cancelled", closedBy: "a", updated_at: iso(6000) }),
    handoff("hof-3", { status: "declined", closedBy: "b", reason: "busy", updated_at: iso(7000) }),
    handoff("hof-4"),
  ]);
  // A closed offer stays as it was closed.
  const again = rebuildRecords([...events, ev(8, "handoff_cancelled", { handoffId: "hof-3", by: "a" })]);
  expect(again.handoffs).toEqual(rebuildRecords(events).handoffs);
});

test("verdicts and reviews whole, in id order; the wheel's holder and highest epoch; agents' posts never count", () => {
  const review = (id: string, status: string) => ({ id, status, requester: "a", reviewer: "b" });
  const records = rebuildRecords([
    ev(1, "verdict_recorded", { verdict: verdict("vrd-2") }),
    ev(2, "review_requested", { review: review("rev-1", "pending") }),
    ev(3, "verdict_recorded", { verdict: verdict("vrd-10") }),
    ev(4, "review_decided", { review: review("rev-1", "approved") }),
    ev(5, "driver_changed", { holder: "human:ann", previous: null, epoch: 1, reason: "taken" }),
    ev(6, "driver_changed", { holder: null, previous: "human:ann", epoch: 2, reason: "released" }),
    ev(7, "driver_changed", { holder: "agent-x", previous: null, epoch: 3, reason: "claimed" }),
    ev(8, "approval_requested", { approval: approval("apr-7") }, true),
    ev(9, "driver_changed", { holder: "mallory", epoch: 99 }, true),
    ev(10, "handoff_offered", { handoff: "not a handoff" }),
  ]);
  expect(records.verdicts.map((v) => v.id)).toEqual(["vrd-2", "vrd-10"]);
  expect(records.reviews).toEqual([review("rev-1", "approved")] as never);
  expect(records.approvals).toEqual([]);
  expect(records.wheel).toEqual({ holder: "agent-x", epoch: 3, since: iso(7000) });
  expect(records.floors).toEqual({ handoff: 0, approval: 0, verdict: 10, review: 1 });
  // A fork's room_forked leaves the wheel free (its epoch stays).
  const forked = rebuildRecords([
    ev(1, "driver_changed", { holder: "h", epoch: 4 }),
    ev(2, "room_forked", {}),
  ]);
  expect(forked.wheel).toEqual({ holder: null, epoch: 4, since: iso(1000) });
});

test("id floors: the highest id the log names, raised to every record held", () => {
  const floors = { ...noFloors(), handoff: 5 };
  expect(
    heldFloors(floors, {
      reviews: [],
      approvals: [approval("apr-3")],
      handoffs: [handoff("hof-2")],
      verdicts: [verdict("vrd-4")],
    }),
  ).toEqual({ handoff: 5, approval: 3, verdict: 4, review: 0 });
  expect(floors.approval).toBe(0);
});
