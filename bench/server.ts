/** Bench helpers: roomd processes per store, seeded rooms, a dynamic key, and the server's resident size. */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "bun";
import { type PostgresServer, startPostgres } from "../test/support/postgres.ts";
import { freePort, type RedisServer, startRedisServer } from "../test/support/redis-server.ts";
import { type SpawnedServer, spawnServer } from "../test/support/server.ts";
import { startUpstashFront, type UpstashFront } from "../test/support/upstash-front.ts";
import { answerOf } from "./load.ts";
import { type PgProbe, pgProbe } from "./pg-probe.ts";
import { type RedisProbe, redisProbe } from "./probes.ts";

export const SECRET = "bench-secret-0123456789abcdef";

export type BenchStore = "sqlite" | "redis" | "upstash" | "postgres";
export const BENCH_STORES: BenchStore[] = ["sqlite", "redis", "upstash", "postgres"];

/**
 * The processes a benchmark can measure: roomd itself, and roomd with its MCP layer swapped for
 * `@modelcontextprotocol/server` 2.x over the same call path (bench/sdk2-server.ts; a low-level Server, or the
 * McpServer idiom, per request).
 */
export const BENCH_SERVERS: Record<string, { entry?: string; env?: Record<string, string> }> = {
  roomd: {},
  sdk2: { entry: "bench/sdk2-server.ts", env: { SDK2_STYLE: "server" } },
  "sdk2-mcpserver": { entry: "bench/sdk2-server.ts", env: { SDK2_STYLE: "mcpserver" } },
};

export interface BenchTarget {
  store: BenchStore;
  /** The first process (single-process benches use only this one). */
  server: SpawnedServer;
  /** Every roomd process, all on the same store. */
  servers: SpawnedServer[];
  /** The private redis-server behind the redis and upstash stores, with a probe on it. */
  redis?: { server: RedisServer; probe: RedisProbe };
  /** The Upstash REST front (in this process), for the upstash store. */
  front?: UpstashFront;
  /** The private PostgreSQL server of the postgres store, with a probe on roomd's database. */
  postgres?: { server: PostgresServer; probe: PgProbe };
  stop(): Promise<void>;
}

export interface TargetOptions {
  /** roomd processes to start on the same store (default 1). */
  processes?: number;
  /** Extra roomd environment. */
  env?: Record<string, string>;
  /** The entry file each process runs (default `src/index.ts`; bench/sdk2-server.ts is the SDK 2.x variant). */
  entry?: string;
}

/**
 * Starts the store (a temp SQLite file, a private PostgreSQL server, or a private redis-server, fronted by the
 * Upstash REST stand-in for `upstash`) and `processes` roomd processes on it. The rate limit is raised to its maximum so that the
 * benchmark measures the limiter's cost, not its refusals.
 */
export async function startTarget(store: BenchStore, options: TargetOptions = {}): Promise<BenchTarget> {
  const base = { API_KEYS: `bench:${SECRET}`, RATE_LIMIT_PER_MINUTE: "1000000", ...options.env };
  let env: Record<string, string>;
  let redis: BenchTarget["redis"];
  let front: UpstashFront | undefined;
  let postgres: BenchTarget["postgres"];
  if (store === "sqlite") {
    const path = join(mkdtempSync(join(tmpdir(), "roomd-bench-")), "roomd.sqlite");
    env = { ...base, STORE: "sqlite", SQLITE_PATH: path };
  } else if (store === "postgres") {
    const server = await startPostgres({ settings: { shared_preload_libraries: "pg_stat_statements" } });
    const url = await server.createDatabase();
    postgres = { server, probe: await pgProbe(url) };
    env = { ...base, STORE: "postgres", DATABASE_URL: url };
  } else {
    const server = await startRedisServer();
    redis = { server, probe: await redisProbe(server.url) };
    if (store === "redis") {
      env = { ...base, STORE: "redis", REDIS_URL: server.url };
    } else {
      front = await startUpstashFront({ redisUrl: server.url });
      env = {
        ...base,
        STORE: "upstash",
        UPSTASH_REDIS_REST_URL: front.url,
        UPSTASH_REDIS_REST_TOKEN: front.token,
      };
    }
  }
  const servers: SpawnedServer[] = [];
  for (let i = 0; i < (options.processes ?? 1); i++)
    servers.push(await spawnServer(env, options.entry ? { entry: options.entry } : {}));
  return {
    store,
    server: servers[0] as SpawnedServer,
    servers,
    ...(redis ? { redis } : {}),
    ...(front ? { front } : {}),
    ...(postgres ? { postgres } : {}),
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await postgres?.probe.close();
      await postgres?.server.stop();
      await front?.stop();
      redis?.probe.close();
      await redis?.server.stop();
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

/** Mints a dynamic team key (`rk_…`) with the static bench key through POST /admin/keys; returns its secret. */
export async function createDynamicKey(url: string): Promise<string> {
  const res = await fetch(`${url}/admin/keys`, {
    method: "POST",
    headers: { Authorization: `Bearer ${SECRET}`, "Content-Type": "application/json" },
    body: JSON.stringify({ note: "bench" }),
  });
  const body = (await res.json()) as { secret?: string; error?: string };
  if (res.status !== 201 || !body.secret) throw new Error(`POST /admin/keys: ${res.status} ${body.error}`);
  return body.secret;
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

/**
 * One tools/call with the bench key; resolves with the structured result, throws on a tool or transport error
 * (seeding must not silently leave rooms short).
 */
export async function callTool<T = Record<string, unknown>>(
  url: string,
  name: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<T> {
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${SECRET}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
    ...(signal ? { signal } : {}),
  });
  const body = (await answerOf(res)) as {
    error?: { message?: string };
    result?: { isError?: boolean; structuredContent?: T; content?: { text?: string }[] };
  };
  if (!res.ok || body.error || body.result?.isError || !body.result?.structuredContent) {
    const why = body.error?.message ?? body.result?.content?.[0]?.text ?? `HTTP ${res.status}`;
    throw new Error(`${name}: ${why}`);
  }
  return body.result.structuredContent;
}

/** Rooms with `tasks` tasks each (`task-1`…) and the shared variable `port`, for the CPU benchmark's workloads. */
export async function seedPlans(url: string, count: number, tasks: number): Promise<string[]> {
  const rooms = Array.from({ length: count }, (_, i) => `cpu-${crypto.randomUUID().slice(0, 8)}-${i}`);
  for (const roomId of rooms) {
    await callTool(url, "set_shared_var", { roomId, key: "port", value: "8080", agentId: "seed" });
    for (let t = 1; t <= tasks; t++) await callTool(url, "add_task", { roomId, title: `seed task ${t}` });
  }
  return rooms;
}

/** The floor's process, shaped like a roomd process so the same phase code measures it. */
export async function startFloor(): Promise<SpawnedServer> {
  const port = await freePort();
  const proc = spawn(["bun", join(import.meta.dir, "floor-server.ts")], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port) },
    stdout: "pipe",
    stderr: "pipe",
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {}
    if (Date.now() > deadline) throw new Error("the floor server did not start");
    await Bun.sleep(50);
  }
  return {
    url,
    proc,
    output: () => "",
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}
