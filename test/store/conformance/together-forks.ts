/**
 * Forks together with the rest (docs/people.md "Forks"): a fork at a seq must read like the room built by writes
 * read when its head was that seq — plan, context, search, reviews, analytics, task counts — except what a fork
 * releases or does not copy (leases, claims, cursors, presence, webhooks); its posted events stay deletable and
 * tombstones stay tombstones; the ids it mints never repeat one it holds or its log names.
 */
import { expect, test } from "bun:test";
import { computeAnalytics, type RoomAnalytics } from "../../../src/protocol/analytics.ts";
import type { Task } from "../../../src/protocol/records.ts";
import { queryTerms, SEARCH_KINDS, type SearchHit } from "../../../src/protocol/search.ts";
import { iso } from "../../../src/protocol/time.ts";
import type { RoomScope, RoomStore } from "../../../src/store/types.ts";
import {
  agentOffer,
  allEvents,
  apiContractPayload,
  claimedRoom,
  expectRoomError,
  newTask,
  notePayload,
  type Suite,
} from "./harness.ts";

const LEASE = 3_600_000;
const QUERIES = ["login", "users", "flaky test", "deploy", "retry"];
const FORKER = "human:fork";
const as = (scope: RoomScope, actor: string): RoomScope => ({ ...scope, actor });
const newRoomId = () => `f-${crypto.randomUUID().slice(0, 10)}`;

type Observed = Awaited<ReturnType<typeof observed>>;

/**
 * What a fork at a seq shows of the room recorded there: a leased task released as its expiry releases it — at the
 * lease's end when it ran out by the seq's moment (`standMs`, the next event's time), else at the fork's making.
 */
function asForked(state: Observed, standMs: number, madeMs: number): Observed {
  const tasks = state.plan.tasks.map((task): Task => {
    const { lease_expires_at: end, ...rest } = task;
    if (end === undefined) return task;
    const at = Date.parse(end) <= standMs ? end : iso(madeMs);
    return { ...rest, status: "pending", owner: null, version: task.version + 1, updated_at: at };
  });
  const byStatus = { pending: 0, in_progress: 0, done: 0, blocked: 0 };
  for (const task of tasks) byStatus[task.status] += 1;
  const changed = tasks.filter((t, i) => t !== state.plan.tasks[i]).map((t) => t.updated_at);
  const updated = [state.plan.updated_at, ...changed]
    .filter((t): t is string => t !== null)
    .sort()
    .at(-1);
  return {
    ...state,
    plan: { ...state.plan, tasks, updated_at: updated ?? null },
    counts: { ...state.counts, tasksByStatus: byStatus },
    analytics: { ...state.analytics, tasksByStatus: byStatus },
  };
}

async function searchAll(store: RoomStore, scope: RoomScope): Promise<SearchHit[][]> {
  return Promise.all(
    QUERIES.map((q) => store.search(scope, { terms: queryTerms(q), types: SEARCH_KINDS, limit: 50 })),
  );
}

/** What a fork must reproduce, read from a room. */
async function observed(store: RoomStore, scope: RoomScope) {
  const [plan, context, reviews, info, log] = await Promise.all([
    store.readPlan(scope),
    store.listContext(scope, {}),
    store.listReviews(scope, {}),
    store.roomInfo(scope),
    store.analyticsLog(scope),
  ]);
  return {
    plan: { ...plan, project: "" },
    context,
    reviews,
    counts: { taskCount: info.taskCount, tasksByStatus: info.tasksByStatus, contextCount: info.contextCount },
    search: await searchAll(store, scope),
    analytics: { ...computeAnalytics("", log), roomId: "" } as RoomAnalytics,
  };
}

/** A fork's analytics without its own room_forked event. */
function withoutForkEvent(a: RoomAnalytics): RoomAnalytics {
  const perAgent = { ...a.eventsPerAgent };
  if (perAgent[FORKER] === 1) delete perAgent[FORKER];
  else perAgent[FORKER] = (perAgent[FORKER] ?? 1) - 1;
  return { ...a, eventCount: a.eventCount - 1, eventsPerAgent: perAgent };
}

export function togetherForkTests(suite: Suite): void {
  test("a fork at every recorded seq reads like the room did then: plan, context, search, reviews, analytics, counts", async () => {
    const { store, clock } = suite;
    const scope = await claimedRoom(store);
    const recorded = new Map<number, Observed>();
    const step = async (action: () => Promise<unknown>) => {
      clock.advance(1000);
      await action();
      recorded.set((await store.roomInfo(scope)).eventCount, await observed(store, scope));
    };
    const post = (from: string, type: string, text: string) =>
      store.postEvent(as(scope, from), { type, from, to: "all", payload: { text } });
    await step(() =>
      store.addTask(scope, newTask("login form", { description: "users sign in", agentId: "a" })),
    );
    await step(() =>
      store.addTask(scope, newTask("deploy", { description: "ship the login", agentId: "a" })),
    );
    await step(() => store.addTask(scope, newTask("flaky test", { description: "retry it", agentId: "b" })));
    await step(() =>
      store.writeContext(scope, {
        type: "api_contract",
        summary: "users API",
        consuming_agents: ["web"],
        payload: apiContractPayload(),
        author: "api",
      }),
    );
    await step(() =>
      store.claimTask(as(scope, "alice"), { taskId: "task-1", agentId: "alice", leaseMs: LEASE }),
    );
    await step(() => post("alice", "note", "login needs a retry on timeout"));
    // Posted and deleted in one step: no recorded state ever held it live (a fork copies tombstones as they are).
    await step(async () => {
      const secret = await post("bob", "note", "deploy token is hunter2");
      await store.deleteEvent(scope, { eventId: secret.id, by: "bob" });
    });
    await step(() =>
      store.requestReview(scope, {
        requester: "alice",
        reviewer: "bob",
        subject: "login form",
        details: "",
        taskId: "task-1",
      }),
    );
    await step(() =>
      store.updateContext(scope, {
        id: "ctx-1",
        author: "api",
        payload: { ...apiContractPayload(), version: "2" },
      }),
    );
    await step(() =>
      store.claimTask(as(scope, "carol"), { taskId: "task-3", agentId: "carol", leaseMs: 1000 }),
    );
    // carol's lease runs out; the next plan write records it.
    await step(() => store.addTask(scope, newTask("docs", { description: "users guide", agentId: "a" })));
    await step(() => store.decideReview(scope, { reviewId: "rev-1", agentId: "bob", status: "approved" }));
    await step(() =>
      store.offerHandoff(scope, {
        from: "alice",
        to: "dave",
        taskIds: ["task-1"],
        contextIds: ["ctx-1"],
        note: "login is yours",
        offeredBy: "alice",
        agentOffer: true,
      }),
    );
    await step(() => store.acceptHandoff(scope, { id: "hof-1", agentId: "dave" }));
    await step(() =>
      store.claimTask(as(scope, "erin"), { taskId: "task-2", agentId: "erin", leaseMs: LEASE }),
    );
    await step(() => store.leaveRoom(scope, "erin"));
    await step(() =>
      store.writeContext(scope, {
        type: "note",
        summary: "retry policy",
        consuming_agents: [],
        payload: notePayload("retry three times"),
        author: "b",
      }),
    );
    await step(() => store.deleteTask(scope, { taskId: "task-4", agentId: "a" }));
    await step(() => store.updateTask(scope, { taskId: "task-1", agentId: "dave", status: "done" }));
    await step(() =>
      store.postEvent(scope, {
        type: "human_message",
        from: "human:alice",
        to: "dave",
        payload: { text: "deploy?" },
      }),
    );
    // Written and deleted in one step (a delete removes an entry's versions: no fork can show it before that).
    await step(async () => {
      const scratch = await store.writeContext(scope, {
        type: "note",
        summary: "scratch",
        consuming_agents: ["dave"],
        payload: notePayload("users"),
        author: "b",
      });
      await store.deleteContext(scope, { id: scratch.id, agentId: "b" });
    });

    // The queries find every kind of document (so the comparison below is not of empty answers).
    const found = new Set(
      [...recorded.values()]
        .at(-1)
        ?.search.flat()
        .map((hit) => hit.type),
    );
    expect([...found].sort()).toEqual(["context", "event", "task"]);
    const events = await allEvents(store, scope);
    clock.advance(1000);
    const made = clock.now();
    for (const [seq, recordedThen] of recorded) {
      const roomId = newRoomId();
      await (seq % 2 === 0 ? store : suite.second).forkRoom(scope, {
        newRoomId: roomId,
        atSeq: seq,
        by: FORKER,
      });
      const fork = { roomId, teamId: scope.teamId };
      const got = await observed(store, fork);
      const standMs = seq === events.length ? made : Date.parse(events[seq]?.timestamp ?? "");
      const expected = asForked(recordedThen, standMs, made);
      expect({ ...got, analytics: withoutForkEvent(got.analytics) }, `fork at ${seq}`).toEqual(expected);
    }
    // Some forks released a lease (the comparison above is not only of unleased plans).
    expect([...recorded.values()].some((r) => r.plan.tasks.some((t) => t.lease_expires_at))).toBe(true);
  });

  test("tombstones stay tombstones, posted events stay deletable by their author, roomd's own stay undeletable", async () => {
    const { store } = suite;
    const scope = await claimedRoom(store);
    await store.addTask(scope, newTask("login"));
    const kept = await store.postEvent(scope, {
      type: "note",
      from: "alice",
      to: "all",
      payload: { text: "login ok" },
    });
    const gone = await store.postEvent(scope, {
      type: "note",
      from: "bob",
      to: "all",
      payload: { text: "login key" },
    });
    const head = (await store.roomInfo(scope)).eventCount;
    await store.deleteEvent(scope, { eventId: gone.id, by: "bob" });
    // Forked at the seq before the deletion: the deleted payload is gone from the store, so it stays gone.
    const fork = { roomId: newRoomId(), teamId: scope.teamId };
    await suite.second.forkRoom(scope, { newRoomId: fork.roomId, atSeq: head, by: FORKER });
    const events = await allEvents(store, fork);
    expect(events.find((e) => e.id === gone.id)).toMatchObject({ payload: {}, deleted: { by: "bob" } });
    const hits = await store.search(fork, { terms: ["login"], types: ["event"], limit: 10 });
    expect(hits.map((h) => h.id)).toEqual([kept.id]);
    // The posted event is deletable in the fork as in the source: by its author, not by another bound agent.
    await expectRoomError(
      store.deleteEvent(fork, { eventId: kept.id, by: "mallory", onlyAuthor: "mallory" }),
      "forbidden",
      `Event ${kept.id} was posted by alice; only its author or an unbound team key may delete it`,
    );
    const tomb = await suite.second.deleteEvent(fork, { eventId: kept.id, by: "alice", onlyAuthor: "alice" });
    expect(tomb).toMatchObject({ id: kept.id, payload: {}, deleted: { by: "alice" } });
    expect(await store.search(fork, { terms: ["login"], types: ["event"], limit: 10 })).toEqual([]);
    // The tombstone copied from the source answers as it is; roomd's own events are refused.
    expect((await store.deleteEvent(fork, { eventId: gone.id, by: "bob" })).deleted?.by).toBe("bob");
    await expectRoomError(
      store.deleteEvent(fork, { eventId: "evt-1", by: "alice" }),
      "forbidden",
      /^Event evt-1 \(task_added\) was appended by roomd/,
    );
    // The source is untouched.
    expect(
      (await store.search(scope, { terms: ["login"], types: ["event"], limit: 10 })).map((h) => h.id),
    ).toEqual([kept.id]);
  });

  test("a leased task is released in the fork, as its expiry would; claims, cursors and webhooks are not copied", async () => {
    const { store, clock } = suite;
    const scope = await claimedRoom(store);
    const task = await store.addTask(scope, newTask("build"));
    const claimed = await store.claimTask(as(scope, "alice"), {
      taskId: task.id,
      agentId: "alice",
      leaseMs: 60_000,
    });
    await store.claimFiles(as(scope, "alice"), { agentId: "alice", paths: ["src/**"], ttlMs: 60_000 });
    await store.consumeEvents(scope, "alice", 100);
    await store.createWebhook(
      scope,
      {
        webhookId: `wh_${crypto.randomUUID().replaceAll("-", "")}`,
        url: "https://hooks.example.com/x",
        types: [],
        createdAt: iso(clock.now()),
      },
      10,
    );
    const fork = { roomId: newRoomId(), teamId: scope.teamId };
    await store.forkRoom(scope, { newRoomId: fork.roomId, by: FORKER });
    const { lease_expires_at: _lease, ...held } = claimed;
    const released: Task = {
      ...held,
      status: "pending",
      owner: null,
      version: held.version + 1,
      updated_at: iso(clock.now()),
    };
    expect(await store.getTask(fork, task.id)).toEqual(released);
    expect((await store.roomInfo(fork)).tasksByStatus).toMatchObject({ in_progress: 0, pending: 1 });
    // Nothing runs out later: long after the source's lease, the fork's task is as the fork released it.
    clock.advance(120_000);
    expect(await suite.second.getTask(fork, task.id)).toEqual(released);
    expect((await store.getTask(scope, task.id)).owner).toBeNull();
    await store.addTask(fork, newTask("more"));
    expect((await allEvents(store, fork)).map((e) => e.type)).not.toContain("task_lease_expired");
    // alice takes a lease again in the fork when she works there.
    const again = await store.claimTask(as(fork, "alice"), {
      taskId: task.id,
      agentId: "alice",
      leaseMs: 60_000,
    });
    expect(again).toMatchObject({
      owner: "alice",
      version: released.version + 1,
      lease_expires_at: iso(clock.now() + 60_000),
    });
    expect(await store.listClaims(fork, {})).toEqual([]);
    expect(await store.listWebhooks(fork)).toEqual([]);
    expect((await store.claimDeliveries(fork.roomId, { limit: 50, leaseMs: 30_000 })).deliveries).toEqual([]);
    // Cursors start anew: alice receives the copied log again in the fork.
    const batch = await store.consumeEvents(fork, "alice", 100);
    expect(batch.events[0]?.seq).toBe(1);
  });

  test("ids a fork mints never repeat one it holds: reviews, handoffs, approvals and verdicts are copied, its own continue after them", async () => {
    const { store } = suite;
    const scope = await claimedRoom(store);
    const task = await store.addTask(scope, newTask("t"));
    await store.requestReview(scope, { requester: "a", reviewer: "b", subject: "s", details: "" });
    await store.requestReview(scope, {
      requester: "a",
      reviewer: "c",
      subject: "s2",
      details: "",
      taskId: task.id,
    });
    await store.decideReview(scope, { reviewId: "rev-2", agentId: "c", status: "rejected", comment: "redo" });
    for (let i = 0; i < 2; i++) {
      await store.offerHandoff(scope, agentOffer("a", "b", []));
      await store.requestApproval(scope, {
        requestedBy: "a",
        action: "x",
        details: {},
        expiresInMs: 3_600_000,
      });
      await store.recordVerdict(scope, { by: "r", verdict: "pass", summary: "ok", details: "", ref: null });
    }
    const reviews = await store.listReviews(scope, {});
    const fork = { roomId: newRoomId(), teamId: scope.teamId };
    await store.forkRoom(scope, { newRoomId: fork.roomId, by: FORKER });
    expect(await suite.second.listReviews(fork, {})).toEqual(reviews);
    // Forked at the head: every record as it is in the source, expiries included.
    expect(await suite.second.listHandoffs(fork)).toEqual(await store.listHandoffs(scope));
    expect(await store.listApprovals(fork)).toEqual(await store.listApprovals(scope));
    expect(await store.listVerdicts(fork)).toEqual(await store.listVerdicts(scope));
    // A pending review the fork's log announces can be decided in the fork.
    expect(
      (await store.decideReview(fork, { reviewId: "rev-1", agentId: "b", status: "approved" })).status,
    ).toBe("approved");
    expect((await store.listReviews(scope, { status: "pending" })).map((r) => r.id)).toEqual(["rev-1"]);
    expect(
      (await store.requestReview(fork, { requester: "a", reviewer: "b", subject: "s3", details: "" })).id,
    ).toBe("rev-3");
    const handoff = await suite.second.offerHandoff(fork, agentOffer("a", "b", []));
    expect(handoff.id).toBe("hof-3");
    const approval = await store.requestApproval(fork, {
      requestedBy: "a",
      action: "x",
      details: {},
      expiresInMs: 3_600_000,
    });
    expect(approval.id).toBe("apr-3");
    const verdict = await store.recordVerdict(fork, {
      by: "r",
      verdict: "fail",
      summary: "no",
      details: "",
      ref: null,
    });
    expect(verdict.id).toBe("vrd-3");
  });
}
