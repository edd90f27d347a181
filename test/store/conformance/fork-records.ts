/**
 * Forks are faithful (docs/people.md#forks): a fork at every seq holds the approvals, handoffs, reviews and verdicts
 * the room held then, under their ids — a pending approval is decided in the fork, an open offer answered there — and
 * releases what running agents and people held: a leased task is pending and unowned, nobody drives, no lock or file
 * claim; `room_forked` lists the released tasks, so a fork of the fork replays to the same plan.
 */
import { expect, test } from "bun:test";
import type { Approval } from "../../../src/protocol/people.ts";
import type { Task } from "../../../src/protocol/records.ts";
import { iso } from "../../../src/protocol/time.ts";
import type { RoomScope, RoomStore } from "../../../src/store/types.ts";
import { agentOffer, allEvents, claimedRoom, newTask, type Suite } from "./harness.ts";

const HOUR = 3_600_000;
const newRoomId = () => `f-${crypto.randomUUID().slice(0, 10)}`;
const as = (scope: RoomScope, actor: string): RoomScope => ({ ...scope, actor });

async function recordsOf(store: RoomStore, scope: RoomScope) {
  const [approvals, handoffs, reviews, verdicts] = await Promise.all([
    store.listApprovals(scope),
    store.listHandoffs(scope),
    store.listReviews(scope, {}),
    store.listVerdicts(scope),
  ]);
  return { approvals, handoffs, reviews, verdicts };
}

/**
 * An approval as a fork holds it: pending at the seq's moment (`standMs`, just before the next event), it keeps the
 * time it had left then, from the fork's making; run out by then, it reads as expired.
 */
function forkedApproval(a: Approval, standMs: number, nowMs: number): Approval {
  if (a.status !== "pending") return a;
  const end = Date.parse(a.expires_at);
  if (end <= standMs) return { ...a, status: "expired" };
  return { ...a, expires_at: iso(nowMs + end - standMs) };
}

export function forkRecordTests(suite: Suite): void {
  test("a fork at every seq holds the approvals, handoffs, reviews and verdicts of then, ids unchanged", async () => {
    const { store, clock } = suite;
    const scope = await claimedRoom(store);
    const recorded = new Map<number, Awaited<ReturnType<typeof recordsOf>>>();
    const step = async (action: () => Promise<unknown>, ms = 1000) => {
      clock.advance(ms);
      await action();
      recorded.set((await store.roomInfo(scope)).eventCount, await recordsOf(store, scope));
    };
    const ask = (action: string, expiresInMs: number) =>
      store.requestApproval(scope, { requestedBy: "bot", action, details: { n: 1 }, expiresInMs });
    await step(() => store.addTask(scope, newTask("build", { agentId: "alice" })));
    await step(() => store.updateTask(scope, { taskId: "task-1", owner: "alice", agentId: "alice" }));
    await step(() => ask("deploy", HOUR));
    await step(() => store.offerHandoff(scope, agentOffer("alice", "bob", ["task-1"])));
    await step(() =>
      store.requestReview(scope, { requester: "alice", reviewer: "bob", subject: "build", details: "" }),
    );
    await step(() =>
      store.recordVerdict(scope, { by: "r", verdict: "pass", summary: "ok", details: "", ref: null }),
    );
    await step(() =>
      store.decideApproval(scope, { id: "apr-1", decidedBy: "human:ann", decision: "reject", note: "no" }),
    );
    // apr-2 runs out two minutes later: forks from then on show it expired.
    await step(() => ask("drop", 60_000));
    await step(() => store.acceptHandoff(scope, { id: "hof-1", agentId: "bob" }), 120_000);
    await step(() => store.offerHandoff(scope, agentOffer("bob", "any", [])));
    await step(() => store.cancelHandoff(scope, { id: "hof-2", by: "bob" }));
    await step(() => store.offerHandoff(scope, agentOffer("bob", "carol", [])));
    await step(() => store.declineHandoff(scope, { id: "hof-3", agentId: "carol", reason: "busy" }));
    await step(() => store.decideReview(scope, { reviewId: "rev-1", agentId: "bob", status: "approved" }));
    await step(() => ask("ship", HOUR));

    const events = await allEvents(store, scope);
    const head = events.length;
    clock.advance(5000);
    const made = clock.now();
    for (const [seq, expected] of recorded) {
      const standMs = seq === head ? made : Date.parse(events[seq]?.timestamp ?? "");
      const roomId = newRoomId();
      await (seq % 2 === 0 ? store : suite.second).forkRoom(scope, {
        newRoomId: roomId,
        atSeq: seq,
        by: "human:ann",
      });
      const fork = { roomId, teamId: scope.teamId };
      expect(await recordsOf(store, fork), `fork at ${seq}`).toEqual({
        ...expected,
        approvals: expected.approvals.map((a) => forkedApproval(a, standMs, made)),
      });
    }
    // The source holds what it held.
    expect((await store.listApprovals(scope)).map((a) => a.status)).toEqual([
      "rejected",
      "expired",
      "pending",
    ]);
  });

  test("a fork at approval_requested can decide it; a fork at handoff_offered can accept it; the source is untouched", async () => {
    const { store } = suite;
    const scope = await claimedRoom(store);
    await store.addTask(scope, newTask("build", { agentId: "alice" }));
    await store.updateTask(scope, { taskId: "task-1", owner: "alice", agentId: "alice" });
    const asked = await store.requestApproval(scope, {
      requestedBy: "bot",
      action: "deploy",
      details: { env: "prod" },
      expiresInMs: HOUR,
      approvers: ["human:ann"],
    });
    const atAsk = (await store.roomInfo(scope)).eventCount;
    await store.offerHandoff(scope, agentOffer("alice", "bob", ["task-1"]));
    const atOffer = (await store.roomInfo(scope)).eventCount;
    await store.decideApproval(scope, { id: asked.id, decidedBy: "human:ann", decision: "approve" });
    await store.acceptHandoff(scope, { id: "hof-1", agentId: "bob" });

    const fork = { roomId: newRoomId(), teamId: scope.teamId };
    await suite.second.forkRoom(scope, { newRoomId: fork.roomId, atSeq: atAsk, by: "human:ann" });
    expect(await store.listApprovals(fork)).toEqual([asked]);
    const decided = await store.decideApproval(fork, {
      id: asked.id,
      decidedBy: "human:ann",
      decision: "reject",
    });
    expect(decided).toMatchObject({ id: "apr-1", status: "rejected", decidedBy: "human:ann" });
    expect((await store.listHandoffs(fork)).length).toBe(0);
    // The fork's next approval continues after the copied one.
    const next = await store.requestApproval(fork, {
      requestedBy: "bot",
      action: "x",
      details: {},
      expiresInMs: HOUR,
    });
    expect(next.id).toBe("apr-2");

    const atHandoff = { roomId: newRoomId(), teamId: scope.teamId };
    await store.forkRoom(scope, { newRoomId: atHandoff.roomId, atSeq: atOffer, by: "human:ann" });
    expect((await store.listHandoffs(atHandoff)).map((h) => [h.id, h.status])).toEqual([
      ["hof-1", "offered"],
    ]);
    const accepted = await suite.second.acceptHandoff(atHandoff, { id: "hof-1", agentId: "bob" });
    expect(accepted).toMatchObject({ status: "accepted", moved: ["task-1"], conflicts: [] });
    expect((await store.getTask(atHandoff, "task-1")).owner).toBe("bob");

    expect((await store.listApprovals(scope)).map((a) => a.status)).toEqual(["approved"]);
    expect((await store.listHandoffs(scope)).map((h) => h.status)).toEqual(["accepted"]);
  });

  test("live holdings are released: a leased task is pending and unowned, nobody drives, no lock or claim", async () => {
    const { store, clock } = suite;
    const scope = await claimedRoom(store);
    await store.addTask(scope, newTask("build"));
    await store.addTask(scope, newTask("test"));
    await store.addTask(scope, newTask("docs"));
    const leased = await store.claimTask(as(scope, "alice"), {
      taskId: "task-1",
      agentId: "alice",
      leaseMs: 60_000,
    });
    await store.updateTask(scope, {
      taskId: "task-3",
      owner: "carol",
      status: "in_progress",
      agentId: "carol",
    });
    await store.claimTask(as(scope, "bob"), { taskId: "task-2", agentId: "bob", leaseMs: 1000 });
    const atShort = (await store.roomInfo(scope)).eventCount;
    // bob's lease runs out before the next event (a post records no expiry).
    clock.advance(2000);
    await store.postEvent(scope, { type: "note", from: "x", to: "all", payload: {} });
    const wheel = await store.takeDriver(scope, { holder: "human:ann", kind: "human" });
    await store.acquireLock(scope, "db", "alice", 60_000);
    await store.claimFiles(as(scope, "alice"), { agentId: "alice", paths: ["src/**"], ttlMs: 60_000 });
    clock.advance(1000);

    const fork = { roomId: newRoomId(), teamId: scope.teamId };
    await store.forkRoom(scope, { newRoomId: fork.roomId, by: "human:ann" });
    const { lease_expires_at: _lease, ...unleased } = leased;
    const alices: Task = { ...unleased, status: "pending", owner: null, version: leased.version + 1 };
    expect(await suite.second.getTask(fork, "task-1")).toEqual({ ...alices, updated_at: iso(clock.now()) });
    // bob's lease had run out: released as its expiry released it, at its end.
    expect(await store.getTask(fork, "task-2")).toMatchObject({ status: "pending", owner: null });
    // Owned without a lease: no running agent's holding, kept.
    expect(await store.getTask(fork, "task-3")).toMatchObject({ status: "in_progress", owner: "carol" });
    expect((await store.roomInfo(fork)).tasksByStatus).toEqual({
      pending: 2,
      in_progress: 1,
      done: 0,
      blocked: 0,
    });
    expect(await store.getDriver(fork)).toEqual({
      holder: null,
      holderKind: null,
      epoch: wheel.epoch + 1,
      since: iso(clock.now()),
    });
    expect(await store.listLocks(fork)).toEqual([]);
    expect(await store.listClaims(fork, {})).toEqual([]);
    const forkedEvent = (await allEvents(store, fork)).at(-1);
    expect(forkedEvent?.type).toBe("room_forked");
    expect(forkedEvent?.payload.released).toEqual([
      await store.getTask(fork, "task-1"),
      await store.getTask(fork, "task-2"),
    ]);
    // An agent takes the task in the fork; a person takes the wheel there.
    expect(
      (await store.claimTask(as(fork, "dave"), { taskId: "task-1", agentId: "dave", leaseMs: 60_000 })).owner,
    ).toBe("dave");
    expect((await store.takeDriver(fork, { holder: "human:ann", kind: "human" })).epoch).toBe(
      wheel.epoch + 2,
    );

    // At bob's claim, the lease ran out by the moment of that seq (the next event came 2 s later): its end.
    const early = { roomId: newRoomId(), teamId: scope.teamId };
    await store.forkRoom(scope, { newRoomId: early.roomId, atSeq: atShort, by: "human:ann" });
    const bobs = await store.getTask(scope, "task-2");
    expect(await store.getTask(early, "task-2")).toMatchObject({
      status: "pending",
      owner: null,
      updated_at: bobs.updated_at,
    });
    expect((await store.getDriver(early)).epoch).toBe(0);

    // A fork of the fork at its head replays its log to the same plan.
    const again = { roomId: newRoomId(), teamId: scope.teamId };
    const head = (await store.roomInfo(early)).eventCount;
    await suite.second.forkRoom(early, { newRoomId: again.roomId, atSeq: head, by: "human:ann" });
    expect((await store.readPlan(again)).tasks).toEqual((await store.readPlan(early)).tasks);
  });
}
