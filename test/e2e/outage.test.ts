/** A Redis outage seen through HTTP: tools fail fast with "Store unavailable", /health turns 503, both recover. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createRedisStore, createTcpScriptClient } from "../../src/store/redis/index.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { connect, errorText, type RoomClient } from "../support/mcp-client.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { type RunningServer, startInProcess, TEAM_A } from "../support/server.ts";
import { newRoomId } from "../support/stores.ts";

let redis: RedisServer;
let store: RoomStore;
let server: RunningServer;
let c: RoomClient;
beforeAll(async () => {
  redis = await startRedisServer();
  store = createRedisStore({
    client: createTcpScriptClient(redis.url, { timeoutMs: 500 }),
    driver: "redis",
    timeoutMs: 500,
  });
  server = startInProcess(store);
  c = await connect(server.url, TEAM_A.secret);
});
afterAll(async () => {
  await c.close();
  await server.stop();
  await store.close();
  await redis.stop();
});

test("store down: bounded tool errors and 503 health; store back: both recover", async () => {
  const roomId = newRoomId();
  await c.call("add_task", { roomId, title: "before the outage" });
  expect((await fetch(`${server.url}/health`)).status).toBe(200);

  await redis.stop();
  const results = await Promise.all([
    c.raw("add_task", { roomId, title: "during" }),
    c.raw("read_plan", { roomId }),
    c.raw("get_unread_events", { roomId, agentId: "a" }),
  ]);
  expect(results.map(errorText)).toEqual([
    "Error: Store unavailable, retry shortly (the write may have been applied: check before retrying, and pass an idempotencyKey to make retries safe)",
    "Error: Store unavailable, retry shortly",
    "Error: Store unavailable, retry shortly (the write may have been applied: check before retrying, and pass an idempotencyKey to make retries safe)",
  ]);
  const health = await fetch(`${server.url}/health`);
  expect(health.status).toBe(503);
  expect(await health.json()).toMatchObject({ ok: false, store: "redis" });

  // The limiter fails open for env keys by default (routes still answer); with the switch off it refuses.
  expect(
    (await fetch(`${server.url}/admin/me`, { headers: { Authorization: `Bearer ${TEAM_A.secret}` } })).status,
  ).toBe(200);
  const strict = startInProcess(store, undefined, { RATE_LIMIT_FAIL_OPEN: "false" });
  try {
    const refused = await fetch(`${strict.url}/admin/me`, {
      headers: { Authorization: `Bearer ${TEAM_A.secret}` },
    });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({ error: "Store unavailable, retry shortly" });
  } finally {
    await strict.stop();
  }
  // A dynamic key cannot be looked up at all: 503, never a pass.
  const dynamic = await fetch(`${server.url}/admin/me`, {
    headers: { Authorization: `Bearer rk_team-a_${"x".repeat(43)}` },
  });
  expect(dynamic.status).toBe(503);

  await redis.restart();
  let plan: { tasks: { title: string }[] } | undefined;
  for (let i = 0; i < 50 && !plan; i++) {
    const result = await c.raw("read_plan", { roomId });
    if (!result.isError) plan = JSON.parse(errorText(result));
    else await Bun.sleep(100);
  }
  // Redis here runs without persistence, so the restarted server is empty: recovery means answering again.
  expect(plan).toBeDefined();
  expect((await fetch(`${server.url}/health`)).status).toBe(200);
  // Not hung: with a 500 ms store timeout the whole test fits well inside its own 20 s limit.
});
