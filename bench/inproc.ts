/**
 * `bun bench/inproc.ts [--store sqlite|redis] [--era 2025|2026-07-28] [--calls 20000] [--agents 16] [--tasks 100]
 * [--rounds 3] [--workloads get_shared_var,mixed,slots,slot<n>]`
 * roomd's CPU per tool call in one process, without the network: the app's `fetch` called directly by 16
 * concurrent agents (the same JSON-RPC requests bench/load.ts sends), CPU from `process.cpuUsage()` (which here
 * also counts the load generator's own request building, a few µs). `slots` measures each of the mixed
 * workload's tools alone (400 calls per agent slot), to say which tools the mixed figure is made of. Rounds
 * alternate the workloads so slow phases of a shared machine spread over all of them. Not the targets' measure
 * (bench/cpu.ts is): a quick, less noisy way to compare two versions of the code.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { appDeps, createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { silentLogger } from "../src/log.ts";
import { openStore } from "../src/store/index.ts";
import { startRedisServer } from "../test/support/redis-server.ts";
import { type Call, ERAS, type Era, planWorkload, rpcRequest, sharedVarWorkload } from "./load.ts";
import { SECRET } from "./server.ts";

const { values } = parseArgs({
  options: {
    store: { type: "string", default: "sqlite" },
    calls: { type: "string", default: "20000" },
    agents: { type: "string", default: "16" },
    tasks: { type: "string", default: "100" },
    rounds: { type: "string", default: "3" },
    workloads: { type: "string", default: "get_shared_var,mixed,slots" },
    era: { type: "string", default: "2025" },
  },
});
const era = values.era as Era;
if (!ERAS.includes(era)) throw new Error(`--era: one of ${ERAS.join(", ")}`);
const agents = Number(values.agents);
const tasks = Number(values.tasks);
const calls = Number(values.calls);
const workloads = values.workloads.split(",");

const redis = values.store === "redis" ? await startRedisServer() : undefined;
const config = loadConfig({
  API_KEYS: `bench:${SECRET}`,
  RATE_LIMIT_PER_MINUTE: "1000000",
  ...(redis
    ? { STORE: "redis", REDIS_URL: redis.url }
    : { STORE: "sqlite", SQLITE_PATH: join(mkdtempSync(join(tmpdir(), "roomd-inproc-")), "roomd.sqlite") }),
});
const store = await openStore(config);
const deps = appDeps(config, store, silentLogger, Date.now);
const app = createApp(deps);
const headers = {
  Authorization: `Bearer ${SECRET}`,
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
};

let failures = 0;
async function send(call: Call, id: number, speaking: Era = era): Promise<void> {
  const request = rpcRequest(speaking, id, call);
  const res = await app.fetch(
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: { ...headers, ...request.headers },
      body: request.body,
    }),
  );
  const body = (await res.json()) as { error?: unknown; result?: { isError?: boolean } };
  if (!res.ok || body.error || body.result?.isError) failures++;
}

/** CPU µs per call of `total` calls by `agents` concurrent agents. */
async function measure(total: number, next: (agent: number, n: number) => Call): Promise<number> {
  let issued = 0;
  const run = () =>
    Promise.all(
      Array.from({ length: agents }, async (_, agent) => {
        for (let n = 0; issued < total; n++) {
          issued++;
          await send(next(agent, n), n);
        }
      }),
    );
  Bun.gc(true);
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / total;
}

async function seed(count: number): Promise<string[]> {
  const rooms = Array.from({ length: count }, (_, i) => `inp-${crypto.randomUUID().slice(0, 8)}-${i}`);
  for (const roomId of rooms) {
    const call = (name: string, args: Record<string, unknown>) =>
      send({ method: "tools/call", params: { name, arguments: { roomId, ...args } } }, 0, "2025");
    await call("set_shared_var", { key: "port", value: "8080", agentId: "seed" });
    for (let t = 1; t <= tasks; t++) await call("add_task", { title: `seed task ${t}` });
  }
  return rooms;
}

const rooms = await seed(Math.max(1, agents / 4));
const results = new Map<string, number[]>();
const note = (name: string, us: number) => results.set(name, [...(results.get(name) ?? []), us]);
const mixed = planWorkload(rooms, tasks);
// One slot of the mixed workload alone: the agent's n-th call of that slot, n stepping by 20.
const slot = (s: number) => (agent: number, n: number) => mixed(agent, s + 20 * n);
const slotName = (s: number) => (mixed(0, s).params as { name: string }).name;

await measure(3000, mixed);
await measure(3000, sharedVarWorkload(rooms));
for (let round = 0; round < Number(values.rounds); round++) {
  if (workloads.includes("get_shared_var"))
    note("get_shared_var", await measure(calls, sharedVarWorkload(rooms)));
  if (workloads.includes("mixed")) note("mixed", await measure(calls, mixed));
  if (workloads.includes("slots")) {
    for (let s = 0; s < 20; s++)
      note(`slot ${String(s).padStart(2)} ${slotName(s)}`, await measure(400, slot(s)));
  }
  // "slot7": one slot of the mixed workload alone, `--calls` times (e.g. under bun --cpu-prof).
  for (const w of workloads.filter((w) => /^slot\d+$/.test(w))) {
    const s = Number(w.slice(4));
    note(`${w} ${slotName(s)}`, await measure(calls, slot(s)));
  }
}
const fmt = (xs: number[]) => xs.map((x) => x.toFixed(1).padStart(7)).join(" ");
console.log(
  `store=${values.store} era=${era} agents=${agents} tasks=${tasks} failures=${failures} (µs CPU per call, by round)`,
);
for (const [name, xs] of results) {
  const sorted = [...xs].sort((a, b) => a - b);
  console.log(`${name.padEnd(34)} ${fmt(xs)}   min ${sorted[0]?.toFixed(1)}`);
}
deps.live.close();
await store.close?.();
await redis?.stop();
