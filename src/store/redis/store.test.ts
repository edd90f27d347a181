/**
 * Driver-specific properties of the Redis store, on a private redis-server: one round trip per operation,
 * EVAL fallback after SCRIPT FLUSH, the key layout, and that TTL refreshes never extend a lock (only its holder
 * does: docs/protocol.md#locks).
 * Behaviour shared with the other drivers is in test/store/conformance.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { TEST_VALUES } from "../../../test/store/conformance/values.ts";
import { type RedisServer, startRedisServer } from "../../../test/support/redis-server.ts";
import { LIMITS } from "../../protocol/limits.ts";
import type { RoomScope, RoomStore } from "../types.ts";
import type { ScriptClient } from "./client.ts";
import { ROOM_KEY_PARTS } from "./keys.ts";
import { SCRIPTS } from "./scripts.ts";
import { createRedisStore } from "./store.ts";
import { createTcpScriptClient } from "./tcp-client.ts";

let server: RedisServer;
let raw: RedisClient;
let t = Math.floor(Date.now() / 1000) * 1000;
const clock = { now: () => t, advance: (ms: number) => (t += ms) };
const calls = { evalsha: 0, eval: 0 };
let store: RoomStore;

/** Wraps a client to count round trips: one evalsha or eval call is one. */
function counting(inner: ScriptClient): ScriptClient {
  return {
    evalsha: (sha, keys, args) => {
      calls.evalsha++;
      return inner.evalsha(sha, keys, args);
    },
    eval: (script, keys, args) => {
      calls.eval++;
      return inner.eval(script, keys, args);
    },
    ping: () => inner.ping(),
    close: () => inner.close?.(),
  };
}

/** Round trips `op` costs. */
async function roundTrips(op: () => Promise<unknown>): Promise<number> {
  calls.evalsha = 0;
  calls.eval = 0;
  await op();
  return calls.evalsha + calls.eval;
}

const newScope = (): RoomScope => ({
  roomId: `r-${crypto.randomUUID().slice(0, 8)}`,
  teamId: `t-${crypto.randomUUID().slice(0, 8)}`,
});

beforeAll(async () => {
  server = await startRedisServer();
  raw = new RedisClient(server.url);
  store = createRedisStore({
    client: counting(createTcpScriptClient(server.url, { timeoutMs: 2000 })),
    driver: "redis",
    now: clock.now,
    values: TEST_VALUES,
  });
});

afterAll(async () => {
  await store.close();
  raw.close();
  await server.stop();
});

describe("round trips", () => {
  test("every operation costs exactly one round trip once its script is cached", async () => {
    for (const script of Object.values(SCRIPTS)) await raw.send("SCRIPT", ["LOAD", script.text]);
    const s = newScope();
    const task = await store.addTask(s, { title: "t", description: "", depends_on: [], priority: null });
    const entry = await store.writeContext(s, {
      type: "note",
      summary: "s",
      consuming_agents: ["b"],
      payload: { text: "x" },
      author: "a",
    });
    const event = await store.postEvent(s, { type: "e", from: "a", to: "all", payload: {} });
    const measured: Record<string, number> = {
      readPlan: await roundTrips(() => store.readPlan(s)),
      addTask: await roundTrips(() =>
        store.addTask(s, { title: "u", description: "", depends_on: [task.id], priority: 1 }),
      ),
      updateTask: await roundTrips(() => store.updateTask(s, { taskId: task.id, status: "done" })),
      getTask: await roundTrips(() => store.getTask(s, task.id)),
      summary: await roundTrips(() => store.summary(s, "a", 10)),
      writeContext: await roundTrips(() =>
        store.writeContext(s, {
          type: "note",
          summary: "s",
          consuming_agents: [],
          payload: { text: "y" },
          author: "a",
        }),
      ),
      readContext: await roundTrips(() => store.readContext(s, entry.id)),
      contextHistory: await roundTrips(() => store.contextHistory(s, entry.id)),
      listContext: await roundTrips(() => store.listContext(s, {})),
      updateContext: await roundTrips(() =>
        store.updateContext(s, { id: entry.id, author: "b", summary: "v" }),
      ),
      "updateContext (payload)": await roundTrips(() =>
        store.updateContext(s, { id: entry.id, author: "b", payload: { text: "z" } }),
      ),
      "updateContext (invalid payload)": await roundTrips(() =>
        store.updateContext(s, { id: entry.id, author: "b", payload: { nope: 1 } }).catch(() => {}),
      ),
      postEvent: await roundTrips(() => store.postEvent(s, { type: "e", from: "a", to: "b", payload: {} })),
      readEvents: await roundTrips(() => store.readEvents(s, { limit: 20 })),
      consumeEvents: await roundTrips(() => store.consumeEvents(s, "b", 10)),
      markEventRead: await roundTrips(() => store.markEventRead(s, event.id, "b")),
      getEventReads: await roundTrips(() => store.getEventReads(s, event.id)),
      heartbeat: await roundTrips(() => store.heartbeat(s, "a", "busy")),
      getPresence: await roundTrips(() => store.getPresence(s)),
      acquireLock: await roundTrips(() => store.acquireLock(s, "r", "a", 30_000)),
      releaseLock: await roundTrips(() => store.releaseLock(s, "r", "a")),
      listLocks: await roundTrips(() => store.listLocks(s)),
      setVar: await roundTrips(() => store.setVar(s, "k", "v", "a")),
      getVar: await roundTrips(() => store.getVar(s, "k")),
      listVars: await roundTrips(() => store.listVars(s)),
      writeValue: await roundTrips(() => store.writeValue(s, { piece: "test_note", key: "", value: "v" })),
      readValues: await roundTrips(() => store.readValues(s, "test_note")),
    };
    expect(measured).toEqual(Object.fromEntries(Object.keys(measured).map((op) => [op, 1])));
  });

  test("after SCRIPT FLUSH an operation falls back to EVAL once, then EVALSHA works again", async () => {
    const s = newScope();
    await store.setVar(s, "port", "8080", "a");
    await raw.send("SCRIPT", ["FLUSH"]);
    calls.evalsha = 0;
    calls.eval = 0;
    expect(await store.getVar(s, "port")).toBe("8080");
    expect(calls).toEqual({ evalsha: 1, eval: 1 });
    expect(await roundTrips(() => store.getVar(s, "port"))).toBe(1);
    expect(calls).toEqual({ evalsha: 1, eval: 0 });
  });
});

describe("key layout", () => {
  test("every key of a room is room:{<roomId>}:<part> and lives ROOM_TTL after the last use", async () => {
    const s = newScope();
    const task = await store.addTask(s, { title: "t", description: "", depends_on: [], priority: null });
    await store.updateTask(s, { taskId: task.id, owner: "a" });
    const entry = await store.writeContext(s, {
      type: "note",
      summary: "s",
      consuming_agents: ["a"],
      payload: { text: "x" },
      author: "a",
    });
    await store.updateContext(s, { id: entry.id, author: "a", summary: "t" });
    await store.listContext(s, { type: "note" }); // builds the context index (ctx_by)
    const createdAt0 = new Date(t).toISOString();
    const hook = {
      webhookId: "wh_0000000000000000",
      url: "https://h.example.com/",
      types: [],
      createdAt: createdAt0,
    };
    await store.createWebhook(s, hook, 10);
    const event = await store.postEvent(s, { type: "e", from: "a", to: "all", payload: {} });
    // The worker's steps: the failed attempt is logged (wh_log) and its retry stays queued (wh_outbox).
    const [queued] = (await store.claimDeliveries(s.roomId, { limit: 10, leaseMs: 30_000 })).deliveries;
    const failed = { outcome: "failed" as const, retryInMs: 5000, durationMs: 1, at: createdAt0 };
    expect((await store.recordDelivery(queued!, failed)).recorded).toBe(true);
    await store.markEventRead(s, event.id, "a");
    await store.requestReview(s, { requester: "a", reviewer: "b", subject: "s", details: "" });
    await store.postEvent(s, { type: "human_message", from: "human:p", to: "a", payload: { text: "hi" } });
    await store.requestApproval(s, { requestedBy: "a", action: "x", details: {}, expiresInMs: 60_000 });
    await store.offerHandoff(s, {
      from: "a",
      to: "b",
      taskIds: [],
      contextIds: [],
      note: "n",
      offeredBy: "a",
      agentOffer: true,
    });
    await store.recordVerdict(s, { by: "a", verdict: "pass", summary: "ok", details: "", ref: null });
    await store.summary(s, "a", 10);
    await store.acquireLock(s, "r", "a", 30_000);
    await store.setVar({ ...s, idempotency: { key: "k-1", fingerprint: "ab12" } }, "k", "v", "a");
    const invite = { tokenId: "i_00000000", roomId: s.roomId, teamId: s.teamId, hint: "****abcd" };
    const [createdAt, expiresAt] = [new Date(t).toISOString(), new Date(t + 60_000).toISOString()];
    await store.createInvite({ ...invite, createdAt, expiresAt, digest: "0".repeat(64) }, 50);
    const leased = await store.addTask(s, { title: "l", description: "", depends_on: [], priority: null });
    await store.claimTask(s, { taskId: leased.id, agentId: "b", leaseMs: 60_000 });
    await store.claimFiles(s, { agentId: "b", paths: ["src/**"], ttlMs: 60_000 });
    await store.writeValue(s, { piece: "test_note", key: "", value: "n" });
    await store.suspendAgent(s, { agentId: "z", by: "p", reason: "r" });

    const keys = ((await raw.send("KEYS", [`*${s.roomId}*`])) as string[]).sort();
    expect(keys).toEqual(ROOM_KEY_PARTS.map((part) => `room:{${s.roomId}}:${part}`).sort());
    for (const key of keys) {
      const ttl = (await raw.send("PTTL", [key])) as number;
      expect(ttl).toBeGreaterThan(LIMITS.roomTtlMs - 60_000);
      expect(ttl).toBeLessThanOrEqual(LIMITS.roomTtlMs);
    }
  });

  test("reads of an unowned room write no key", async () => {
    const s = newScope();
    await store.readPlan(s);
    await store.consumeEvents(s, "a", 10);
    await store.releaseLock(s, "r", "a");
    await store.getPresence(s);
    expect(await raw.send("KEYS", [`*${s.roomId}*`])).toEqual([]);
  });
});

describe("expiry: only a lock's holder extends it", () => {
  test("refreshing the room's TTL never changes a lock's expiry", async () => {
    const s = newScope();
    const locksKey = `room:{${s.roomId}}:locks`;
    const lock = await store.acquireLock(s, "plan", "a", 30_000);
    const stored = await raw.send("HGET", [locksKey, "plan"]);
    clock.advance(20_000);
    // Writes and reads refresh every key of the room, the locks hash included.
    await store.addTask(s, { title: "t", description: "", depends_on: [], priority: null, agentId: "a" });
    await store.setVar(s, "k", "v", "a");
    await store.listLocks(s);
    expect(await raw.send("HGET", [locksKey, "plan"])).toBe(stored);
    expect((await raw.send("PTTL", [locksKey])) as number).toBeGreaterThan(LIMITS.roomTtlMs - 60_000);
    expect((await store.listLocks(s)).map((l) => l.expiresAt)).toEqual([lock.expiresAt]);

    clock.advance(10_001);
    expect(await store.listLocks(s)).toEqual([]);
    const next = await store.acquireLock(s, "plan", "b", 30_000);
    expect(next).toMatchObject({ acquired: true, holder: "b", fence: lock.fence + 1 });
  });
});
