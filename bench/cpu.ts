/**
 * `bun bench/cpu.ts [--store sqlite,redis] [--eras 2025,2026-07-28] [--servers roomd,sdk2,sdk2-mcpserver]
 * [--agents 16] [--calls 8000] [--tasks 100] [--log-levels info] [--tracing off] [--floor-calls 60000]
 * [--workloads tools/list,get_shared_var,mixed] [--tries 3] [--keep cleanest|lowest]`
 * CPU per tool call against a floor, side by side in one run. The floor is a bare Hono JSON POST handler
 * (bench/floor-server.ts: read a JSON body, answer a small JSON object) under the same load generator, the same
 * agents and the same machine; it is measured in each era (the era's request shape: the 2026-07-28 envelope is a
 * larger body and three more headers) first, after each workload's phases of that era, and last. Each row has two
 * ratios: `× floor`, against the mean of all the era's floors, and `× adjacent floors`, against the mean of the two
 * floors measured next to its phase (just before it and just after it): the floor is small enough that two
 * measurements seconds apart differed by half (15.8 and 23.7 µs), and the machine's speed drifts within a run, so a
 * phase is compared with the floors of its own minutes. Then per store
 * (and per LOG_LEVEL given): one process per server, all started together, then `tools/list`, `get_shared_var`
 * (the small call) and the mixed workload over plans of `--tasks` tasks (bench/load.ts planWorkload, plans that do
 * not grow), each workload measured in every era (bench/load.ts `Era`) on every server in turn. Servers
 * (bench/server.ts BENCH_SERVERS): `roomd` (src/index.ts), and the benchmark-only variants whose MCP layer is
 * `@modelcontextprotocol/server` 2.x over the same call path (bench/sdk2-server.ts): `sdk2` (a low-level Server
 * per request) and `sdk2-mcpserver` (a McpServer per request with the tools registered). CPU is
 * the process's user + system time from /proc, per call; on Redis also the redis-server main thread's CPU per
 * call. A phase during which other work took more than 10% of the machine is run again, up to `--tries` runs in
 * all (the cleanest is kept); with `--keep lowest` every phase, floors included, runs `--tries` times and the run
 * of lowest CPU per call is kept (bench/phase.ts lowestPhase: the machine's speed drifts, and the lowest of several
 * runs is the least slowed by it). `--tracing off,on` runs each store with tracing off (no OTLP endpoint: the default)
 * and on (exporting every span to a receiver in this process that counts and drops them, sampling everything).
 */
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { type Call, ERAS, type Era, planWorkload, runLoad, sharedVarWorkload, toolsList } from "./load.ts";
import { cleanestPhase, lowestPhase, type PhaseResult } from "./phase.ts";
import {
  BENCH_SERVERS,
  type BenchStore,
  type BenchTarget,
  SECRET,
  seedPlans,
  startFloor,
  startTarget,
  table,
} from "./server.ts";

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
    keep: { type: "string", default: "cleanest" },
    eras: { type: "string", default: ERAS.join(",") },
    servers: { type: "string", default: "roomd" },
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
const eras = list(values.eras) as Era[];
for (const era of eras) if (!ERAS.includes(era)) throw new Error(`--eras: one of ${ERAS.join(", ")}`);

const servers = list(values.servers);
for (const name of servers)
  if (!BENCH_SERVERS[name]) throw new Error(`--servers: one of ${Object.keys(BENCH_SERVERS).join(", ")}`);
/** A phase during which other work took over 10% of the machine is run again, up to this many times in all. */
const tries = Number(values.tries);
if (values.keep !== "cleanest" && values.keep !== "lowest") throw new Error("--keep: cleanest or lowest");
/** How a phase's tries become its row: the cleanest (`cleanestPhase`) or the lowest CPU per call (`lowestPhase`). */
const keepPhase = values.keep === "lowest" ? lowestPhase : cleanestPhase;
const roomCount = Math.max(1, agents / 4);
type NextCall = (agent: number, n: number) => Call;

const floorCall = (_agent: number, n: number): Call => ({
  method: "tools/call",
  params: { name: "get_shared_var", arguments: { roomId: "floor", key: `k${n % 8}` } },
});

const usPerCall = (r: PhaseResult) => r.cpuMsPer1000; // ms per 1,000 calls = µs per call
const rows: Record<string, string | number>[] = [];
/** For each workload row: its era and the index in that era's floors of the floor measured just after it. */
const adjacent = new Map<Record<string, string | number>, { era: Era; after: number }>();
/** Each era's floor measurements (µs per request), in the order measured. */
const floors = new Map<Era, number[]>();

/**
 * Measures the floor in `era`. Every floor measured counts in the era's mean; `shown` ones (the first and the last)
 * are rows of the table too, the others (one after each workload's phases of the era) are listed in the floor line.
 */
async function floorPhase(label: string, era: Era, shown = true): Promise<void> {
  const floor = await startFloor();
  try {
    const target = { servers: [floor] };
    await runLoad({ url: floor.url, secret: SECRET, agents, calls: 5000, next: floorCall, era });
    const r = await keepPhase(
      target,
      async () => ({ secret: SECRET, agents, calls: floorCalls, next: floorCall, era }),
      tries,
    );
    floors.set(era, [...(floors.get(era) ?? []), usPerCall(r)]);
    if (shown) rows.push(row("—", "", "—", "floor", era, `bare Hono JSON POST (floor, ${label})`, r));
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

function row(
  store: string,
  logLevel: string,
  tracing: string,
  server: string,
  era: Era,
  workload: string,
  r: PhaseResult,
): Record<string, string | number> {
  return {
    store,
    LOG_LEVEL: logLevel,
    tracing,
    server,
    era,
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

/**
 * One store and log level: every server's process started at once (each on a store of its own), then each
 * workload measured in each era on one server after the other, so that the phases compared are measured minutes
 * apart at most, under the same load of a shared machine (a server waiting its turn is idle).
 */
async function storePhases(store: BenchStore, logLevel: string, tracing: string): Promise<void> {
  const otel: Record<string, string> =
    tracing === "on" ? { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver?.port}` } : {};
  const targets = new Map<string, BenchTarget>();
  try {
    for (const server of servers) {
      const { entry, env } = BENCH_SERVERS[server] ?? {};
      const options = { env: { LOG_LEVEL: logLevel, ...otel, ...env }, ...(entry ? { entry } : {}) };
      targets.set(server, await startTarget(store, options));
    }
    // Warm-up: every server in every era, on rooms the small call then reads.
    const warm = new Map<string, string[]>();
    for (const [server, target] of targets) {
      const url = target.server.url;
      const rooms = await seedPlans(url, roomCount, tasks);
      warm.set(server, rooms);
      for (const era of eras) {
        await runLoad({ url, secret: SECRET, agents, calls: 2000, next: toolsList, era });
        await runLoad({ url, secret: SECRET, agents, calls: 2000, next: sharedVarWorkload(rooms), era });
        await runLoad({ url, secret: SECRET, agents, calls: 2000, next: planWorkload(rooms, tasks), era });
      }
    }
    /** One workload in every era on every server in turn; `next` builds each try's calls. */
    const each = async (workload: string, next: (rooms: string[], url: string) => Promise<NextCall>) => {
      for (const era of eras) {
        for (const [server, target] of targets) {
          const url = target.server.url;
          const prepare = async () => ({
            secret: SECRET,
            agents,
            calls,
            era,
            next: await next(warm.get(server) ?? [], url),
          });
          const measured = row(
            store,
            logLevel,
            tracing,
            server,
            era,
            workload,
            await keepPhase(target, prepare, tries),
          );
          // The era's floors measured so far: the last one is just before this phase, the next one just after it.
          adjacent.set(measured, { era, after: floors.get(era)?.length ?? 0 });
          rows.push(measured);
        }
        await floorPhase(`after ${workload}`, era, false);
      }
    };
    if (workloads.has("tools/list")) await each("tools/list", async () => toolsList);
    if (workloads.has("get_shared_var"))
      await each("get_shared_var", async (rooms) => sharedVarWorkload(rooms));
    // Fresh plans per try: every try starts from the same room sizes and logs.
    if (workloads.has("mixed"))
      await each(`mixed, ${tasks}-task plans`, async (_, url) =>
        planWorkload(await seedPlans(url, roomCount, tasks), tasks),
      );
  } finally {
    for (const target of targets.values()) await target.stop();
  }
}

const loadBefore = loadavg()[0] ?? 0;
for (const era of eras) await floorPhase("first", era);
for (const store of stores)
  for (const level of logLevels) for (const mode of tracingModes) await storePhases(store, level, mode);
for (const era of eras) await floorPhase("last", era);
await receiver?.stop(true);

const floorOf = new Map<Era, number>();
for (const [era, measured] of floors) floorOf.set(era, measured.reduce((a, b) => a + b, 0) / measured.length);
for (const r of rows) {
  const us = r["CPU µs/call"] as number;
  r["× floor"] = `${(us / (floorOf.get(r.era as Era) ?? Number.NaN)).toFixed(1)}×`;
  // Against the two floors measured next to the phase (the one before it and the one after it, in its era): the
  // machine's speed drifts within a run, and the floors on either side of a phase drift with it.
  const near = adjacent.get(r);
  const pair = near ? (floors.get(near.era) ?? []).slice(near.after - 1, near.after + 1) : [];
  r["× adjacent floors"] =
    pair.length === 2 ? `${(us / (((pair[0] as number) + (pair[1] as number)) / 2)).toFixed(1)}×` : "—";
}
console.log(
  `agents=${agents} calls/phase=${calls} rooms=${roomCount} tasks/room=${tasks} bun=${Bun.version}`,
);
const floorText = [...floors]
  .map(
    ([era, measured]) =>
      `${era} floors in order = ${measured.map((f) => f.toFixed(1)).join(", ")} µs/request (mean ${floorOf.get(era)?.toFixed(1)})`,
  )
  .join("; ");
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model}; 1-min load average before: ${loadBefore.toFixed(2)}, ` +
    `after: ${(loadavg()[0] ?? 0).toFixed(2)}; ${floorText}` +
    (receiver ? `; spans received with tracing on: ${spansReceived}` : "") +
    "\n",
);
console.log(table(rows));
