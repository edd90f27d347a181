/**
 * The Upstash client adapter against a local Upstash-compatible REST front on a private redis-server: scripts
 * run, NOSCRIPT is recognised through the REST error, values stay strings (a shared variable "8080" is never the
 * number 8080), one request per call.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { type RedisServer, startRedisServer } from "../../../test/support/redis-server.ts";
import { startUpstashFront, type UpstashFront } from "../../../test/support/upstash-front.ts";
import type { RoomScope, RoomStore } from "../types.ts";
import { createRedisStore } from "./store.ts";
import { createUpstashScriptClient } from "./upstash-client.ts";

let server: RedisServer;
let front: UpstashFront;
let store: RoomStore;
const scope: RoomScope = { roomId: `r-${crypto.randomUUID().slice(0, 8)}`, teamId: "t" };

beforeAll(async () => {
  server = await startRedisServer();
  front = await startUpstashFront({ redisUrl: server.url });
  const client = createUpstashScriptClient(front.url, front.token);
  store = createRedisStore({ client, driver: "upstash" });
});

afterAll(async () => {
  await store.close();
  await front.stop();
  await server.stop();
});

test("runs scripts over REST, falls back on NOSCRIPT, and keeps values as strings", async () => {
  await store.ping();
  await store.setVar(scope, "port", "8080", "a"); // fresh server: NOSCRIPT, then EVAL
  expect(await store.getVar(scope, "port")).toBe("8080");
  expect(await store.listVars(scope)).toEqual({ port: "8080" });
  const task = await store.addTask(scope, { title: "ünï ✓", description: "", depends_on: [], priority: 2 });
  expect(await store.getTask(scope, task.id)).toEqual(task);

  const raw = new RedisClient(server.url);
  await raw.send("SCRIPT", ["FLUSH"]);
  raw.close();
  expect(await store.getVar(scope, "port")).toBe("8080");
  const before = front.requests;
  expect(await store.getVar(scope, "port")).toBe("8080");
  expect(front.requests - before).toBe(1);
});
