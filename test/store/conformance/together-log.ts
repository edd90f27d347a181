/**
 * What reads the log and the plan together with leases, handoffs, people and leave_room: the analytics (who owned
 * what, read as protocol/task-log.ts reads it), get_my_summary and the bridge's digest (tasks as reads show them),
 * presence `left` in every view of who is here, leave_room by the agent driving the room, and webhooks fed by
 * people's actions (and not copied by forks).
 */
import { expect, test } from "bun:test";
import { computeAnalytics } from "../../../src/protocol/analytics.ts";
import { iso } from "../../../src/protocol/time.ts";
import type { RoomScope } from "../../../src/store/types.ts";
import { agentOffer, allEvents, claimedRoom, newTask, type Suite } from "./harness.ts";

const LEASE = 600_000;
const as = (scope: RoomScope, actor: string): RoomScope => ({ ...scope, actor });

export function togetherLogTests(suite: Suite): void {
  test("analytics: owner changes count whatever made them; lapses and departures neither count nor hide one, and the claim after them is a new claim", async () => {
    const { store, clock } = suite;
    const scope = await claimedRoom(store);
    const [t1, t2, t3, t4] = [
      await store.addTask(scope, newTask("a")),
      await store.addTask(scope, newTask("b")),
      await store.addTask(scope, newTask("c")),
      await store.addTask(scope, newTask("d")),
    ].map((t) => t.id) as [string, string, string, string];
    const claim = (taskId: string, agentId: string, leaseMs = LEASE) =>
      store.claimTask(as(scope, agentId), { taskId, agentId, leaseMs });
    const finish = (taskId: string, agentId: string) =>
      store.updateTask(scope, { taskId, agentId, status: "done" });
    // t1: alice's lease runs out; bob's claim records it (a handoff: alice → bob) and bob finishes 5 s later.
    await claim(t1, "alice", 30_000);
    clock.advance(30_000);
    await claim(t1, "bob");
    clock.advance(5_000);
    await finish(t1, "bob");
    // t2: carol leaves (the task goes back, no handoff) and claims it again 5 s later: a new claim, done in 20 s.
    await claim(t2, "carol");
    await store.leaveRoom(scope, "carol");
    clock.advance(5_000);
    await claim(t2, "carol");
    clock.advance(20_000);
    await finish(t2, "carol");
    // t3: dave hands it to erin (a handoff, claimed anew at the move), erin finishes 30 s later.
    await claim(t3, "dave");
    await store.offerHandoff(scope, agentOffer("dave", "erin", [t3]));
    await store.acceptHandoff(scope, { id: "hof-1", agentId: "erin" });
    clock.advance(30_000);
    await finish(t3, "erin");
    // t4: frank's short lease runs out and nothing records it: reads (and the analytics) show it pending.
    await claim(t4, "frank", 1_000);
    clock.advance(1_000);
    // An agent's post dressed as task changes changes no number.
    const fake = { ...(await store.getTask(scope, t4)), owner: "mallory", status: "done" };
    await store.postEvent(scope, {
      type: "task_updated",
      from: "mallory",
      to: "all",
      payload: { task: fake },
    });
    await store.postEvent(scope, {
      type: "agent_left",
      from: "mallory",
      to: "all",
      payload: { tasks: [t1] },
    });
    await store.postEvent(scope, {
      type: "task_deleted",
      from: "mallory",
      to: "all",
      payload: { taskId: t2 },
    });

    const analytics = computeAnalytics(scope.roomId, await suite.second.analyticsLog(scope));
    expect(analytics).toMatchObject({
      taskCount: 4,
      tasksByStatus: { pending: 1, in_progress: 0, done: 3, blocked: 0 },
      tasksDeleted: 0,
      donePerAgent: { bob: 1, carol: 1, erin: 1 },
      claimToDone: { count: 3, medianMs: 20_000 },
      handoffs: 2,
    });
    expect(analytics.eventsPerAgent.mallory).toBe(3);
  });

  test("summary and the bridge's digest show tasks as reads show them: a task handed to the agent is its, one whose lease ran out is not", async () => {
    const { store, clock } = suite;
    const scope = await claimedRoom(store);
    const kept = await store.addTask(scope, newTask("kept"));
    const given = await store.addTask(scope, newTask("given"));
    const lapsing = await store.addTask(scope, newTask("lapsing"));
    await store.claimTask(as(scope, "bot"), { taskId: kept.id, agentId: "bot", leaseMs: LEASE });
    await store.claimTask(as(scope, "bot"), { taskId: lapsing.id, agentId: "bot", leaseMs: 10_000 });
    await store.offerHandoff(scope, {
      from: "human:alice",
      to: "bot",
      taskIds: [given.id],
      contextIds: [],
      note: "yours",
      offeredBy: "human:alice",
      agentOffer: false,
    });
    await store.acceptHandoff(scope, { id: "hof-1", agentId: "bot" });
    await store.postEvent(scope, {
      type: "human_message",
      from: "human:alice",
      to: "bot",
      payload: { text: "hi" },
    });
    clock.advance(10_000);
    const digest = (await suite.second.bridge(scope, { agentId: "bot", hook: "SessionStart" })).digest;
    expect(digest?.myTasks).toEqual([
      { id: kept.id, title: "kept", status: "in_progress" },
      { id: given.id, title: "given", status: "pending" },
    ]);
    const summary = await store.summary(scope, "bot", 5);
    expect(summary.myTasks.map((t) => t.id)).toEqual([kept.id, given.id]);
    // The bridge delivered the message at the session's start; the summary does not repeat it.
    expect(summary.messages).toEqual([]);
    const other = await suite.second.summary(scope, "bot2", 50);
    expect(other.myTasks).toEqual([]);
  });

  test("left is the same in every view of who is here until the agent's next call, the bridge's included", async () => {
    const { store } = suite;
    const scope = await claimedRoom(store);
    await store.heartbeat(as(scope, "bot"), "bot", "coding");
    await store.heartbeat(as(scope, "peer"), "peer");
    await store.leaveRoom(scope, "bot");
    const status = async () => ({
      presence: (await store.getPresence(scope)).find((p) => p.agentId === "bot")?.status,
      summary: (await store.roomSummary(scope.roomId))?.agents.find((a) => a.agentId === "bot")?.status,
      state: (await suite.second.roomState(scope)).presence.find((p) => p.agentId === "bot")?.status,
      peer: (await store.summary(scope, "peer", 1)).presence.find((p) => p.agentId === "bot")?.status,
    });
    expect(await status()).toEqual({ presence: "left", summary: "left", state: "left", peer: "left" });
    // Agents ever seen: a departure is not forgotten.
    expect((await store.roomInfo(scope)).agentCount).toBe(2);
    await suite.second.bridge(scope, { agentId: "bot", hook: "UserPromptSubmit" });
    expect(await status()).toEqual({
      presence: "online",
      summary: "online",
      state: "online",
      peer: "online",
    });
  });

  test("an agent driving the room lets the wheel go when it leaves; another agent may then claim it", async () => {
    const { store } = suite;
    const scope = await claimedRoom(store);
    const held = await store.takeDriver(scope, { holder: "orchestrator", kind: "agent" });
    await store.leaveRoom(scope, "orchestrator");
    const driver = await suite.second.getDriver(scope);
    expect(driver).toMatchObject({ holder: null, holderKind: null, epoch: held.epoch + 1 });
    const tail = (await allEvents(store, scope)).slice(-2);
    expect(tail.map((e) => [e.type, e.from])).toEqual([
      ["driver_changed", "orchestrator"],
      ["agent_left", "orchestrator"],
    ]);
    expect(tail[0]?.payload).toEqual({
      holder: null,
      previous: "orchestrator",
      epoch: held.epoch + 1,
      reason: "released",
    });
    expect((await store.takeDriver(scope, { holder: "next", kind: "agent" })).holder).toBe("next");
    // Another agent leaving changes nothing of the wheel.
    await store.leaveRoom(scope, "bystander");
    expect((await store.getDriver(scope)).holder).toBe("next");
  });
}

export function togetherMailTests(suite: Suite): void {
  test("a bridge hook is a call of the agent: it renews the agent's leases and file claims", async () => {
    const { store, clock } = suite;
    const scope = await claimedRoom(store);
    const task = await store.addTask(scope, newTask("long build"));
    await store.claimTask(as(scope, "bot"), { taskId: task.id, agentId: "bot", leaseMs: 60_000 });
    await store.claimFiles(as(scope, "bot"), { agentId: "bot", paths: ["src/build.ts"], ttlMs: 60_000 });
    for (let i = 0; i < 3; i++) {
      clock.advance(50_000);
      await (i % 2 === 0 ? store : suite.second).bridge(scope, { agentId: "bot", hook: "PreToolUse" });
    }
    clock.advance(50_000);
    const now = clock.now();
    expect(await store.getTask(scope, task.id)).toMatchObject({
      owner: "bot",
      status: "in_progress",
      lease_expires_at: iso(now + 10_000),
    });
    expect((await store.listClaims(scope, {})).map((c) => [c.path, c.heldBy])).toEqual([
      ["src/build.ts", "bot"],
    ]);
  });

  test("a deleted message is never handed over, by the bridge or the summary", async () => {
    const { store } = suite;
    const scope = await claimedRoom(store);
    const say = (text: string) =>
      store.postEvent(scope, { type: "human_message", from: "human:alice", to: "bot", payload: { text } });
    const oops = await say("the key is hunter2");
    await store.deleteEvent(scope, { eventId: oops.id, by: "human:alice" });
    expect((await store.bridge(scope, { agentId: "bot", hook: "UserPromptSubmit" })).messages).toEqual([]);
    await say("rotate it");
    expect((await suite.second.summary(scope, "bot", 1)).messages.map((m) => m.text)).toEqual(["rotate it"]);
  });

  test("a fork hands its agents only the messages, steers and interrupts sent in the fork; the copied ones stay in its log", async () => {
    const { store } = suite;
    const scope = await claimedRoom(store);
    const driver = await store.takeDriver(scope, { holder: "human:alice", kind: "human" });
    await store.postEvent(scope, {
      type: "human_message",
      from: "human:alice",
      to: "bot",
      payload: { text: "old" },
    });
    await store.driverAct(scope, {
      type: "steer",
      by: "human:alice",
      epoch: driver.epoch,
      to: "bot",
      text: "old",
    });
    await store.driverAct(scope, { type: "interrupt", by: "human:alice", epoch: 1, to: "bot", text: "stop" });
    const fork = { roomId: `f-${crypto.randomUUID().slice(0, 10)}`, teamId: scope.teamId };
    await store.forkRoom(scope, { newRoomId: fork.roomId, by: "human:alice" });
    const start = await suite.second.bridge(fork, { agentId: "bot", hook: "SessionStart" });
    expect(start.messages).toEqual([]);
    expect((await store.bridge(fork, { agentId: "bot", hook: "PreToolUse" })).interrupt).toBeUndefined();
    expect((await store.bridge(fork, { agentId: "bot", hook: "PostToolUse" })).steers).toEqual([]);
    expect((await store.summary(fork, "bot", 100)).messages).toEqual([]);
    // Sent in the fork: handed over as in any room. The copied ones are ordinary events of its log.
    await store.postEvent(fork, {
      type: "human_message",
      from: "human:alice",
      to: "bot",
      payload: { text: "new" },
    });
    // Nobody drives the fork: alice takes its wheel, past the epoch the source's log ended at (1, released: 2).
    const wheel = await store.takeDriver(fork, { holder: "human:alice", kind: "human" });
    expect(wheel.epoch).toBe(3);
    await store.driverAct(fork, {
      type: "steer",
      by: "human:alice",
      epoch: wheel.epoch,
      to: "bot",
      text: "new",
    });
    expect((await store.bridge(fork, { agentId: "bot", hook: "Stop" })).messages.map((m) => m.text)).toEqual([
      "new",
    ]);
    expect(
      (await store.bridge(fork, { agentId: "bot", hook: "PostToolUse" })).steers.map((s) => s.text),
    ).toEqual(["new"]);
    const types = (await allEvents(store, fork)).map((e) => e.type);
    expect(types.filter((t) => t === "human_message" || t === "steer")).toHaveLength(4);
    // The source's agent still gets its own, untouched by the fork.
    expect(
      (await store.bridge(scope, { agentId: "bot", hook: "PostToolUse" })).steers.map((s) => s.text),
    ).toEqual(["old"]);
  });
}

export function togetherWebhookTests(suite: Suite): void {
  test("people's actions and a fork's own event are queued for webhooks like any append; a fork copies no webhook and no delivery", async () => {
    const { store, clock } = suite;
    const scope = await claimedRoom(store);
    const task = await store.addTask(scope, newTask("t"));
    await store.createWebhook(
      scope,
      {
        webhookId: `wh_${crypto.randomUUID().replaceAll("-", "")}`,
        url: "https://hooks.example.com/people",
        types: [],
        createdAt: iso(clock.now()),
      },
      10,
    );
    const from = (await store.roomInfo(scope)).eventCount;
    const driver = await store.takeDriver(scope, { holder: "human:alice", kind: "human" });
    await store.driverAct(scope, {
      type: "steer",
      by: "human:alice",
      epoch: driver.epoch,
      to: "bot",
      text: "go",
    });
    await store.postEvent(scope, {
      type: "human_message",
      from: "human:alice",
      to: "bot",
      payload: { text: "hi" },
    });
    await store.requestApproval(scope, {
      requestedBy: "bot",
      action: "deploy",
      details: {},
      expiresInMs: 60_000,
    });
    await store.decideApproval(scope, { id: "apr-1", decidedBy: "human:alice", decision: "approve" });
    await store.offerHandoff(scope, agentOffer("bot", "web", [task.id]));
    await store.acceptHandoff(scope, { id: "hof-1", agentId: "web" });
    await store.recordVerdict(scope, { by: "ci", verdict: "pass", summary: "green", details: "", ref: null });
    await store.bridge(scope, {
      agentId: "bot",
      hook: "PostToolUse",
      step: { tool: "Bash", target: "ls", ok: true },
    });
    await store.claimTask(as(scope, "web"), { taskId: task.id, agentId: "web", leaseMs: 1000 });
    clock.advance(1000);
    await store.leaveRoom(scope, "web");
    const events = (await allEvents(store, scope)).filter((e) => e.seq > from);
    expect(events.map((e) => e.type)).toEqual([
      "driver_changed",
      "steer",
      "human_message",
      "approval_requested",
      "approval_decided",
      "handoff_offered",
      "task_updated",
      "handoff_accepted",
      "verdict_recorded",
      "agent_step",
      "task_claimed",
      "task_lease_expired",
      "agent_left",
    ]);
    const batch = await suite.second.claimDeliveries(scope.roomId, { limit: 50, leaseMs: 30_000 });
    expect(batch.deliveries.map((d) => d.event.seq).sort((x, y) => x - y)).toEqual(events.map((e) => e.seq));

    const fork = { roomId: `f-${crypto.randomUUID().slice(0, 10)}`, teamId: scope.teamId };
    await store.forkRoom(scope, { newRoomId: fork.roomId, by: "human:alice" });
    expect(await store.listWebhooks(fork)).toEqual([]);
    expect(await store.claimDeliveries(fork.roomId, { limit: 50, leaseMs: 30_000 })).toEqual({
      deliveries: [],
      nextDueMs: null,
      hasWebhooks: false,
    });
    // The fork queued nothing in the source either.
    clock.advance(60_000);
    const again = await store.claimDeliveries(scope.roomId, { limit: 50, leaseMs: 30_000 });
    expect(again.deliveries.map((d) => d.event.seq).sort((x, y) => x - y)).toEqual(events.map((e) => e.seq));
  });
}
