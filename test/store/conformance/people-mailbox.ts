/**
 * People's messages in get_my_summary, the bridge's one-call exchange, and the room's description
 * (docs/people.md#messages-steers-and-interrupts-reach-a-running-agent, docs/people.md#room-info).
 */
import { expect, test } from "bun:test";
import { NO_DRIVER } from "../../../src/protocol/people.ts";
import { iso } from "../../../src/protocol/time.ts";
import type { RoomScope, RoomStore } from "../../../src/store/types.ts";
import { allEvents, expectRoomError, newScope, newTask, newTeam, type Suite } from "./harness.ts";

const say = (store: RoomStore, scope: RoomScope, to: string, text: string, from = "human:alice") =>
  store.postEvent(scope, { type: "human_message", from, to, payload: { text } });

export function messageTests(suite: Suite): void {
  test("a message leads the addressed agent's next summary, whatever its backlog, once; nobody else gets it", async () => {
    const scope = newScope();
    for (let i = 0; i < 30; i++)
      await suite.store.postEvent(scope, { type: "noise", from: "x", to: "all", payload: { i } });
    const now = suite.clock.now();
    const sent = await say(suite.store, scope, "backend", "please rebase first");
    const summary = await suite.second.summary(scope, "backend", 5);
    expect(summary.messages).toEqual([
      {
        id: sent.id,
        seq: sent.seq,
        from: "human:alice",
        to: "backend",
        text: "please rebase first",
        timestamp: iso(now),
      },
    ]);
    // The backlog is still delivered in order through the cursor, the message with it when its turn comes.
    expect(summary.unreadEvents.events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect((await suite.store.summary(scope, "backend", 5)).messages).toEqual([]);
    expect((await suite.store.summary(scope, "frontend", 5)).messages).toEqual([]);
  });

  test("a message to all reaches every agent once; one the cursor already delivered is not repeated", async () => {
    const scope = newScope();
    await suite.store.addTask(scope, newTask("t"));
    await say(suite.store, scope, "all", "standup in 5");
    expect((await suite.store.summary(scope, "a", 20)).messages.map((m) => m.text)).toEqual(["standup in 5"]);
    expect((await suite.second.summary(scope, "b", 20)).messages.map((m) => m.text)).toEqual([
      "standup in 5",
    ]);
    await say(suite.store, scope, "c", "for c");
    await suite.store.consumeEvents(scope, "c", 100);
    expect((await suite.store.summary(scope, "c", 20)).messages).toEqual([]);
  });
}

export function bridgeTests(suite: Suite): void {
  test("on a room with no state the bridge writes nothing and claims nothing", async () => {
    const scope = newScope();
    expect(
      await suite.store.bridge(scope, {
        agentId: "bot",
        hook: "PostToolUse",
        step: { tool: "Bash", target: "ls", ok: true },
      }),
    ).toEqual({
      roomExists: false,
      driver: NO_DRIVER,
      steers: [],
      messages: [],
    });
    expect((await suite.store.roomInfo(scope)).exists).toBe(false);
  });

  test("PreToolUse: an interrupt at the current epoch is handed over once; one from an earlier epoch is dropped", async () => {
    const scope = newScope();
    await suite.store.takeDriver(scope, { holder: "human:alice", kind: "human" });
    await suite.store.driverAct(scope, {
      type: "interrupt",
      by: "human:alice",
      epoch: 1,
      to: "bot",
      text: "stop, wrong file",
    });
    await suite.store.driverAct(scope, {
      type: "interrupt",
      by: "human:alice",
      epoch: 1,
      to: "other",
      text: "not for bot",
    });
    const first = await suite.second.bridge(scope, { agentId: "bot", hook: "PreToolUse" });
    expect(first.interrupt).toMatchObject({ by: "human:alice", reason: "stop, wrong file", epoch: 1 });
    expect(first.driver).toMatchObject({ holder: "human:alice", epoch: 1 });
    expect(
      (await suite.store.bridge(scope, { agentId: "bot", hook: "PreToolUse" })).interrupt,
    ).toBeUndefined();
    // An interrupt sent before the wheel changed hands no longer stops anything.
    await suite.store.driverAct(scope, {
      type: "interrupt",
      by: "human:alice",
      epoch: 1,
      to: "bot",
      text: "late",
    });
    await suite.store.takeDriver(scope, { holder: "human:bob", kind: "human", force: true });
    expect(
      (await suite.store.bridge(scope, { agentId: "bot", hook: "PreToolUse" })).interrupt,
    ).toBeUndefined();
    expect(
      (await suite.store.bridge(scope, { agentId: "other", hook: "PreToolUse" })).interrupt,
    ).toBeUndefined();
  });

  test("PostToolUse: appends agent_step with metadata only, hands over steers once, oldest first", async () => {
    const scope = newScope();
    await suite.store.takeDriver(scope, { holder: "human:alice", kind: "human" });
    await suite.store.driverAct(scope, {
      type: "steer",
      by: "human:alice",
      epoch: 1,
      to: "bot",
      text: "prefer small commits",
    });
    await suite.store.driverAct(scope, {
      type: "steer",
      by: "human:alice",
      epoch: 1,
      to: "bot",
      text: "and run the tests",
    });
    const result = await suite.store.bridge(scope, {
      agentId: "bot",
      hook: "PostToolUse",
      step: { tool: "Edit", target: "src/app.ts", ok: true },
    });
    expect(result.steers.map((s) => [s.by, s.text])).toEqual([
      ["human:alice", "prefer small commits"],
      ["human:alice", "and run the tests"],
    ]);
    const step = (await allEvents(suite.store, scope)).at(-1);
    expect([step?.type, step?.from, step?.to, step?.payload]).toEqual([
      "agent_step",
      "bot",
      "all",
      { tool: "Edit", target: "src/app.ts", ok: true },
    ]);
    expect((await suite.second.bridge(scope, { agentId: "bot", hook: "PostToolUse" })).steers).toEqual([]);
    const presence = (await suite.store.getPresence(scope)).find((p) => p.agentId === "bot");
    expect(presence).toMatchObject({ status: "online", statusText: "working" });
  });

  test("Stop and UserPromptSubmit hand over waiting messages once; Stop marks the agent idle", async () => {
    const scope = newScope();
    await suite.store.addTask(scope, newTask("t"));
    await say(suite.store, scope, "bot", "one more thing");
    const stop = await suite.store.bridge(scope, { agentId: "bot", hook: "Stop" });
    expect(stop.messages.map((m) => [m.from, m.text])).toEqual([["human:alice", "one more thing"]]);
    expect((await suite.store.bridge(scope, { agentId: "bot", hook: "Stop" })).messages).toEqual([]);
    expect((await suite.store.getPresence(scope)).find((p) => p.agentId === "bot")?.statusText).toBe("idle");
    await say(suite.store, scope, "all", "lunch");
    expect(
      (await suite.second.bridge(scope, { agentId: "bot", hook: "UserPromptSubmit" })).messages.map(
        (m) => m.text,
      ),
    ).toEqual(["lunch"]);
    // Delivered by the bridge, so not again in the summary.
    expect((await suite.store.summary(scope, "bot", 20)).messages).toEqual([]);
  });

  test("SessionStart: a digest of the agent's tasks and unread count (not consumed), and its messages", async () => {
    const scope = newScope();
    const task = await suite.store.addTask(scope, newTask("build the login page"));
    await suite.store.updateTask(scope, {
      taskId: task.id,
      owner: "bot",
      status: "in_progress",
      agentId: "bot",
    });
    await say(suite.store, scope, "bot", "welcome back");
    const start = await suite.store.bridge(scope, { agentId: "bot", hook: "SessionStart" });
    expect(start.digest).toEqual({
      myTasks: [{ id: task.id, title: "build the login page", status: "in_progress" }],
      unread: 3,
    });
    expect(start.messages.map((m) => m.text)).toEqual(["welcome back"]);
    expect((await suite.store.consumeEvents(scope, "bot", 100)).count).toBe(3);
  });
}

export function roomInfoTests(suite: Suite): void {
  test("get_room_info: counts, times, driver; another team is denied; a room with no state is empty", async () => {
    const scope = newScope();
    const created = suite.clock.now();
    const t = await suite.store.addTask(scope, newTask("a"));
    await suite.store.addTask(scope, newTask("b"));
    await suite.store.updateTask(scope, { taskId: t.id, status: "done", agentId: "x" });
    await suite.store.heartbeat(scope, "x");
    await suite.store.takeDriver(scope, { holder: "human:alice", kind: "human" });
    const info = await suite.second.roomInfo(scope);
    expect(info).toMatchObject({
      roomId: scope.roomId,
      exists: true,
      createdAt: iso(created),
      taskCount: 2,
      tasksByStatus: { pending: 1, in_progress: 0, done: 1, blocked: 0 },
      contextCount: 0,
      eventCount: 4,
      agentCount: 1,
      driver: { holder: "human:alice", holderKind: "human", epoch: 1 },
      forkedFrom: null,
    });
    await expectRoomError(
      suite.store.roomInfo({ ...scope, teamId: newTeam() }),
      "denied",
      "Room not found or access denied",
    );
  });
}
