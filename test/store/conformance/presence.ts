/** get_my_summary in one step, and presence (120 s online window, status text kept until leave_room). */
import { expect, test } from "bun:test";
import type { Presence } from "../../../src/protocol/records.ts";
import { iso } from "../../../src/protocol/time.ts";
import { claimedRoom, newTask, notePayload, type Suite } from "./harness.ts";

const byAgent = (list: Presence[]) => [...list].sort((x, y) => x.agentId.localeCompare(y.agentId));

export function summaryTests(suite: Suite): void {
  test("returns my tasks, the agent online in presence, and consumes unread events like consumeEvents", async () => {
    const scope = await claimedRoom(suite.store);
    const mine = await suite.store.addTask(scope, newTask("mine"));
    const theirs = await suite.store.addTask(scope, newTask("theirs"));
    await suite.store.addTask(scope, newTask("nobody's"));
    const owned = await suite.store.updateTask(scope, { taskId: mine.id, owner: "a", status: "in_progress" });
    await suite.store.updateTask(scope, { taskId: theirs.id, owner: "b" });
    await suite.store.postEvent(scope, { type: "to-b", from: "c", to: "b", payload: {} });
    await suite.store.postEvent(scope, { type: "to-a", from: "c", to: "a", payload: {} });
    const now = suite.clock.advance(1000);

    const summary = await suite.store.summary(scope, "a", 3);
    expect(summary).toMatchObject({ agentId: "a", roomId: scope.roomId, myTasks: [owned] });
    expect(summary.unreadEvents.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(summary.unreadEvents).toMatchObject({ cursor: 3, count: 3, remaining: 3 });
    expect(summary.cursor).toBe(3);
    expect(summary.presence).toContainEqual({ agentId: "a", status: "online", lastSeen: iso(now) });

    const rest = await suite.store.consumeEvents(scope, "a", 100);
    expect(rest.events.map((e) => [e.seq, e.type])).toEqual([
      [4, "task_updated"],
      [5, "task_updated"],
      [7, "to-a"],
    ]);
    const again = await suite.store.summary(scope, "a", 100);
    expect(again.unreadEvents).toEqual({ events: [], cursor: 7, count: 0, remaining: 0 });
    expect(again.cursor).toBe(7);
  });

  test("a summary's unread events are not repeated by a later consumeEvents", async () => {
    const scope = await claimedRoom(suite.store);
    for (let i = 0; i < 4; i++)
      await suite.store.postEvent(scope, { type: "e", from: "x", to: "all", payload: {} });
    const summary = await suite.store.summary(scope, "a", 100);
    expect(summary.unreadEvents.events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(await suite.store.consumeEvents(scope, "a", 100)).toEqual({
      events: [],
      cursor: 4,
      count: 0,
      remaining: 0,
    });
    await suite.store.postEvent(scope, { type: "e", from: "x", to: "all", payload: {} });
    expect((await suite.store.summary(scope, "a", 100)).unreadEvents.events.map((e) => e.seq)).toEqual([5]);
  });

  test("newContextCount counts entries written or updated since the agent's previous summary", async () => {
    const scope = await claimedRoom(suite.store);
    const entries = [];
    for (let i = 0; i < 3; i++) {
      entries.push(
        await suite.store.writeContext(scope, {
          type: "note",
          summary: `n${i}`,
          consuming_agents: [],
          payload: notePayload(),
          author: "b",
        }),
      );
    }
    suite.clock.advance(1000);
    expect((await suite.store.summary(scope, "a", 10)).newContextCount).toBe(3);
    expect((await suite.store.summary(scope, "a", 10)).newContextCount).toBe(0);
    suite.clock.advance(1000);
    await suite.store.updateContext(scope, { id: entries[1]?.id ?? "", author: "b", summary: "changed" });
    suite.clock.advance(1000);
    expect((await suite.store.summary(scope, "a", 10)).newContextCount).toBe(1);
    // Another agent's first summary counts everything.
    expect((await suite.store.summary(scope, "c", 10)).newContextCount).toBe(3);
  });

  test("summary records a heartbeat that keeps the agent's status text", async () => {
    const scope = await claimedRoom(suite.store);
    await suite.store.heartbeat(scope, "a", "writing tests");
    const now = suite.clock.advance(200_000);
    const summary = await suite.store.summary(scope, "a", 10);
    expect(summary.presence).toContainEqual({
      agentId: "a",
      status: "online",
      lastSeen: iso(now),
      statusText: "writing tests",
    });
    expect(await suite.store.getPresence(scope)).toEqual(summary.presence);
  });
}

export function presenceTests(suite: Suite): void {
  test("heartbeat marks the agent online; 121 s later it is offline", async () => {
    const scope = await claimedRoom(suite.store);
    const seen = suite.clock.now();
    const { presence: entry } = await suite.store.heartbeat(scope, "a", "idle");
    expect(entry).toEqual({ agentId: "a", status: "online", lastSeen: iso(seen), statusText: "idle" });
    expect(await suite.store.getPresence(scope)).toEqual([entry]);
    suite.clock.advance(60_000);
    expect(await suite.store.getPresence(scope)).toEqual([entry]);
    suite.clock.advance(61_000);
    expect(await suite.store.getPresence(scope)).toEqual([{ ...entry, status: "offline" }]);
  });

  test("statusText is kept when a later heartbeat omits it and replaced when given", async () => {
    const scope = await claimedRoom(suite.store);
    await suite.store.heartbeat(scope, "a", "planning");
    const later = suite.clock.advance(5000);
    expect((await suite.store.heartbeat(scope, "a")).presence).toEqual({
      agentId: "a",
      status: "online",
      lastSeen: iso(later),
      statusText: "planning",
    });
    expect((await suite.store.heartbeat(scope, "a", "coding")).presence).toMatchObject({
      statusText: "coding",
    });
    expect(await suite.store.getPresence(scope)).toEqual([
      { agentId: "a", status: "online", lastSeen: iso(later), statusText: "coding" },
    ]);
    const { presence: plain } = await suite.store.heartbeat(scope, "b");
    expect(plain).toEqual({ agentId: "b", status: "online", lastSeen: iso(later) });
  });

  test("leave_room clears the status text: what the agent was doing is over; its next call comes back without it", async () => {
    const scope = await claimedRoom(suite.store);
    await suite.store.heartbeat(scope, "a", "writing the cart page");
    await suite.store.heartbeat(scope, "b", "reviewing");
    const left = suite.clock.advance(1000);
    await suite.store.leaveRoom(scope, "a");
    expect(byAgent(await suite.store.getPresence(scope))).toEqual([
      { agentId: "a", status: "left", lastSeen: iso(left) },
      { agentId: "b", status: "online", lastSeen: expect.any(String), statusText: "reviewing" },
    ]);
    const back = suite.clock.advance(1000);
    expect((await suite.store.heartbeat(scope, "a")).presence).toEqual({
      agentId: "a",
      status: "online",
      lastSeen: iso(back),
    });
    expect((await suite.store.heartbeat(scope, "a", "back at it")).presence.statusText).toBe("back at it");
  });

  test("getPresence lists every agent ever seen, by heartbeat or summary", async () => {
    const scope = await claimedRoom(suite.store);
    expect(await suite.store.getPresence(scope)).toEqual([]);
    const early = suite.clock.now();
    await suite.store.heartbeat(scope, "a", "x");
    await suite.store.heartbeat(scope, "b");
    await suite.store.summary(scope, "c", 10);
    const late = suite.clock.advance(600_000);
    await suite.store.heartbeat(scope, "d");
    expect(byAgent(await suite.store.getPresence(scope))).toEqual([
      { agentId: "a", status: "offline", lastSeen: iso(early), statusText: "x" },
      { agentId: "b", status: "offline", lastSeen: iso(early) },
      { agentId: "c", status: "offline", lastSeen: iso(early) },
      { agentId: "d", status: "online", lastSeen: iso(late) },
    ]);
  });
}
