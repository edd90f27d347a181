/**
 * `bun bench/cpu.ts [--store sqlite,redis] [--agents 16] [--calls 8000] [--tasks 100] [--log-levels info]
 * [--tracing off] [--floor-calls 60000] [--workloads tools/list,get_shared_var,mixed] [--tries 3]`
 * CPU per tool call against a floor, side by side in one run. The floor is a bare Hono JSON POST handler
 * (bench/floor-server.ts: read a JSON body, answer a small JSON object) under the same load generator, the same
 * agents and the same machine; it is measured first and last, and the ratios use the mean of the two. Then per
 * store (and per LOG_LEVEL given): one roomd process, `tools/list`, `get_shared_var` (the small call) and the mixed
 * workload over plans of `--tasks` tasks (bench/load.ts planWorkload, plans that do not grow). CPU is the
 * process's user + system time from /proc, per call; on Redis also the redis-server main thread's CPU per call.
 * A phase during which other work took more than 10% of the machine is run again, up to `--tries` runs in all
 * (the cleanest is kept). `--tracing off,on` runs each store with tracing off (no OTLP endpoint: the default) and
 * on (exporting every span to a receiver in this process that counts and drops them, sampling everything).
 */
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { spawn } from "bun";
import { freePort } from "../test/support/redis-server.ts";
import type { SpawnedServer } from "../test/support/server.ts";
import { type Call, planWorkload, runLoad, sharedVarWorkload, toolsList } from "./load.ts";
import { cleanestPhase, type PhaseResult } from "./phase.ts";
import { type BenchStore, SECRET, seedPlans, startTarget, table } from "./server.ts";

const { values } = parseArgs({
  options: {
    store: { type: "string", default: "sqlite" },
    agents: { type: "string", default: "16" },
    calls: { type: "string", default: "8000" },
    tasks: { type: "string", default: "100" },
    "log-levels": { type: "string", default: "info" },
    tracing: { type: "string", default: "off" },
    "floor-calls": { type: "string", default: "60000" },
    workloads: { type: "string", default: "tools/list,get_shared_var,mixed" },
    tries: { type: "string", default: "3" },
  },
});
const agents = Number(values.agents);
const calls = Number(values.calls);
const tasks = Number(values.tasks);
/** The floor costs ~1/10 of a tool call: more requests keep its CPU well above /proc's 10 ms resolution. */
const floorCalls = Number(values["floor-calls"]);
const list = (raw: string) => raw.split(",").filter(Boolean);
const stores = list(values.store) as BenchStore[];
const logLevels = list(values["log-levels"]);
const tracingModes = list(values.tracing);
const workloads = new Set(list(values.workloads));
/** A phase during which other work took over 10% of the machine is run again, up to this many times in all. */
const tries = Number(values.tries);
const rooms = Math.max(1, agents / 4);

/** The floor's process, shaped like a roomd process so the same phase code measures it. */
async function startFloor(): Promise<SpawnedServer> {
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

const floorCall = (_agent: number, n: number): Call => ({
  method: "tools/call",
  params: { name: "get_shared_var", arguments: { roomId: "floor", key: `k${n % 8}` } },
});

const usPerCall = (r: PhaseResult) => r.cpuMsPer1000; // ms per 1,000 calls = µs per call
const rows: Record<string, string | number>[] = [];
const floors: number[] = [];

async function floorPhase(label: string): Promise<void> {
  const floor = await startFloor();
  try {
    const target = { servers: [floor] };
    await runLoad({ url: floor.url, secret: SECRET, agents, calls: 5000, next: floorCall });
    const r = await cleanestPhase(
      target,
      async () => ({ secret: SECRET, agents, calls: floorCalls, next: floorCall }),
      tries,
    );
    floors.push(usPerCall(r));
    rows.push(rowOf("—", "", `bare Hono JSON POST (floor, ${label})`, r, "—"));
  } finally {
    await floor.stop();
  }
}

/** Where a roomd with tracing on sends its spans: an OTLP/HTTP receiver that counts the spans and drops them. */
let spansReceived = 0;
const receiver = tracingModes.includes("on")
  ? Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        const body = (await req.json()) as { resourceSpans?: { scopeSpans: { spans: unknown[] }[] }[] };
        for (const r of body.resourceSpans ?? [])
          for (const s of r.scopeSpans) spansReceived += s.spans.length;
        return Response.json({});
      },
    })
  : undefined;

function rowOf(
  store: string,
  logLevel: string,
  workload: string,
  r: PhaseResult,
  tracing = "off",
): Record<string, string | number> {
  return {
    store,
    LOG_LEVEL: logLevel,
    tracing,
    workload,
    calls: r.calls,
    errors: r.errors,
    "calls/s": Math.round(r.perSecond),
    "p50 ms": r.p50,
    "p99 ms": r.p99,
    "CPU µs/call": Math.round(usPerCall(r)),
    "store round trips/call": r.tripsPerCall === undefined ? "—" : r.tripsPerCall.toFixed(2),
    "redis main-thread µs/call": r.redis ? r.redis.cpuUsPerCall.toFixed(1) : "—",
    "other load %": Math.round(r.otherCpuPercent),
  };
}

async function roomdPhases(store: BenchStore, logLevel: string, tracing: string): Promise<void> {
  const otel: Record<string, string> =
    tracing === "on" ? { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver?.port}` } : {};
  const target = await startTarget(store, { env: { LOG_LEVEL: logLevel, ...otel } });
  const row = (level: string, workload: string, r: PhaseResult) => rowOf(store, level, workload, r, tracing);
  try {
    const url = target.server.url;
    const warm = await seedPlans(url, rooms, tasks);
    await runLoad({ url, secret: SECRET, agents, calls: 2000, next: toolsList });
    await runLoad({ url, secret: SECRET, agents, calls: 2000, next: sharedVarWorkload(warm) });
    await runLoad({ url, secret: SECRET, agents, calls: 2000, next: planWorkload(warm, tasks) });
    const phase = (next: (agent: number, n: number) => Call) =>
      cleanestPhase(target, async () => ({ secret: SECRET, agents, calls, next }), tries);
    if (workloads.has("tools/list")) rows.push(row(logLevel, "tools/list", await phase(toolsList)));
    if (workloads.has("get_shared_var"))
      rows.push(row(logLevel, "get_shared_var", await phase(sharedVarWorkload(warm))));
    if (!workloads.has("mixed")) return;
    // Fresh plans per try: every try starts from the same room sizes and logs.
    const mixed = await cleanestPhase(
      target,
      async () => ({
        secret: SECRET,
        agents,
        calls,
        next: planWorkload(await seedPlans(url, rooms, tasks), tasks),
      }),
      tries,
    );
    rows.push(row(logLevel, `mixed, ${tasks}-task plans`, mixed));
  } finally {
    await target.stop();
  }
}

const loadBefore = loadavg()[0] ?? 0;
await floorPhase("first");
for (const store of stores)
  for (const level of logLevels) for (const mode of tracingModes) await roomdPhases(store, level, mode);
await floorPhase("last");
await receiver?.stop(true);

const floor = floors.reduce((a, b) => a + b, 0) / floors.length;
for (const r of rows) {
  const us = r["CPU µs/call"] as number;
  r["× floor"] = `${(us / floor).toFixed(1)}×`;
}
console.log(`agents=${agents} calls/phase=${calls} rooms=${rooms} tasks/room=${tasks} bun=${Bun.version}`);
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model}; 1-min load average before: ${loadBefore.toFixed(2)}; ` +
    `floor = mean of ${floors.map((f) => f.toFixed(1)).join(" and ")} = ${floor.toFixed(1)} µs/request` +
    (receiver ? `; spans received with tracing on: ${spansReceived}` : "") +
    "\n",
);
console.log(table(rows));
