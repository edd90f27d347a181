/** Bench helpers: a roomd process per store, seeded rooms, and the server's resident size. */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRedisServer } from "../test/support/redis-server.ts";
import { type SpawnedServer, spawnServer } from "../test/support/server.ts";

export const SECRET = "bench-secret-0123456789abcdef";

export type BenchStore = "sqlite" | "redis";

export interface BenchTarget {
  store: BenchStore;
  server: SpawnedServer;
  stop(): Promise<void>;
}

export async function startTarget(store: BenchStore): Promise<BenchTarget> {
  const keys = { API_KEYS: `bench:${SECRET}` };
  if (store === "sqlite") {
    const path = join(mkdtempSync(join(tmpdir(), "roomd-bench-")), "roomd.sqlite");
    const server = await spawnServer({ ...keys, STORE: "sqlite", SQLITE_PATH: path });
    return { store, server, stop: () => server.stop() };
  }
  const redis = await startRedisServer();
  const server = await spawnServer({ ...keys, STORE: "redis", REDIS_URL: redis.url });
  return {
    store,
    server,
    stop: async () => {
      await server.stop();
      await redis.stop();
    },
  };
}

/** Resident set size of a process, in MB (Linux /proc). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** Creates rooms with 8 tasks each, so update_task and get_task in the workload hit real tasks. */
export async function seedRooms(url: string, count: number): Promise<string[]> {
  const rooms = Array.from({ length: count }, (_, i) => `bench-${crypto.randomUUID().slice(0, 8)}-${i}`);
  for (const roomId of rooms) {
    for (let t = 1; t <= 8; t++) {
      await fetch(`${url}/mcp`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${SECRET}`,
          "Content-Type": "application/json",
          Accept: "application/json",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: t,
          method: "tools/call",
          params: { name: "add_task", arguments: { roomId, title: `seed ${t}` } },
        }),
      });
    }
  }
  return rooms;
}

export function table(rows: Record<string, string | number>[]): string {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: string | number) =>
    typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : v;
  const lines = [
    `| ${cols.join(" | ")} |`,
    `|${cols.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${cols.map((c) => cell(r[c] ?? "")).join(" | ")} |`),
  ];
  return lines.join("\n");
}
