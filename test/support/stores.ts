/** Real stores for end-to-end tests: SQLite in a temp dir and the shared real redis-server. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RoomStore } from "../../src/store/types.ts";
import { sharedRedis } from "./redis-server.ts";

export interface E2eStore {
  name: "sqlite" | "redis";
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

/** E2E_STORES=sqlite narrows the matrix while working on one driver; CI runs every store. */
export const E2E_STORES = [sqliteE2e, redisE2e].filter(
  (make) => !process.env.E2E_STORES || process.env.E2E_STORES.split(",").includes(make().name),
);

export const newRoomId = () => `r-${crypto.randomUUID().slice(0, 12)}`;
