/**
 * docs/protocol.md#idempotency through HTTP, with the store really stalled mid-write: a write answered "Store
 * unavailable" may still have been applied (Redis paused with SIGSTOP runs the queued scripts when it resumes), so a
 * retry with the same idempotencyKey must return the first result and apply nothing twice. On SQLite a write held up
 * by another process's lock is rolled back; the retry applies it once, and a second retry is a replay.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { type RunningServer, startInProcess, TEAM_A } from "../support/server.ts";
import { holdWriteLock } from "../support/sqlite-lock.ts";
import { newRoomId, openWith } from "../support/stores.ts";

const UNAVAILABLE =
  /^Error: Store unavailable, retry shortly \(the write may have been applied: retry with the same idempotencyKey/;
type Json = Record<string, any>;

describe("Redis paused mid-write, retries with the same key", () => {
  let redis: RedisServer;
  let store: RoomStore;
  let server: RunningServer;
  beforeAll(async () => {
    redis = await startRedisServer();
    store = await openWith({ store: "redis", redisUrl: redis.url, redisCluster: false }, { timeoutMs: 300 });
    server = startInProcess(store, undefined, { STORE_TIMEOUT_MS: "300" });
  });
  afterAll(async () => {
    await server.stop();
    await store.close();
    await redis.stop();
  });

  test("16 add_task calls answered Store unavailable, then retried with their keys: exactly 16 tasks", async () => {
    const http = httpClient(server.url);
    const roomId = newRoomId();
    // Scripts cached, as in steady state (a cold EVALSHA answered NOSCRIPT after the deadline applies nothing).
    await http.tool(TEAM_A.secret, "add_task", { roomId: newRoomId(), title: "warm-up" });
    await http.post("/admin/rooms", TEAM_A.secret, { roomId });
    const args = (i: number) => ({ roomId, title: `task ${i}`, idempotencyKey: `add-${roomId}-${i}` });
    redis.pause();
    let answers: Awaited<ReturnType<typeof http.tool>>[];
    try {
      answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) => http.tool(TEAM_A.secret, "add_task", args(i))),
      );
    } finally {
      redis.resume();
    }
    for (const answer of answers) expect(answer.text).toMatch(UNAVAILABLE);
    // The paused server ran the queued scripts when it resumed: the writes were applied after all.
    await Bun.sleep(200);
    const retried = await Promise.all(
      Array.from({ length: 16 }, (_, i) => http.tool(TEAM_A.secret, "add_task", args(i))),
    );
    const tasks = retried.map((r) => JSON.parse(r.text) as Json);
    expect(new Set(tasks.map((t) => t.id)).size).toBe(16);
    const plan = JSON.parse((await http.tool(TEAM_A.secret, "read_plan", { roomId })).text);
    expect(plan.tasks).toHaveLength(16);
    // Each write was applied once, while its caller was told "Store unavailable": every retry is a replay of it.
    expect(tasks.map((t) => t.replayed)).toEqual(Array(16).fill(true));
    expect(new Set(plan.tasks.map((t: Json) => t.id))).toEqual(new Set(tasks.map((t) => t.id)));
    // The same key with other arguments is refused.
    const reused = await http.tool(TEAM_A.secret, "add_task", { ...args(0), title: "something else" });
    expect(reused.text).toBe(`Error: Idempotency key add-${roomId}-0 was used with different arguments`);
  });
});

describe("SQLite write lock held by another process, retries with the same key", () => {
  const path = join(mkdtempSync(join(tmpdir(), "roomd-retry-")), "roomd.sqlite");
  let store: RoomStore;
  let server: RunningServer;
  beforeAll(async () => {
    store = await openWith({ store: "sqlite", sqlitePath: path }, { timeoutMs: 300 });
    server = startInProcess(store, undefined, { STORE_TIMEOUT_MS: "300" });
  });
  afterAll(async () => {
    await server.stop();
    await store.close();
  });

  test("the stalled write is not applied; the retry applies it once; a second retry is a replay", async () => {
    const http = httpClient(server.url);
    const roomId = newRoomId();
    await http.post("/admin/rooms", TEAM_A.secret, { roomId });
    const args = { roomId, title: "once", idempotencyKey: `once-${roomId}` };
    const holder = await holdWriteLock(path, 800);
    const stalled = await http.tool(TEAM_A.secret, "add_task", args);
    expect(stalled.text).toMatch(UNAVAILABLE);
    await holder.exited;
    const first = JSON.parse((await http.tool(TEAM_A.secret, "add_task", args)).text);
    expect(first.replayed).toBeUndefined();
    const again = JSON.parse((await http.tool(TEAM_A.secret, "add_task", args)).text);
    expect(again).toEqual({ ...first, replayed: true });
    const plan = JSON.parse((await http.tool(TEAM_A.secret, "read_plan", { roomId })).text);
    expect(plan.tasks.map((t: Json) => t.title)).toEqual(["once"]);
  });
});
