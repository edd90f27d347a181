/**
 * Bounded failure: a stopped Redis, a hung client or a Redis error all surface as RoomError("store_unavailable")
 * within about timeoutMs, with the store's own message (never the Redis error text), and the store recovers.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type RedisServer, startRedisServer } from "../../../test/support/redis-server.ts";
import { RoomError, STORE_UNAVAILABLE } from "../../protocol/errors.ts";
import type { RoomScope, RoomStore } from "../types.ts";
import type { ScriptClient } from "./client.ts";
import { createRedisStore } from "./store.ts";
import { createTcpScriptClient } from "./tcp-client.ts";

const TIMEOUT_MS = 500;
const scope: RoomScope = { roomId: `r-${crypto.randomUUID().slice(0, 8)}`, teamId: "t" };
let server: RedisServer;
let store: RoomStore;

beforeAll(async () => {
  server = await startRedisServer();
  const client = createTcpScriptClient(server.url, { timeoutMs: TIMEOUT_MS });
  store = createRedisStore({ client, driver: "redis", timeoutMs: TIMEOUT_MS });
});

afterAll(async () => {
  await store.close();
  await server.stop();
});

/** Asserts `call` fails with store_unavailable (the generic message) and returns how long it took. */
async function unavailable(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  const err = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RoomError);
  expect({ kind: (err as RoomError).kind, message: (err as RoomError).message }).toEqual({
    kind: "store_unavailable",
    message: STORE_UNAVAILABLE,
  });
  return performance.now() - started;
}

test("a stopped Redis fails every call within about timeoutMs, and the store recovers after a restart", async () => {
  await store.setVar(scope, "k", "v", "a");
  await server.stop();
  for (const call of [
    () => store.ping(),
    () => store.readPlan(scope),
    () => store.addTask(scope, { title: "t", description: "", depends_on: [], priority: null }),
    () => store.consumeEvents(scope, "a", 10),
  ]) {
    expect(await unavailable(call)).toBeLessThan(TIMEOUT_MS + 300);
  }

  await server.restart();
  // The fresh server has an empty script cache: the first call falls back to EVAL.
  let plan: Awaited<ReturnType<RoomStore["readPlan"]>> | undefined;
  for (let i = 0; i < 50 && !plan; i++) {
    plan = await store.readPlan(scope).catch(() => undefined);
    if (!plan) await Bun.sleep(100);
  }
  expect(plan?.tasks).toEqual([]);
  await store.ping();
});

/** A store over a fake client. */
const fake = (client: Partial<ScriptClient>) =>
  createRedisStore({
    client: {
      evalsha: () => Promise.reject(new Error("unexpected")),
      eval: () => Promise.reject(new Error("unexpected")),
      ping: () => Promise.resolve("PONG"),
      ...client,
    },
    driver: "redis",
    timeoutMs: TIMEOUT_MS,
  });

test("a hung client is cut off at timeoutMs", async () => {
  const hung = fake({ evalsha: () => new Promise(() => {}), ping: () => new Promise(() => {}) });
  expect(await unavailable(() => hung.getVar(scope, "k"))).toBeLessThan(TIMEOUT_MS + 200);
  expect(await unavailable(() => hung.ping())).toBeLessThan(TIMEOUT_MS + 200);
});

test("a Redis error other than NOSCRIPT is store_unavailable, keeping the error only as the cause", async () => {
  const cause = new Error("OOM command not allowed when used memory > 'maxmemory'");
  const failing = fake({ evalsha: () => Promise.reject(cause) });
  await unavailable(() => failing.listVars(scope));
  expect(await failing.listVars(scope).catch((e: RoomError) => e.cause)).toBe(cause);
});

test("NOSCRIPT falls back to EVAL of the same script", async () => {
  const seen: string[] = [];
  const fallback = fake({
    evalsha: () => Promise.reject(new Error("NOSCRIPT No matching script. Please use EVAL.")),
    eval: (script) => {
      seen.push(script);
      return Promise.resolve('{"ok":"8080"}');
    },
  });
  expect(await fallback.getVar(scope, "port")).toBe("8080");
  expect(seen).toHaveLength(1);
});
