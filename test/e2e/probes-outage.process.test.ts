/**
 * The probes through a store outage, on a private redis-server and a private PostgreSQL (stopped and started by the
 * tests, so never the run's shared ones): /readyz answers 503 naming what failed while /livez stays 200, and
 * /readyz recovers when the store is back.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createRedisStore, createTcpScriptClient } from "../../src/store/redis/index.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { probe } from "../support/http.ts";
import { type PostgresServer, startPostgres } from "../support/postgres.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { type InProcessServer, startInProcess } from "../support/server.ts";
import { openWith } from "../support/stores.ts";

describe("a store outage", () => {
  let redis: RedisServer;
  let pg: PostgresServer;
  const stores: RoomStore[] = [];
  const servers: InProcessServer[] = [];
  beforeAll(async () => {
    [redis, pg] = await Promise.all([startRedisServer(), startPostgres()]);
    const redisStore = createRedisStore({
      client: createTcpScriptClient(redis.url, { timeoutMs: 500 }),
      driver: "redis",
      timeoutMs: 500,
    });
    const pgStore = await openWith(
      { store: "postgres", databaseUrl: await pg.createDatabase(), databasePoolSize: 2 },
      { timeoutMs: 1000 },
    );
    stores.push(redisStore, pgStore);
    servers.push(
      startInProcess(redisStore, undefined, { STORE_TIMEOUT_MS: "500" }),
      startInProcess(pgStore, undefined, { STORE_TIMEOUT_MS: "1000" }),
    );
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    for (const store of stores) await store.close().catch(() => {});
    await Promise.all([redis.stop(), pg.stop()]);
  });

  test("Redis down: /readyz 503 naming the store and the feed, /livez still 200; back up: ready again", async () => {
    const url = (servers[0] as InProcessServer).url;
    expect((await probe(url, "/readyz")).status).toBe(200);
    await redis.stop();
    const down = await probe(url, "/readyz");
    expect(down).toEqual({
      status: 503,
      body: {
        ok: false,
        store: "redis",
        version: expect.any(String),
        checks: { store: "unavailable", changeFeed: "unavailable" },
        error: "Store unavailable; Change feed not connected",
      },
    });
    expect((await probe(url, "/livez")).status).toBe(200);
    await redis.restart();
    let again = await probe(url, "/readyz");
    for (let i = 0; i < 50 && again.status !== 200; i++) {
      await Bun.sleep(100);
      again = await probe(url, "/readyz");
    }
    expect(again.body).toMatchObject({ ok: true, checks: { store: "ok", changeFeed: "ok" } });
  });

  test("PostgreSQL down: /readyz 503 with the store unavailable, /livez still 200", async () => {
    const url = (servers[1] as InProcessServer).url;
    expect((await probe(url, "/readyz")).body).toMatchObject({ ok: true, checks: { changeFeed: "ok" } });
    await pg.halt();
    const down = await probe(url, "/readyz");
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ ok: false, store: "postgres", checks: { store: "unavailable" } });
    expect(String(down.body.error)).toStartWith("Store unavailable");
    expect((await probe(url, "/livez")).status).toBe(200);
    await pg.start();
  });
});
