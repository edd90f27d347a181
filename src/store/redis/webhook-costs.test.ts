/**
 * What the webhook outbox costs inside an append, counted (never timed) on a private redis-server through INFO
 * commandstats: a room without webhooks pays one HLEN and no extra round trip; a webhook whose types do not match
 * adds one HGETALL; a matching one adds its ZADD (and that key's PEXPIRE).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { type CountingClient, countingClient } from "../../../bench/round-trips-measure.ts";
import { type RedisServer, startRedisServer } from "../../../test/support/redis-server.ts";
import type { RoomScope, RoomStore } from "../types.ts";
import { createRedisStore } from "./store.ts";
import { createTcpScriptClient } from "./tcp-client.ts";

let server: RedisServer;
let raw: RedisClient;
let store: RoomStore;
let client: CountingClient;
const t = Math.floor(Date.now() / 1000) * 1000;

async function commandStats(): Promise<Map<string, number>> {
  const info = (await raw.send("INFO", ["commandstats"])) as string;
  return new Map(
    [...info.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)].map((m) => [m[1] as string, Number(m[2])]),
  );
}

/** Commands `op` ran inside Redis by name (the script calls themselves and INFO excluded), and its round trips. */
async function costOf(op: () => Promise<unknown>) {
  const before = await commandStats();
  client.count = 0;
  await op();
  const trips = client.count;
  const after = await commandStats();
  const commands: Record<string, number> = {};
  for (const [name, calls] of after) {
    const d = calls - (before.get(name) ?? 0);
    if (d > 0 && !["evalsha", "eval", "info"].includes(name)) commands[name] = d;
  }
  return { commands, trips };
}

/** `a` minus `b`, command by command (zeros left out). */
function minus(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const d = (a[name] ?? 0) - (b[name] ?? 0);
    if (d !== 0) out[name] = d;
  }
  return out;
}

beforeAll(async () => {
  server = await startRedisServer();
  raw = new RedisClient(server.url);
  client = countingClient(createTcpScriptClient(server.url, { timeoutMs: 5000 }));
  store = createRedisStore({
    client,
    driver: "redis",
    now: () => t,
  });
});

afterAll(async () => {
  await store.close();
  raw.close();
  await server.stop();
});

/** A room with one event already (so the measured append finds every key in place), and `types` webhooks. */
async function room(webhookTypes: string[][]): Promise<RoomScope> {
  const scope = { roomId: `r-${crypto.randomUUID().slice(0, 8)}`, teamId: "t-costs" };
  await store.createRoom(scope);
  for (const [i, types] of webhookTypes.entries()) {
    const webhookId = `wh_${String(i).padStart(16, "0")}`;
    await store.createWebhook(
      scope,
      { webhookId, url: "https://h.example.com/", types, createdAt: "2026-01-01T00:00:00.000Z" },
      10,
    );
  }
  await store.postEvent(scope, { type: "note", from: "a", to: "all", payload: {} });
  return scope;
}

const append = (scope: RoomScope) => () =>
  store.postEvent(scope, { type: "note", from: "a", to: "all", payload: { n: 2 } });

test("an append in a room without webhooks costs one HLEN and no extra round trip; webhooks add only their own work", async () => {
  const none = await costOf(append(await room([])));
  const other = await costOf(append(await room([["deploy"]])));
  const matching = await costOf(append(await room([["deploy"], ["note"]])));
  expect([none.trips, other.trips, matching.trips]).toEqual([1, 1, 1]);
  expect(none.commands.hlen).toBe(1);
  expect(none.commands.hgetall).toBeUndefined();
  // The ZADDs of an append without webhooks are the addressee index's and the search index's (a posted event's
  // words): none is the outbox's.
  expect(none.commands.zadd).toBe(2);
  expect(minus(other.commands, none.commands)).toEqual({ hgetall: 1 });
  expect(minus(matching.commands, other.commands)).toEqual({ zadd: 1, pexpire: 1 });
});
