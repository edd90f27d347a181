/**
 * The one store-wiring helper of the tests: each backing (a SQLite file in a temp dir, the shared real
 * redis-server, the shared real Redis Cluster, the Upstash-compatible front over the redis-server, a database of
 * its own on the shared PostgreSQL server) gives store settings, and every store a test opens is built
 * by roomd's own openStore from them, exactly as the server builds it. A separate roomd process gets the same
 * backing through env().
 */
import { Database } from "bun:sqlite";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RedisClient, SQL } from "bun";
import type { StoreSettings } from "../../src/config.ts";
import type { ValuePieces } from "../../src/protocol/room-values.ts";
import type { Clock } from "../../src/protocol/time.ts";
import type { StoreLimits } from "../../src/store/access-types.ts";
import { openStore } from "../../src/store/index.ts";
import type { EventRetention } from "../../src/store/move-types.ts";
import { keySlot } from "../../src/store/redis/cluster/slot.ts";
import type { RoomStore, StoreDriver } from "../../src/store/types.ts";
import { sharedPostgres } from "./postgres.ts";
import { stopWithTestProcess } from "./processes.ts";
import { redisCommand, sharedRedisCluster } from "./redis-cluster.ts";
import { freePort, sharedRedis } from "./redis-server.ts";
import { startUpstashFront } from "./upstash-front.ts";

export interface OpenOptions {
  /** The store's clock; tests move it instead of sleeping. */
  now?: Clock;
  limits?: StoreLimits;
  /** STORE_TIMEOUT_MS. Default 5000. */
  timeoutMs?: number;
  /** Event retention (EVENT_RETENTION_*); none unless given. */
  retention?: EventRetention;
  /** ROOM_TTL_DAYS (30 unless given; 0: rooms live for ever). */
  roomTtlDays?: number;
  /** ARCHIVE_DIR: with it the store keeps every room (the archiver removes them). */
  archiveDir?: string;
  /** The kinds of small value the store keeps (protocol/room-values.ts VALUE_PIECES unless given). */
  values?: ValuePieces;
}

export interface E2eStore {
  /** The driver, and "redis-cluster" for the Redis driver on a cluster. */
  name: StoreDriver | "redis-cluster";
  /** Settings pointing at this backing. */
  settings(): Promise<StoreSettings>;
  /** A new, independent store instance (own connection or Database handle) on this backing. */
  open(options?: OpenOptions): Promise<RoomStore>;
  /** Settings of the same kind whose server cannot be reached (none for the embedded store). */
  unreachable?(): Promise<StoreSettings>;
  /** Environment for a separate roomd process on the same backing store. */
  env(): Promise<Record<string, string>>;
  /** Overwrites a stored task with bytes that are not a task, as a bug or a disk fault would. */
  corruptTask(roomId: string, taskId: string): Promise<void>;
}

const BROKEN = '{"id": "broken';

/**
 * The room limit of test stores and servers unless a test sets one: the shared Redis backings keep the rooms of
 * every test file of the process, and teams A and B are used by many files, so the default (100) would be reached
 * by the suite as a whole rather than by any test. Tests of the limit set their own.
 */
export const TEST_ROOMS_PER_TEAM = 1_000_000;

/** roomd's own wiring (openStore) for the given settings. */
export function openWith(settings: StoreSettings, options: OpenOptions = {}): Promise<RoomStore> {
  return openStore(
    {
      ...settings,
      storeTimeoutMs: options.timeoutMs ?? 5000,
      roomsPerTeam: options.limits?.roomsPerTeam ?? TEST_ROOMS_PER_TEAM,
      eventRetentionMax: options.retention?.maxEvents ?? 0,
      eventRetentionDays: (options.retention?.maxAgeMs ?? 0) / 86_400_000,
      ...(options.roomTtlDays === undefined ? {} : { roomTtlDays: options.roomTtlDays }),
      ...(options.archiveDir === undefined ? {} : { archiveDir: options.archiveDir }),
    },
    options.now ?? Date.now,
    options.values,
  );
}

function backing(
  name: E2eStore["name"],
  settings: () => Promise<StoreSettings>,
  env: () => Promise<Record<string, string>>,
  corruptTask: E2eStore["corruptTask"],
) {
  return {
    name,
    settings,
    open: async (options?: OpenOptions) => openWith(await settings(), options),
    env: async () => ({ ROOMS_PER_TEAM: String(TEST_ROOMS_PER_TEAM), ...(await env()) }),
    corruptTask,
  };
}

/** HSET of a room's task on the shared redis-server (Redis and Upstash backings). */
async function corruptOnRedis(roomId: string, taskId: string): Promise<void> {
  const client = new RedisClient((await sharedRedis()).url);
  try {
    await client.send("HSET", [`room:{${roomId}}:tasks`, taskId, BROKEN]);
  } finally {
    client.close();
  }
}

export function sqliteE2e(): E2eStore {
  const path = join(mkdtempSync(join(tmpdir(), "roomd-e2e-")), "roomd.sqlite");
  return backing(
    "sqlite",
    async () => ({ store: "sqlite", sqlitePath: path }),
    async () => ({ STORE: "sqlite", SQLITE_PATH: path }),
    async (roomId, taskId) => {
      const db = new Database(path);
      try {
        db.run("UPDATE tasks SET json = ? WHERE room_id = ? AND id = ?", [BROKEN, roomId, taskId]);
      } finally {
        db.close();
      }
    },
  );
}

export function redisE2e(): E2eStore {
  return {
    ...backing(
      "redis",
      async () => ({ store: "redis", redisUrl: (await sharedRedis()).url, redisCluster: false }),
      async () => ({ STORE: "redis", REDIS_URL: (await sharedRedis()).url }),
      corruptOnRedis,
    ),
    // A loopback port nothing listens on.
    unreachable: async () => ({
      store: "redis",
      redisUrl: `redis://127.0.0.1:${await freePort()}`,
      redisCluster: false,
    }),
  };
}

export function redisClusterE2e(): E2eStore {
  return {
    ...backing(
      "redis-cluster",
      async () => ({ store: "redis", redisUrl: (await sharedRedisCluster()).url, redisCluster: true }),
      // A redis-cluster:// URL is all a roomd process needs to run in cluster mode.
      async () => ({ STORE: "redis", REDIS_URL: (await sharedRedisCluster()).url }),
      async (roomId, taskId) => {
        const key = `room:{${roomId}}:tasks`;
        const owner = await (await sharedRedisCluster()).ownerOf(keySlot(key));
        await redisCommand(owner, "HSET", [key, taskId, BROKEN]);
      },
    ),
    unreachable: async () => ({
      store: "redis",
      redisUrl: `redis-cluster://127.0.0.1:${await freePort()}`,
      redisCluster: true,
    }),
  };
}

let front: ReturnType<typeof startUpstashFront> | undefined;
/**
 * One Upstash-compatible REST front over the shared redis-server, for every test file of this process. Stopped and
 * forgotten with the shared servers: a worker that keeps its modules across files (`--no-isolate`) without the
 * run's servers gets a new redis-server for its next file, and a front kept over the old one answered every
 * Upstash test of the later files "Store unavailable".
 */
export async function sharedUpstashFront() {
  if (!front) {
    const started = sharedRedis().then((redis) => startUpstashFront({ redisUrl: redis.url }));
    front = started;
    stopWithTestProcess(async () => {
      front = undefined;
      await (await started).stop();
    });
  }
  return front;
}

export function upstashE2e(): E2eStore {
  return {
    ...backing(
      "upstash",
      async () => {
        const { url, token } = await sharedUpstashFront();
        return { store: "upstash", upstashUrl: url, upstashToken: token };
      },
      async () => {
        const { url, token } = await sharedUpstashFront();
        return { STORE: "upstash", UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: token };
      },
      corruptOnRedis,
    ),
    // A REST endpoint nothing listens on.
    unreachable: async () => ({
      store: "upstash",
      upstashUrl: `http://127.0.0.1:${await freePort()}`,
      upstashToken: "token",
    }),
  };
}

/**
 * A database of its own on the shared PostgreSQL server (test/support/postgres.ts), created on first use, so each
 * backing starts empty: a copy of the run's migrated template (no rows, the current schema), which roomd opens as a
 * deployment already migrated.
 */
export function postgresE2e(): E2eStore {
  let database: Promise<string> | undefined;
  const url = () => {
    database ??= sharedPostgres().then((server) => server.createDatabase({ migrated: true }));
    return database;
  };
  return {
    ...backing(
      "postgres",
      async () => ({ store: "postgres", databaseUrl: await url(), databasePoolSize: 10 }),
      async () => ({ STORE: "postgres", DATABASE_URL: await url() }),
      async (roomId, taskId) => {
        const sql = new SQL(await url());
        try {
          await sql`UPDATE tasks SET json = ${BROKEN} WHERE room_id = ${roomId} AND id = ${taskId}`;
        } finally {
          await sql.close();
        }
      },
    ),
    // A loopback port nothing listens on.
    unreachable: async () => ({
      store: "postgres",
      databaseUrl: `postgres://roomd@127.0.0.1:${await freePort()}/roomd`,
      databasePoolSize: 2,
    }),
  };
}

/** E2E_STORES=sqlite narrows the matrix while working on one driver; CI runs every store. */
export const E2E_STORES = [sqliteE2e, redisE2e, redisClusterE2e, upstashE2e, postgresE2e].filter(
  (make) => !process.env.E2E_STORES || process.env.E2E_STORES.split(",").includes(make().name),
);

export const newRoomId = () => `r-${crypto.randomUUID().slice(0, 12)}`;
