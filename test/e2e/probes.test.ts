/**
 * The orchestrator probes on every store: /livez answers while the process serves, /readyz checks the store and the
 * change feed's own connection and answers 503 naming what failed; /health keeps its answer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createRedisStore, createTcpScriptClient } from "../../src/store/redis/index.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { type PostgresServer, startPostgres } from "../support/postgres.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { type InProcessServer, startInProcess } from "../support/server.ts";
import { E2E_STORES, openWith } from "../support/stores.ts";

const probe = async (url: string, path: string, origin?: string) => {
  const res = await fetch(`${url}${path}`, origin ? { headers: { Origin: origin } } : {});
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

const FEEDS: Record<string, string> = {
  sqlite: "not used",
  upstash: "not used",
  redis: "ok",
  "redis-cluster": "ok",
  postgres: "ok",
};

for (const make of E2E_STORES) {
  const backing = make();
  describe(`probes on ${backing.name}`, () => {
    let store: RoomStore;
    let server: InProcessServer;
    beforeAll(async () => {
      store = await backing.open();
      server = startInProcess(store);
    });
    afterAll(async () => {
      await server.stop();
      await store.close();
    });

    test("/livez, /readyz and /health answer 200, open to any Origin", async () => {
      const foreign = "http://elsewhere.example";
      expect(await probe(server.url, "/livez", foreign)).toEqual({
        status: 200,
        body: { ok: true, version: expect.any(String) },
      });
      const ready = await probe(server.url, "/readyz", foreign);
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({
        ok: true,
        checks: { store: "ok", changeFeed: FEEDS[backing.name] as string },
      });
      expect((await probe(server.url, "/health", foreign)).status).toBe(200);
    });
  });
}

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
