/**
 * Suspended agents (protocol/suspensions.ts): a suspension releases the agent's leases, file claims and locks in
 * the same step and appends agent_suspended; while it lasts every room operation the agent acts in is refused
 * (AGENT_SUSPENDED, naming who, when and why) and changes nothing; resuming restores it. Concurrent suspensions and
 * takings by the agent never leave anything held.
 */
import { expect, test } from "bun:test";
import { AGENT_SUSPENDED } from "../../../src/protocol/suspensions.ts";
import { iso } from "../../../src/protocol/time.ts";
import type { RoomScope } from "../../../src/store/types.ts";
import {
  allEvents,
  claimedRoom,
  expectRoomError,
  instanceFor,
  newScope,
  newTask,
  type Suite,
  snapshot,
} from "./harness.ts";

const TTL = 3_600_000;
const as = (scope: RoomScope, actor: string): RoomScope => ({ ...scope, actor });
const refusedAs = (agent: string) => new RegExp(`^${AGENT_SUSPENDED}: agent ${agent} is suspended in room `);

export function suspensionTests(suite: Suite): void {
  /** A room where `agent` holds a leased task, a file claim and a lock. */
  async function holding(agent: string) {
    const scope = await claimedRoom(suite.store);
    const task = await suite.store.addTask(scope, newTask("work"));
    await suite.store.claimTask(as(scope, agent), { taskId: task.id, agentId: agent, leaseMs: TTL });
    await suite.store.claimFiles(as(scope, agent), { agentId: agent, paths: ["src/a.ts"], ttlMs: TTL });
    await suite.store.acquireLock(as(scope, agent), "deploy", agent, TTL);
    return { scope, task };
  }

  test("suspending releases leases, claims and locks at once and appends agent_suspended", async () => {
    const { scope, task } = await holding("a");
    const now = suite.clock.now();
    const result = await suite.second.suspendAgent(scope, {
      agentId: "a",
      by: "human:pat",
      reason: "looping",
    });
    expect(result).toEqual({
      suspension: { agentId: "a", by: "human:pat", at: iso(now), reason: "looping" },
      already: false,
      released: { tasks: [task.id], paths: ["src/a.ts"], locks: ["deploy"] },
    });
    const plan = await suite.store.readPlan(scope);
    expect(plan.tasks[0]).toMatchObject({ id: task.id, status: "pending", owner: null });
    expect(await suite.store.listClaims(scope, {})).toEqual([]);
    expect(await suite.store.listLocks(scope)).toEqual([]);
    const events = await allEvents(suite.store, scope);
    const suspended = events.find((e) => e.type === "agent_suspended");
    expect(suspended).toMatchObject({
      from: "human:pat",
      to: "all",
      payload: {
        agentId: "a",
        by: "human:pat",
        reason: "looping",
        tasks: [task.id],
        paths: ["src/a.ts"],
        locks: ["deploy"],
      },
    });
    expect(events.some((e) => e.type === "files_released")).toBe(true);
    expect(await suite.store.listSuspensions(scope)).toEqual([result.suspension]);
  });

  test("a suspended agent's calls are refused with who, when and why, and change nothing; others are not", async () => {
    const { scope, task } = await holding("a");
    await suite.store.suspendAgent(scope, { agentId: "a", by: "ops-lead", reason: "spending the budget" });
    const before = await snapshot(suite.store, scope);
    const calls: (() => Promise<unknown>)[] = [
      () => suite.store.claimTask(as(scope, "a"), { taskId: task.id, agentId: "a", leaseMs: TTL }),
      () => suite.second.claimFiles(as(scope, "a"), { agentId: "a", paths: ["src/a.ts"], ttlMs: TTL }),
      () => suite.store.acquireLock(as(scope, "a"), "deploy", "a", TTL),
      () => suite.second.postEvent(as(scope, "a"), { type: "note", from: "a", to: "all", payload: {} }),
      () => suite.store.readPlan(as(scope, "a")),
      () => suite.second.consumeEvents(as(scope, "a"), "a", 10),
      () => suite.store.heartbeat(as(scope, "a"), "a"),
      () => suite.store.leaveRoom(scope, "a"),
    ];
    for (const call of calls) {
      const error = await expectRoomError(call(), "forbidden", refusedAs("a"));
      expect(error.message).toContain("by ops-lead");
      expect(error.message).toContain("spending the budget");
      expect(error.message).toContain(iso(suite.clock.now()));
    }
    expect(await snapshot(suite.store, scope)).toEqual(before);
    // Another agent works on, and takes what a held.
    await suite.store.claimTask(as(scope, "b"), { taskId: task.id, agentId: "b", leaseMs: TTL });
    expect(
      (await suite.store.claimFiles(as(scope, "b"), { agentId: "b", paths: ["src/a.ts"], ttlMs: TTL }))
        .conflicts,
    ).toEqual([]);
  });

  test("a call made by a suspended agent that names no agent (RoomScope.caller) is refused in its own step; by another agent it is not, and records nothing", async () => {
    const { scope, task } = await holding("b");
    await suite.store.suspendAgent(scope, { agentId: "a", by: "ops-lead", reason: "looping" });
    const by = (caller: string): RoomScope => ({ ...scope, caller });
    const before = await snapshot(suite.store, scope);
    const refused: (() => Promise<unknown>)[] = [
      () => suite.store.readPlan(by("a")),
      () => suite.second.listContext(by("a"), {}),
      () => suite.store.getPresence(by("a")),
      () => suite.second.getTask(by("a"), task.id),
      () => suite.store.postEvent(by("a"), { type: "note", from: "system", to: "all", payload: {} }),
    ];
    for (const call of refused) {
      const error = await expectRoomError(call(), "forbidden", refusedAs("a"));
      expect(error.message).toContain("by ops-lead");
      expect(error.message).toContain("looping");
    }
    expect(await snapshot(suite.store, scope)).toEqual(before);
    // Another agent's reads answer, and record no presence for it: the caller is only checked.
    expect((await suite.store.readPlan(by("c"))).tasks.map((t) => t.id)).toEqual([task.id]);
    expect((await suite.second.getTask(by("c"), task.id)).id).toBe(task.id);
    expect((await suite.store.getPresence(by("c"))).map((p) => p.agentId)).not.toContain("c");
    // The actor is checked too when both are set.
    await expectRoomError(
      suite.store.readPlan({ ...as(scope, "a"), caller: "c" }),
      "forbidden",
      refusedAs("a"),
    );
    await expectRoomError(
      suite.store.readPlan({ ...as(scope, "c"), caller: "a" }),
      "forbidden",
      refusedAs("a"),
    );
    // Another team's room reads as missing (denied), whoever the caller: not as a suspension.
    const foreign = { ...scope, teamId: `${scope.teamId}-other`, caller: "a" };
    await expectRoomError(suite.store.readPlan(foreign), "denied", /./);
  });

  test("getPresence marks a suspended agent it lists with suspended {by, at, reason}, in the same read", async () => {
    const scope = await claimedRoom(suite.store);
    await suite.store.heartbeat(as(scope, "a"), "a", "busy");
    await suite.store.heartbeat(as(scope, "b"), "b");
    const at = iso(suite.clock.now());
    await suite.store.suspendAgent(scope, { agentId: "a", by: "ops-lead", reason: "looping" });
    await suite.store.suspendAgent(scope, { agentId: "never-seen", by: "ops-lead", reason: "r" });
    const listed = await suite.second.getPresence(scope);
    expect(listed.map((p) => p.agentId)).toEqual(["a", "b"]);
    expect(listed[0]).toMatchObject({ agentId: "a", statusText: "busy" });
    expect(listed[0]?.suspended).toEqual({ by: "ops-lead", at, reason: "looping" });
    expect(listed[1]?.suspended).toBeUndefined();
    await suite.store.resumeAgent(scope, { agentId: "a", by: "ops-lead" });
    expect((await suite.store.getPresence(scope)).some((p) => p.suspended !== undefined)).toBe(false);
  });

  test("resuming restores the agent; suspending twice or resuming a free agent changes nothing", async () => {
    const scope = await claimedRoom(suite.store);
    const first = await suite.store.suspendAgent(scope, { agentId: "a", by: "p", reason: "one" });
    suite.clock.advance(1000);
    const again = await suite.second.suspendAgent(scope, { agentId: "a", by: "q", reason: "two" });
    expect(again).toEqual({ ...first, already: true });
    expect(await suite.store.resumeAgent(scope, { agentId: "a", by: "q" })).toEqual({
      agentId: "a",
      resumed: true,
    });
    expect(await suite.store.resumeAgent(scope, { agentId: "a", by: "q" })).toEqual({
      agentId: "a",
      resumed: false,
    });
    expect(await suite.store.listSuspensions(scope)).toEqual([]);
    await suite.second.postEvent(as(scope, "a"), { type: "note", from: "a", to: "all", payload: {} });
    const types = (await allEvents(suite.store, scope)).map((e) => e.type);
    expect(types.filter((t) => t === "agent_suspended")).toHaveLength(1);
    expect(types.filter((t) => t === "agent_resumed")).toHaveLength(1);
    const resumed = (await allEvents(suite.store, scope)).find((e) => e.type === "agent_resumed");
    expect(resumed).toMatchObject({ from: "q", payload: { agentId: "a", by: "q" } });
  });

  test("suspensions are per room and per team: another room, another team's room, an unowned room", async () => {
    const scope = await claimedRoom(suite.store);
    const other = await claimedRoom(suite.store);
    await suite.store.suspendAgent(scope, { agentId: "a", by: "p", reason: "r" });
    await suite.store.postEvent(as(other, "a"), { type: "note", from: "a", to: "all", payload: {} });
    const foreign = { ...scope, teamId: `${scope.teamId}-other` };
    await expectRoomError(
      suite.store.suspendAgent(foreign, { agentId: "b", by: "p", reason: "r" }),
      "denied",
      /./,
    );
    await expectRoomError(suite.store.listSuspensions(foreign), "denied", /./);
    await expectRoomError(suite.store.resumeAgent(foreign, { agentId: "a", by: "p" }), "denied", /./);
    const unowned = newScope();
    await expectRoomError(
      suite.store.suspendAgent(unowned, { agentId: "a", by: "p", reason: "r" }),
      "denied",
      /./,
    );
    // The unowned room was not claimed.
    expect(await suite.store.roomStats(unowned.roomId)).toBeNull();
    expect(await suite.store.listSuspensions(scope)).toHaveLength(1);
  });

  test("a suspension racing the agent's claims, leases and locks: nothing is left held", async () => {
    for (let round = 0; round < 5; round++) {
      const scope = await claimedRoom(suite.store);
      const tasks = await Promise.all([0, 1, 2].map((i) => suite.store.addTask(scope, newTask(`t${i}`))));
      const agentCalls = [
        ...tasks.map((t, i) =>
          instanceFor(suite, i).claimTask(as(scope, "a"), { taskId: t.id, agentId: "a", leaseMs: TTL }),
        ),
        ...[0, 1, 2].map((i) =>
          instanceFor(suite, i + 1).claimFiles(as(scope, "a"), {
            agentId: "a",
            paths: [`f${i}.ts`],
            ttlMs: TTL,
          }),
        ),
        ...[0, 1].map((i) => instanceFor(suite, i).acquireLock(as(scope, "a"), `lock${i}`, "a", TTL)),
      ];
      const suspend = instanceFor(suite, round).suspendAgent(scope, {
        agentId: "a",
        by: "p",
        reason: "race",
      });
      const settled = await Promise.allSettled([...agentCalls, suspend]);
      expect(settled[settled.length - 1]?.status).toBe("fulfilled");
      for (const s of settled.slice(0, -1))
        if (s.status === "rejected") expect(String(s.reason?.message)).toMatch(refusedAs("a"));
      const plan = await suite.store.readPlan(scope);
      expect(plan.tasks.filter((t) => t.owner === "a")).toEqual([]);
      expect(await suite.store.listClaims(scope, {})).toEqual([]);
      expect((await suite.store.listLocks(scope)).filter((l) => l.owner === "a")).toEqual([]);
    }
  });

  test("a fork after a suspension: the released task reads as in the source, and the fork's agents start free", async () => {
    const { scope, task } = await holding("a");
    await suite.store.suspendAgent(scope, { agentId: "a", by: "p", reason: "r" });
    const fork = { ...scope, roomId: newScope().roomId };
    await suite.second.forkRoom(scope, { newRoomId: fork.roomId, by: "human:pat" });
    const source = (await suite.store.readPlan(scope)).tasks.find((t) => t.id === task.id);
    const forked = (await suite.store.readPlan(fork)).tasks.find((t) => t.id === task.id);
    expect(forked).toMatchObject({ status: "pending", owner: null, version: source?.version });
    expect(await suite.store.listSuspensions(fork)).toEqual([]);
    await suite.store.postEvent(as(fork, "a"), { type: "note", from: "a", to: "all", payload: {} });
  });
}
