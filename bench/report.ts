/**
 * `bun bench/report.ts [--store sqlite,redis,postgres] [--events 1000,10000,50000] [--rounds 5]`
 * What GET /rooms/:roomId/report costs as a room's log grows: a room is filled through the store (tasks claimed
 * and finished, a contract updated for two consumers who consume their events, agents' posts — about a third of
 * the log each), then its report is fetched over real HTTP `rounds` times; prints the median wall ms, the report's
 * size and roomd's CPU ms per report (process.cpuUsage, this process holding roomd and the client).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { appDeps, createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { silentLogger } from "../src/log.ts";
import { openStore } from "../src/store/index.ts";
import type { RoomStore } from "../src/store/types.ts";
import { startPostgres } from "../test/support/postgres.ts";
import { startRedisServer } from "../test/support/redis-server.ts";
import { SECRET } from "./server.ts";

const { values } = parseArgs({
  options: {
    store: { type: "string", default: "sqlite" },
    events: { type: "string", default: "1000,10000,50000" },
    rounds: { type: "string", default: "5" },
  },
});
const sizes = values.events.split(",").map(Number);
const rounds = Number(values.rounds);
const CONTRACT = {
  service: "orders",
  version: "1",
  endpoints: [{ method: "GET", path: "/orders", response: {}, auth_required: true, description: "list" }],
};

/** Fills a room to about `events` events: a third task events, a third contract updates, a third posts. */
async function fill(store: RoomStore, roomId: string, events: number): Promise<number> {
  const scope = { roomId, teamId: "bench" };
  const entry = await store.writeContext(scope, {
    type: "api_contract",
    summary: "orders",
    consuming_agents: ["web", "cli"],
    payload: CONTRACT,
    author: "api",
  });
  let appended = 1;
  while (appended < events) {
    const task = await store.addTask(scope, {
      title: "t",
      description: "",
      depends_on: [],
      priority: null,
      agentId: "api",
    });
    await store.claimTask({ ...scope, actor: "web" }, { taskId: task.id, agentId: "web", leaseMs: 900_000 });
    await store.updateTask(scope, { taskId: task.id, status: "done", agentId: "web" });
    await store.updateContext(scope, { id: entry.id, author: "api", summary: "orders", payload: CONTRACT });
    await store.consumeEvents(scope, "web", 100);
    for (let i = 0; i < 3; i++)
      await store.postEvent(scope, { type: "note", from: "cli", to: "all", payload: { i } });
    appended += 7;
  }
  return appended;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

for (const kind of values.store.split(",")) {
  let env: Record<string, string>;
  let stop = async () => {};
  if (kind === "redis") {
    const redis = await startRedisServer();
    env = { STORE: "redis", REDIS_URL: redis.url };
    stop = () => redis.stop();
  } else if (kind === "postgres") {
    const pg = await startPostgres();
    env = { STORE: "postgres", DATABASE_URL: await pg.createDatabase() };
    stop = () => pg.stop();
  } else
    env = { STORE: "sqlite", SQLITE_PATH: join(mkdtempSync(join(tmpdir(), "roomd-report-")), "r.sqlite") };
  const config = loadConfig({ ...env, API_KEYS: `bench:${SECRET}`, RATE_LIMIT_PER_MINUTE: "1000000" });
  const store = await openStore(config);
  const deps = appDeps(config, store, silentLogger, Date.now);
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: createApp(deps).fetch });
  for (const events of sizes) {
    const roomId = `report-${events}`;
    const made = await fill(store, roomId, events);
    const wall: number[] = [];
    let bytes = 0;
    const cpu = process.cpuUsage();
    for (let r = 0; r < rounds; r++) {
      const started = performance.now();
      const res = await fetch(`http://127.0.0.1:${server.port}/rooms/${roomId}/report`, {
        headers: { Authorization: `Bearer ${SECRET}` },
      });
      bytes = (await res.text()).length;
      if (res.status !== 200) throw new Error(`report answered ${res.status}`);
      wall.push(performance.now() - started);
    }
    const used = process.cpuUsage(cpu);
    process.stdout.write(
      `${kind}\tevents ${made}\treport ${median(wall).toFixed(1)} ms (median of ${rounds})\tCPU ${((used.user + used.system) / 1000 / rounds).toFixed(1)} ms\t${bytes} bytes\n`,
    );
  }
  deps.live.close();
  await server.stop(true);
  await store.close();
  await stop();
}
