/**
 * Scale-out: three roomd processes on one store (SQLite file, redis-server, Upstash front over redis-server,
 * a PostgreSQL database),
 * 32 agents spread over them doing the producer/consumer handoff and random plan/context/event/lock traffic. The audit
 * afterwards must find nothing lost, duplicated, skipped or overlapping.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { audit, auditProblems, runScaleLoad } from "../support/load-audit/index.ts";
import { sharedPostgres } from "../support/postgres.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { type SpawnedServer, spawnServer, TEAM_A } from "../support/server.ts";
import { newRoomId } from "../support/stores.ts";
import { startUpstashFront, type UpstashFront } from "../support/upstash-front.ts";

// What is tested is that nothing is lost or reordered, not how fast: a store call may wait 20 s for its room's lock
// on a loaded machine (a 5× overloaded CI run timed out a PostgreSQL write at the default) — docs/testing.md.
const BASE_ENV = {
  API_KEYS: `${TEAM_A.teamId}:${TEAM_A.secret}`,
  RATE_LIMIT_PER_MINUTE: "1000000",
  STORE_TIMEOUT_MS: "20000",
};
// The only error a healthy run may see: a plan write while a producer of the handoff holds the "plan" lock.
const PLAN_LOCKED = "Error: Plan is locked by <agent> until <time>; retry after it";

interface Backing {
  name: string;
  env(): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

function sqliteBacking(): Backing {
  const path = join(mkdtempSync(join(tmpdir(), "roomd-scale-")), "roomd.sqlite");
  return { name: "sqlite", env: async () => ({ STORE: "sqlite", SQLITE_PATH: path }), stop: async () => {} };
}

function redisBacking(): Backing {
  let redis: RedisServer | undefined;
  return {
    name: "redis",
    env: async () => {
      redis = await startRedisServer();
      return { STORE: "redis", REDIS_URL: redis.url };
    },
    stop: async () => redis?.stop(),
  };
}

function upstashBacking(): Backing {
  let redis: RedisServer | undefined;
  let front: UpstashFront | undefined;
  return {
    name: "upstash",
    env: async () => {
      redis = await startRedisServer();
      front = await startUpstashFront({ redisUrl: redis.url });
      return { STORE: "upstash", UPSTASH_REDIS_REST_URL: front.url, UPSTASH_REDIS_REST_TOKEN: front.token };
    },
    stop: async () => {
      await front?.stop();
      await redis?.stop();
    },
  };
}

/** A fresh database on the shared PostgreSQL server of this test process. */
function postgresBacking(): Backing {
  return {
    name: "postgres",
    env: async () => ({ STORE: "postgres", DATABASE_URL: await (await sharedPostgres()).createDatabase() }),
    stop: async () => {},
  };
}

for (const make of [sqliteBacking, redisBacking, upstashBacking, postgresBacking]) {
  const backing = make();
  describe(`three roomd processes on one ${backing.name} store`, () => {
    const servers: SpawnedServer[] = [];
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await backing.stop();
    });

    test("32 agents: nothing lost, no seq gaps, every event delivered once, no lock overlaps", async () => {
      const env = { ...BASE_ENV, ...(await backing.env()) };
      servers.push(...(await Promise.all([spawnServer(env), spawnServer(env), spawnServer(env)])));
      const roomId = newRoomId();
      const started = performance.now();
      const ledger = await runScaleLoad({
        urls: servers.map((s) => s.url),
        secret: TEAM_A.secret,
        agents: 32,
        opsPerAgent: 40,
        roomId,
        seed: 42,
        // Longer than a store call may take (STORE_TIMEOUT_MS above): the answer, not the client, ends a call.
        callTimeoutMs: 30_000,
      });
      const report = await audit(servers[1]!.url, TEAM_A.secret, roomId, ledger);
      const ms = Math.round(performance.now() - started);
      console.log(
        `[scale-out ${backing.name}] ${ledger.calls.length} calls, ${report.tasks} tasks, ${report.events} events, ` +
          `${ledger.locks.length} lock holdings in ${ms} ms; errors ${JSON.stringify(report.errorKinds)}`,
      );
      expect(auditProblems(report)).toEqual([]);
      expect(report.unknownOutcomes).toEqual({});
      expect(Object.keys(report.errorKinds).filter((kind) => kind !== PLAN_LOCKED)).toEqual([]);
      expect(report.unknownOutcomeDeliveries).toEqual({});
      // The load did real work on every process.
      for (const s of servers)
        expect(ledger.calls.filter((c) => c.url === s.url && c.outcome === "ok").length).toBeGreaterThan(100);
      expect(ledger.handoffsCompleted).toBe(16);
      expect(report.tasks).toBeGreaterThan(32);
      expect(ledger.locks.length).toBeGreaterThan(16);
    });
  });
}
