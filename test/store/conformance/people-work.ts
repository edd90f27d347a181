/**
 * Approvals, handoffs and verdicts (docs/people.md#approvals, #handoffs, #verdicts): decided exactly once, expiring
 * by the clock, handed on atomically under a race, and advice that changes nothing.
 */
import { expect, test } from "bun:test";
import { readExport } from "../../../src/moving/import-file.ts";
import { RoomError } from "../../../src/protocol/errors.ts";
import { iso } from "../../../src/protocol/time.ts";
import type { NewHandoff } from "../../../src/store/people-types.ts";
import {
  agentOffer,
  allEvents,
  expectRefusedUnchanged,
  expectRoomError,
  instanceFor,
  newScope,
  newTask,
  notePayload,
  type Suite,
  snapshot,
} from "./harness.ts";
import { exportText } from "./moving.ts";

const HOUR = 3_600_000;

export function approvalTests(suite: Suite): void {
  test("request: a pending apr-1 announced to all; get and list read it back", async () => {
    const scope = newScope();
    const now = suite.clock.now();
    const approval = await suite.store.requestApproval(scope, {
      requestedBy: "deployer",
      action: "deploy to production",
      details: { service: "api", sha: "abc123" },
      expiresInMs: HOUR,
    });
    expect(approval).toEqual({
      id: "apr-1",
      action: "deploy to production",
      details: { service: "api", sha: "abc123" },
      requestedBy: "deployer",
      status: "pending",
      created_at: iso(now),
      expires_at: iso(now + HOUR),
    });
    expect(await suite.second.getApproval(scope, "apr-1")).toEqual(approval);
    expect(await suite.store.listApprovals(scope, "pending")).toEqual([approval]);
    expect(await suite.store.listApprovals(scope, "approved")).toEqual([]);
    const [event] = await allEvents(suite.store, scope);
    expect([event?.type, event?.from, event?.to, event?.payload]).toEqual([
      "approval_requested",
      "deployer",
      "all",
      { approval },
    ]);
    await expectRoomError(suite.store.getApproval(scope, "apr-9"), "not_found", "Approval not found: apr-9");
  });

  test("named approvers: kept on the record and its event, through a decision, an export and an import", async () => {
    const scope = newScope();
    const approvers = ["human:alice", "human:bob.b@example.com"];
    const approval = await suite.store.requestApproval(scope, {
      requestedBy: "deployer",
      action: "deploy",
      details: { x: 1 },
      approvers,
      expiresInMs: HOUR,
    });
    expect(approval.approvers).toEqual(approvers);
    expect(await suite.second.getApproval(scope, "apr-1")).toEqual(approval);
    const [event] = await allEvents(suite.store, scope);
    expect(event?.payload).toEqual({ approval });
    const decided = await suite.second.decideApproval(scope, {
      id: "apr-1",
      decidedBy: "human:bob.b@example.com",
      decision: "approve",
    });
    expect(decided).toMatchObject({ approvers, status: "approved", details: { x: 1 } });
    expect(await suite.store.listApprovals(scope)).toEqual([decided]);
    const plain = await suite.store.requestApproval(scope, {
      requestedBy: "deployer",
      action: "plain",
      details: {},
      expiresInMs: HOUR,
    });
    expect("approvers" in plain).toBe(false);
    const file = await readExport(
      (async function* () {
        yield new TextEncoder().encode(await exportText(suite.store, scope, suite.clock.now()));
      })(),
      1 << 30,
    );
    const copy = { roomId: `${scope.roomId}-copy`, teamId: scope.teamId };
    try {
      await suite.second.importRoom(copy, file);
    } finally {
      file.close();
    }
    expect(await suite.store.listApprovals(copy)).toEqual([decided, plain]);
  });

  test("decided exactly once: the second decision is refused naming the first, and changes nothing", async () => {
    const scope = newScope();
    await suite.store.requestApproval(scope, {
      requestedBy: "bot",
      action: "drop table",
      details: {},
      expiresInMs: HOUR,
    });
    const now = suite.clock.now();
    const decided = await suite.store.decideApproval(scope, {
      id: "apr-1",
      decidedBy: "human:bob",
      decision: "reject",
      note: "not on a Friday",
    });
    expect(decided).toMatchObject({
      status: "rejected",
      decidedBy: "human:bob",
      note: "not on a Friday",
      decided_at: iso(now),
    });
    const last = (await allEvents(suite.store, scope)).at(-1);
    expect([last?.type, last?.from, last?.to, last?.payload]).toEqual([
      "approval_decided",
      "human:bob",
      "bot",
      {
        approvalId: "apr-1",
        action: "drop table",
        decision: "reject",
        decidedBy: "human:bob",
        note: "not on a Friday",
      },
    ]);
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () =>
        suite.second.decideApproval(scope, { id: "apr-1", decidedBy: "human:carol", decision: "approve" }),
      "conflict",
      `Approval apr-1 was already rejected by human:bob at ${iso(now)}`,
    );
  });

  test("two people deciding at once on two instances: one decision, the other a conflict", async () => {
    const scope = newScope();
    await suite.store.requestApproval(scope, {
      requestedBy: "bot",
      action: "merge",
      details: {},
      expiresInMs: HOUR,
    });
    const results = await Promise.allSettled(
      ["alice", "bob", "carol", "dave"].map((who, i) =>
        instanceFor(suite, i).decideApproval(scope, {
          id: "apr-1",
          decidedBy: `human:${who}`,
          decision: i % 2 === 0 ? "approve" : "reject",
        }),
      ),
    );
    const won = results.filter((r) => r.status === "fulfilled");
    expect(won).toHaveLength(1);
    for (const r of results.filter((r) => r.status === "rejected")) {
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(RoomError);
      expect(((r as PromiseRejectedResult).reason as RoomError).message).toMatch(
        /^Approval apr-1 was already (approved|rejected) by human:/,
      );
    }
    const decisions = (await allEvents(suite.store, scope)).filter((e) => e.type === "approval_decided");
    expect(decisions).toHaveLength(1);
  });

  test("a pending approval past expires_at reads as expired and can no longer be decided", async () => {
    const scope = newScope();
    const approval = await suite.store.requestApproval(scope, {
      requestedBy: "bot",
      action: "rotate keys",
      details: {},
      expiresInMs: 60_000,
    });
    suite.clock.advance(60_000);
    expect(await suite.store.getApproval(scope, "apr-1")).toEqual({ ...approval, status: "expired" });
    expect(await suite.store.listApprovals(scope, "pending")).toEqual([]);
    expect((await suite.store.listApprovals(scope, "expired")).map((a) => a.id)).toEqual(["apr-1"]);
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.decideApproval(scope, { id: "apr-1", decidedBy: "human:bob", decision: "approve" }),
      "conflict",
      `Approval apr-1 expired at ${approval.expires_at}; ask for a new one`,
    );
  });
}

export function handoffTests(suite: Suite): void {
  /** A room with backend owning t1 and t2, bob owning t3, t4 unowned, and one context entry. */
  async function room() {
    const scope = newScope();
    const ids: string[] = [];
    for (const title of ["t1", "t2", "t3", "t4"])
      ids.push((await suite.store.addTask(scope, newTask(title))).id);
    const [t1, t2, t3, t4] = ids as [string, string, string, string];
    for (const [id, owner] of [
      [t1, "backend"],
      [t2, "backend"],
      [t3, "bob"],
    ] as const) {
      await suite.store.updateTask(scope, { taskId: id, owner, agentId: owner });
    }
    const ctx = await suite.store.writeContext(scope, {
      type: "note",
      summary: "where things are",
      consuming_agents: [],
      payload: notePayload(),
      author: "backend",
    });
    return { scope, t1, t2, t3, t4, ctx: ctx.id };
  }

  /** backend's own offer, as an agent, of `taskIds` to frontend with note "n" and no context; `extra` overrides. */
  const byBackend = (taskIds: string[], extra: Partial<NewHandoff> = {}) =>
    agentOffer("backend", "frontend", taskIds, extra);

  test("offer: only own or unowned tasks for an agent, existing tasks and context; announced to the addressee", async () => {
    const { scope, t1, t3, t4, ctx } = await room();
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.offerHandoff(scope, byBackend([t1, t3])),
      "conflict",
      `Task ${t3} is owned by bob: an agent hands on only its own or unowned tasks`,
    );
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.offerHandoff(scope, byBackend(["task-99"])),
      "not_found",
      "Task not found: task-99",
    );
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.offerHandoff(scope, byBackend([], { contextIds: ["ctx-9"] })),
      "not_found",
      "Context entry not found: ctx-9",
    );
    const now = suite.clock.now();
    const offer = await suite.store.offerHandoff(scope, {
      from: "backend",
      to: "frontend",
      taskIds: [t1, t4],
      contextIds: [ctx],
      note: "the API is done; UI next",
      offeredBy: "backend",
      agentOffer: true,
    });
    expect(offer).toEqual({
      id: "hof-1",
      from: "backend",
      to: "frontend",
      taskIds: [t1, t4],
      contextIds: [ctx],
      note: "the API is done; UI next",
      status: "offered",
      offeredBy: "backend",
      owners: { [t1]: "backend", [t4]: null },
      created_at: iso(now),
      updated_at: iso(now),
    });
    const last = (await allEvents(suite.store, scope)).at(-1);
    expect([last?.type, last?.from, last?.to, last?.payload]).toEqual([
      "handoff_offered",
      "backend",
      "frontend",
      { handoff: offer },
    ]);
    expect(await suite.second.listHandoffs(scope, "offered")).toEqual([offer]);
  });

  test("accept: the listed tasks still as offered move to the acceptor; the others are reported, unchanged", async () => {
    const { scope, t1, t2, t4 } = await room();
    await suite.store.offerHandoff(scope, byBackend([t1, t2, t4]));
    // Meanwhile t2 is taken over by someone else.
    const before = await suite.store.getTask(scope, t2);
    await suite.store.updateTask(scope, {
      taskId: t2,
      owner: "ops",
      agentId: "ops",
      expectedVersion: before.version,
    });
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.acceptHandoff(scope, { id: "hof-1", agentId: "mallory" }),
      "forbidden",
      "Handoff hof-1 is offered to frontend, not to mallory",
    );
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.acceptHandoff(scope, { id: "hof-1", agentId: "backend" }),
      "forbidden",
      "Handoff hof-1 is offered to frontend, not to backend",
    );
    const old1 = await suite.store.getTask(scope, t1);
    const accepted = await suite.second.acceptHandoff(scope, { id: "hof-1", agentId: "frontend" });
    expect(accepted).toMatchObject({
      status: "accepted",
      closedBy: "frontend",
      moved: [t1, t4],
      conflicts: [{ taskId: t2, owner: "ops" }],
    });
    expect(await suite.store.getTask(scope, t1)).toMatchObject({
      owner: "frontend",
      version: old1.version + 1,
    });
    expect((await suite.store.getTask(scope, t4)).owner).toBe("frontend");
    expect((await suite.store.getTask(scope, t2)).owner).toBe("ops");
    const tail = (await allEvents(suite.store, scope)).slice(-3);
    expect(tail.map((e) => [e.type, e.from])).toEqual([
      ["task_updated", "frontend"],
      ["task_updated", "frontend"],
      ["handoff_accepted", "frontend"],
    ]);
    expect(tail[0]?.payload.task).toEqual(await suite.store.getTask(scope, t1));
    expect(tail[2]?.payload).toEqual({
      handoffId: "hof-1",
      from: "backend",
      by: "frontend",
      moved: [t1, t4],
      conflicts: [{ taskId: t2, owner: "ops" }],
    });
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.acceptHandoff(scope, { id: "hof-1", agentId: "frontend" }),
      "conflict",
      "Handoff hof-1 was accepted by frontend",
    );
  });

  test("8 agents accept an offer to any at once on two instances: one wins, the others are told who", async () => {
    const { scope, t1, t2 } = await room();
    await suite.store.offerHandoff(scope, byBackend([t1, t2], { to: "any" }));
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        instanceFor(suite, i).acceptHandoff(scope, { id: "hof-1", agentId: `worker-${i}` }),
      ),
    );
    const won = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    expect(won).toHaveLength(1);
    const winner = won[0]?.closedBy as string;
    for (const r of results) {
      if (r.status === "rejected")
        expect((r.reason as RoomError).message).toBe(`Handoff hof-1 was accepted by ${winner}`);
    }
    expect((await suite.store.getTask(scope, t1)).owner).toBe(winner);
    expect((await suite.store.getTask(scope, t2)).owner).toBe(winner);
    expect((await allEvents(suite.store, scope)).filter((e) => e.type === "handoff_accepted")).toHaveLength(
      1,
    );
  });

  test("decline by the addressee, cancel by the offerer; an offer to any cannot be declined", async () => {
    const { scope, t1 } = await room();
    await suite.store.offerHandoff(scope, byBackend([t1]));
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.declineHandoff(scope, { id: "hof-1", agentId: "ops", reason: "busy" }),
      "forbidden",
      "Handoff hof-1 is offered to frontend, not to ops",
    );
    const declined = await suite.store.declineHandoff(scope, {
      id: "hof-1",
      agentId: "frontend",
      reason: "no capacity",
    });
    expect(declined).toMatchObject({ status: "declined", closedBy: "frontend", reason: "no capacity" });
    const last = (await allEvents(suite.store, scope)).at(-1);
    expect([last?.type, last?.to, last?.payload]).toEqual([
      "handoff_declined",
      "backend",
      { handoffId: "hof-1", by: "frontend", reason: "no capacity" },
    ]);
    expect((await suite.store.getTask(scope, t1)).owner).toBe("backend");

    await suite.store.offerHandoff(scope, byBackend([t1], { to: "any" }));
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.declineHandoff(scope, { id: "hof-2", agentId: "frontend", reason: "no" }),
      "conflict",
      "Handoff hof-2 is offered to any agent: leave it for another one (the offerer may cancel it)",
    );
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.cancelHandoff(scope, { id: "hof-2", by: "frontend" }),
      "forbidden",
      "Only the offerer (backend) can cancel handoff hof-2",
    );
    const cancelled = await suite.second.cancelHandoff(scope, { id: "hof-2", by: "backend" });
    expect(cancelled).toMatchObject({ status: "cancelled", closedBy: "backend" });
    expect((await allEvents(suite.store, scope)).at(-1)).toMatchObject({
      type: "handoff_cancelled",
      to: "all",
    });
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.acceptHandoff(scope, { id: "hof-2", agentId: "frontend" }),
      "conflict",
      "Handoff hof-2 was cancelled by backend",
    );
    await expectRoomError(
      suite.store.acceptHandoff(scope, { id: "hof-7", agentId: "x" }),
      "not_found",
      "Handoff not found: hof-7",
    );
  });

  test("a person offers another agent's task on behalf of the room; the plan lock of another holds acceptance back", async () => {
    const { scope, t3 } = await room();
    const offer = await suite.store.offerHandoff(scope, {
      from: "human:alice",
      to: "carol",
      taskIds: [t3],
      contextIds: [],
      note: "bob is out; carol takes it",
      offeredBy: "human:alice",
      agentOffer: false,
    });
    expect(offer.owners).toEqual({ [t3]: "bob" });
    await suite.store.acquireLock(scope, "plan", "bob", 60_000);
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.acceptHandoff(scope, { id: offer.id, agentId: "carol" }),
      "locked",
      /^Plan is locked by bob until /,
    );
    await suite.store.releaseLock(scope, "plan", "bob");
    const accepted = await suite.store.acceptHandoff(scope, { id: offer.id, agentId: "carol" });
    expect(accepted.moved).toEqual([t3]);
    expect((await suite.store.getTask(scope, t3)).owner).toBe("carol");
  });
}

export function verdictTests(suite: Suite): void {
  test("a verdict is kept and announced, newest first, and changes nothing else", async () => {
    const scope = newScope();
    const task = await suite.store.addTask(scope, newTask("review me"));
    await suite.store.takeDriver(scope, { holder: "human:alice", kind: "human" });
    await suite.store.requestApproval(scope, {
      requestedBy: "bot",
      action: "merge",
      details: {},
      expiresInMs: HOUR,
    });
    const before = await snapshot(suite.store, scope);
    const driver = await suite.store.getDriver(scope);
    const now = suite.clock.now();
    const first = await suite.store.recordVerdict(scope, {
      by: "reviewer",
      verdict: "fail",
      summary: "tests missing",
      details: "## Missing\n- edge cases",
      ref: "https://example.com/pr/1",
    });
    expect(first).toEqual({
      id: "vrd-1",
      verdict: "fail",
      summary: "tests missing",
      details: "## Missing\n- edge cases",
      ref: "https://example.com/pr/1",
      by: "reviewer",
      created_at: iso(now),
    });
    const second = await suite.second.recordVerdict(scope, {
      by: "reviewer",
      verdict: "pass",
      summary: "ok",
      details: "",
      ref: null,
    });
    expect(await suite.store.listVerdicts(scope)).toEqual([second, first]);
    const after = await snapshot(suite.store, scope);
    expect(after.plan).toEqual(before.plan);
    expect(await suite.store.getTask(scope, task.id)).toEqual(before.plan.tasks[0] as typeof task);
    expect(await suite.store.getDriver(scope)).toEqual(driver);
    expect((await suite.store.getApproval(scope, "apr-1")).status).toBe("pending");
    const added = after.events.slice(before.events.length);
    expect(added.map((e) => [e.type, e.from, e.to])).toEqual([
      ["verdict_recorded", "reviewer", "all"],
      ["verdict_recorded", "reviewer", "all"],
    ]);
    expect(added[0]?.payload).toEqual({ verdict: first });
  });
}
