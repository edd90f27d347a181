/**
 * What a call costs inside Redis, counted (never timed) on a private redis-server through INFO commandstats:
 * reads by cursor cost O(log n + k) whatever the backlog, a room's keys are re-expired at most once a minute while
 * every key still always has a TTL, and the public summary costs O(page) (docs/protocol.md#costs).
 * Also: rooms written before the addressee index existed get it built once and lose no event; a filtered context list
 * reads only what it returns, and rooms written before the context index get it built.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { type RedisServer, startRedisServer } from "../../../test/support/redis-server.ts";
import { LIMITS } from "../../protocol/limits.ts";
import type { NewContext, RoomScope, RoomStore } from "../types.ts";
import { ROOM_KEY_PARTS, roomKeys } from "./keys.ts";
import { createRedisStore } from "./store.ts";
import { createTcpScriptClient } from "./tcp-client.ts";

let server: RedisServer;
let raw: RedisClient;
let store: RoomStore;
let t = Math.floor(Date.now() / 1000) * 1000;

const newScope = (): RoomScope => ({
  roomId: `r-${crypto.randomUUID().slice(0, 8)}`,
  teamId: `t-${crypto.randomUUID().slice(0, 8)}`,
});

/** Calls of each Redis command so far (commands run inside scripts included). */
async function commandStats(): Promise<Map<string, number>> {
  const info = (await raw.send("INFO", ["commandstats"])) as string;
  const stats = new Map<string, number>();
  for (const [, name, calls] of info.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)) {
    stats.set(name as string, Number(calls));
  }
  return stats;
}

/** Commands `op` ran inside Redis, by name (EVALSHA itself excluded). */
async function commandsOf(op: () => Promise<unknown>): Promise<Map<string, number>> {
  const before = await commandStats();
  await op();
  const after = await commandStats();
  const delta = new Map<string, number>();
  for (const [name, calls] of after) {
    const d = calls - (before.get(name) ?? 0);
    if (d > 0 && name !== "evalsha" && name !== "eval" && name !== "info") delta.set(name, d);
  }
  return delta;
}
const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

beforeAll(async () => {
  server = await startRedisServer();
  raw = new RedisClient(server.url);
  store = createRedisStore({
    client: createTcpScriptClient(server.url, { timeoutMs: 10_000 }),
    driver: "redis",
    now: () => t,
    timeoutMs: 10_000,
  });
});

afterAll(async () => {
  await store.close();
  raw.close();
  await server.stop();
});

/** A room with n events to "all" (posted 200 at a time, concurrently). */
async function roomWithEvents(n: number): Promise<RoomScope> {
  const scope = newScope();
  for (let done = 0; done < n; done += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, n - done) }, (_, i) =>
        store.postEvent(scope, { type: "e", from: "p", to: "all", payload: { i } }),
      ),
    );
  }
  return scope;
}

describe("reads by cursor cost O(log n + k)", () => {
  test("a new agent's get_unread_events limit 1 costs the same commands at 500 and at 50,000 events", async () => {
    const small = await roomWithEvents(500);
    const big = await roomWithEvents(50_000);
    const costs = [];
    for (const scope of [small, big]) {
      await store.consumeEvents(scope, "warm-up", 1); // builds nothing: the index exists since the first append
      const cost = await commandsOf(async () => {
        const batch = await store.consumeEvents(scope, `newcomer-${crypto.randomUUID()}`, 1);
        expect(batch.count).toBe(1);
      });
      costs.push(cost);
    }
    expect(Object.fromEntries(costs[1] ?? [])).toEqual(Object.fromEntries(costs[0] ?? []));
    expect(total(costs[1] ?? new Map())).toBeLessThan(25);
    // remaining is counted, not walked, and exact.
    const batch = await store.consumeEvents(big, "counter", 10);
    expect(batch.remaining).toBe(49_990);
  }, 120_000);
});

describe("the analytics read goes by pages (no script over a whole long log)", () => {
  test("a 1,100-event room is read whole, in order, by two scripts of at most 1,000 events each", async () => {
    const scope = await roomWithEvents(1100);
    const scripts = async () => (await commandStats()).get("evalsha") ?? 0;
    let log: Awaited<ReturnType<RoomStore["analyticsLog"]>> | undefined;
    const before = await scripts();
    const commands = await commandsOf(async () => {
      log = await store.analyticsLog(scope);
    });
    expect((await scripts()) - before).toBe(2);
    expect(log?.events.map((e) => e.seq)).toEqual(Array.from({ length: 1100 }, (_, i) => i + 1));
    // Each page reads its events and their index entries 200 seqs at a time (10 HMGETs for the full page, 2 for the
    // last), and each script's prelude reads the room's meta once.
    expect(commands.get("hmget")).toBe(10 + 2 + 2);
  });
});

describe("a room's keys get their TTL refreshed at most once a minute", () => {
  test("reads within the minute re-expire nothing; the first call after it re-expires every key once", async () => {
    const scope = newScope();
    await store.addTask(scope, { title: "t", description: "", depends_on: [], priority: null });
    const quiet = await commandsOf(async () => {
      for (let i = 0; i < 10; i++) await store.readPlan(scope);
    });
    expect(quiet.get("pexpire") ?? 0).toBe(0);
    t += 61_000;
    const refresh = await commandsOf(() => store.readPlan(scope));
    expect(refresh.get("pexpire")).toBe(ROOM_KEY_PARTS.length);
  });

  test("a key first written between refreshes gets its TTL at once: no room key ever lives without one", async () => {
    const scope = newScope();
    await store.addTask(scope, { title: "t", description: "", depends_on: [], priority: null });
    t += 20_000;
    await store.acquireLock(scope, "r", "a", 30_000);
    await store.setVar({ ...scope, idempotency: { key: "k", fingerprint: "ab" } }, "v", "1", "a");
    await store.heartbeat(scope, "a", "here");
    for (const key of roomKeys(scope.roomId)) {
      const ttl = (await raw.send("PTTL", [key])) as number;
      if (ttl === -2) continue; // never written
      expect({ key, ttl: ttl > 0 && ttl <= LIMITS.roomTtlMs }).toEqual({ key, ttl: true });
    }
  });
  test("a room busy around the clock still refreshes every key: reads spending the whole pass, observers sparing it", async () => {
    const scope = newScope();
    await store.addTask(
      { ...scope, actor: "bob" },
      { title: "t", description: "", depends_on: [], priority: null },
    );
    const ttlAt = async () => Number(await raw.send("HGET", [`room:{${scope.roomId}}:meta`, "ttl_at"]));
    const start = await ttlAt();
    // Never a minute's gap: each 15 s pass goes to a read with no actor, or to someone looking on, and the room is
    // written a second later.
    for (let i = 0; i < 30; i++) {
      t += 20_000;
      if (i % 2 === 0) await store.readPlan(scope);
      else await store.roomInfo({ ...scope, mayClaim: false, observe: true });
      t += 1_000;
      await store.heartbeat({ ...scope, actor: "bob" }, "bob");
    }
    expect(t - (await ttlAt())).toBeLessThan(2 * 60_000);
    expect(await ttlAt()).toBeGreaterThan(start);
  });
});

describe("the public summary costs O(page)", () => {
  test("no task is read: counts are kept as the plan changes", async () => {
    const scope = newScope();
    await Promise.all(
      Array.from({ length: 300 }, () =>
        store.addTask(scope, { title: "t", description: "", depends_on: [], priority: null }),
      ),
    );
    await store.updateTask(scope, { taskId: "task-1", status: "done" });
    const cost = await commandsOf(async () => {
      const view = await store.roomSummary(scope.roomId);
      expect(view).toMatchObject({ taskCount: 300, tasksByStatus: { pending: 299, done: 1 } });
    });
    expect(cost.get("hvals") ?? 0).toBe(0);
    expect(total(cost)).toBeLessThan(20);
  });
});

describe("rooms written before the addressee index", () => {
  test("get the index built once and deliver every event exactly once", async () => {
    const scope = await roomWithEvents(120);
    await store.postEvent(scope, { type: "direct", from: "p", to: "bob", payload: {} });
    // What an earlier roomd left: no index, no flag.
    await raw.send("DEL", [`room:{${scope.roomId}}:event_addr`]);
    await raw.send("HDEL", [`room:{${scope.roomId}}:meta`, "addr_v"]);
    const seqs: number[] = [];
    for (
      let b = await store.consumeEvents(scope, "bob", 50);
      b.count > 0;
      b = await store.consumeEvents(scope, "bob", 50)
    ) {
      seqs.push(...b.events.map((e) => e.seq));
    }
    expect(seqs).toEqual(Array.from({ length: 121 }, (_, i) => i + 1));
    expect(await raw.send("HGET", [`room:{${scope.roomId}}:meta`, "addr_v"])).toBe("1");
  });
});

describe("the context index (lua-context.ts CTX_BY)", () => {
  const note = (author: string, summary: string): NewContext => ({
    type: "note",
    summary,
    consuming_agents: [],
    payload: { text: summary },
    author,
  });
  const ids = (entries: { id: string }[]) => entries.map((e) => e.id).sort();

  test("a filtered list reads only the entries it returns", async () => {
    const scope = newScope();
    for (let i = 0; i < 40; i++) await store.writeContext(scope, note(`a${i % 4}`, `n${i}`));
    await store.listContext(scope, { type: "api_contract" }); // builds nothing new: written with the index
    const cost = await commandsOf(async () => {
      expect(await store.listContext(scope, { type: "api_contract" })).toEqual([]);
      expect(await store.listContext(scope, { author: "a1" })).toHaveLength(10);
    });
    expect(cost.get("hgetall") ?? 0).toBe(0);
    expect(cost.get("hvals") ?? 0).toBe(0);
  });

  test("a room written before it existed gets it built, and answers as before", async () => {
    const scope = newScope();
    const written = [];
    for (let i = 0; i < 12; i++) written.push(await store.writeContext(scope, note(`a${i % 3}`, `n${i}`)));
    await store.updateContext(scope, { id: written[0]?.id as string, author: "a2", summary: "moved" });
    await store.deleteContext(scope, { id: written[1]?.id as string, agentId: "a0" });
    const before = {
      a0: ids(await store.listContext(scope, { author: "a0" })),
      a2: ids(await store.listContext(scope, { author: "a2" })),
      notes: ids(await store.listContext(scope, { type: "note" })),
      both: ids(await store.listContext(scope, { type: "note", author: "a1" })),
    };
    expect(before.a2).toContain(written[0]?.id as string);
    expect(before.a0).not.toContain(written[0]?.id as string);
    expect(before.notes).toHaveLength(11);
    // What an earlier roomd left: no index, no flag.
    await raw.send("DEL", [`room:{${scope.roomId}}:ctx_by`]);
    await raw.send("HDEL", [`room:{${scope.roomId}}:meta`, "ctx_by_v"]);
    const after = {
      a0: ids(await store.listContext(scope, { author: "a0" })),
      a2: ids(await store.listContext(scope, { author: "a2" })),
      notes: ids(await store.listContext(scope, { type: "note" })),
      both: ids(await store.listContext(scope, { type: "note", author: "a1" })),
    };
    expect(after).toEqual(before);
    expect(await raw.send("HGET", [`room:{${scope.roomId}}:meta`, "ctx_by_v"])).toBe("1");
    expect(await raw.send("ZCARD", [`room:{${scope.roomId}}:ctx_by`])).toBe(22);
  });
});
