/** Real stores for end-to-end tests: SQLite in a temp dir, the shared real redis-server and the shared real Redis Cluster. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RoomStore } from "../../src/store/types.ts";
import { sharedRedisCluster } from "./redis-cluster.ts";
import { sharedRedis } from "./redis-server.ts";
import { startUpstashFront } from "./upstash-front.ts";

export interface E2eStore {
  name: "sqlite" | "redis" | "redis-cluster" | "upstash";
  /** A store on this backing; `now` drives its clock (TTL and expiry tests move it instead of sleeping). */
  open(now?: () => number): Promise<RoomStore>;
  /** Environment for a separate roomd process on the same backing store. */
  env(): Promise<Record<string, string>>;
}

export function sqliteE2e(): E2eStore {
  const path = join(mkdtempSync(join(tmpdir(), "roomd-e2e-")), "roomd.sqlite");
  return {
    name: "sqlite",
    open: async (now = Date.now) =>
      (await import("../../src/store/sqlite/index.ts")).createSqliteStore({ path, now }),
    env: async () => ({ STORE: "sqlite", SQLITE_PATH: path }),
  };
}

export function redisE2e(): E2eStore {
  return {
    name: "redis",
    open: async (now = Date.now) => {
      const { url } = await sharedRedis();
      const { createRedisStore, createTcpScriptClient } = await import("../../src/store/redis/index.ts");
      return createRedisStore({
        client: createTcpScriptClient(url, { timeoutMs: 2000 }),
        driver: "redis",
        now,
      });
    },
    env: async () => ({ STORE: "redis", REDIS_URL: (await sharedRedis()).url }),
  };
}

export function redisClusterE2e(): E2eStore {
  return {
    name: "redis-cluster",
    open: async (now = Date.now) => {
      const { url } = await sharedRedisCluster();
      const { createRedisStore, createClusterScriptClient } = await import("../../src/store/redis/index.ts");
      return createRedisStore({
        client: createClusterScriptClient(url, { timeoutMs: 2000 }),
        driver: "redis",
        now,
      });
    },
    // A redis-cluster:// URL is all a roomd process needs to run in cluster mode.
    env: async () => ({ STORE: "redis", REDIS_URL: (await sharedRedisCluster()).url }),
  };
}

let front: ReturnType<typeof startUpstashFront> | undefined;
/** One Upstash-compatible REST front over the shared redis-server, for every test file of this process. */
export async function sharedUpstashFront() {
  front ??= startUpstashFront({ redisUrl: (await sharedRedis()).url });
  return front;
}

export function upstashE2e(): E2eStore {
  return {
    name: "upstash",
    open: async (now = Date.now) => {
      const { url, token } = await sharedUpstashFront();
      const { createRedisStore, createUpstashScriptClient } = await import("../../src/store/redis/index.ts");
      return createRedisStore({ client: createUpstashScriptClient(url, token), driver: "upstash", now });
    },
    env: async () => {
      const { url, token } = await sharedUpstashFront();
      return { STORE: "upstash", UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: token };
    },
  };
}

/** E2E_STORES=sqlite narrows the matrix while working on one driver; CI runs every store. */
export const E2E_STORES = [sqliteE2e, redisE2e, redisClusterE2e, upstashE2e].filter(
  (make) => !process.env.E2E_STORES || process.env.E2E_STORES.split(",").includes(make().name),
);

export const newRoomId = () => `r-${crypto.randomUUID().slice(0, 12)}`;
