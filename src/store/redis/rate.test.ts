/**
 * Rate charges asked for together (concurrent requests of one process) go to Redis as one CONSUME_RATE that charges
 * them one after another: the decisions each would have had alone, in the order they were asked.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type RedisServer, startRedisServer } from "../../../test/support/redis-server.ts";
import type { RoomStore } from "../types.ts";
import type { ScriptClient } from "./client.ts";
import { createRedisStore } from "./store.ts";
import { createTcpScriptClient } from "./tcp-client.ts";

let server: RedisServer;
let tcp: ScriptClient;
let store: RoomStore;
let scripts = 0;
const t = Math.floor(Date.now() / 1000) * 1000;

beforeAll(async () => {
  server = await startRedisServer();
  tcp = createTcpScriptClient(server.url, { timeoutMs: 10_000 });
  const counted: ScriptClient = {
    evalsha: (...a) => {
      scripts++;
      return tcp.evalsha(...a);
    },
    eval: (...a) => {
      scripts++;
      return tcp.eval(...a);
    },
    ping: (d) => tcp.ping(d),
  };
  store = createRedisStore({ client: counted, driver: "redis", now: () => t, timeoutMs: 10_000 });
});

afterAll(async () => {
  await store.close?.();
  await tcp.close?.();
  await server.stop();
});

test("concurrent charges of one window: one script, each decision as if alone, in order", async () => {
  const teamId = `t-${crypto.randomUUID().slice(0, 8)}`;
  const rate = { bucket: "tools" as const, limit: 3, windowMs: 60_000 };
  await store.consumeRate(teamId, rate); // the script is cached from here on
  const before = scripts;
  const decisions = await Promise.all(Array.from({ length: 4 }, () => store.consumeRate(teamId, rate)));
  expect(scripts - before).toBe(1);
  expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
    [true, 1],
    [true, 0],
    [false, 0],
    [false, 0],
  ]);
  expect(decisions[1]?.resetMs).toBe(60_000);
  // Another bucket or another team is another window, and another script.
  const other = await Promise.all([
    store.consumeRate(teamId, { ...rate, bucket: "meta" }),
    store.consumeRate(`${teamId}-b`, rate),
  ]);
  expect(other.map((d) => d.remaining)).toEqual([2, 2]);
});

test("a bucket the store does not know is refused before anything is charged", async () => {
  const bad = { bucket: "nope", limit: 3, windowMs: 60_000 } as unknown as Parameters<
    RoomStore["consumeRate"]
  >[1];
  await expect(store.consumeRate("t-x", bad)).rejects.toThrow("unknown rate bucket");
});
