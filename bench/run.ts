/**
 * `bun run bench [--store sqlite,redis,upstash,postgres] [--processes 1,3] [--agents 16] [--calls 10000]`
 * For each store and process count: roomd processes on one store (agents spread round-robin over them), the MCP
 * transport floor (tools/list only), then the mixed coordination workload with a static key and with a dynamic
 * (`rk_…`) key. Prints one table: calls/s, latency percentiles, the ratio to the floor, store round trips per call
 * (counted at the store), roomd CPU-ms per 1,000 calls (summed over processes) and the largest process's RSS;
 * then per phase the CPU split by process, Redis's own cost and how busy the rest of the machine was. A phase
 * during which other work took more than 10% of the machine is run again (at most 2 tries; the cleaner is kept).
 */
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { mixedWorkload, runLoad, toolsList } from "./load.ts";
import { cleanestPhase, type PhaseResult } from "./phase.ts";
import {
  BENCH_STORES,
  type BenchStore,
  createDynamicKey,
  SECRET,
  seedRooms,
  startTarget,
  table,
} from "./server.ts";

const { values } = parseArgs({
  options: {
    store: { type: "string" },
    processes: { type: "string", default: "1,3" },
    agents: { type: "string", default: "16" },
    calls: { type: "string", default: "10000" },
  },
});
const agents = Number(values.agents);
const calls = Number(values.calls);
const list = (raw: string) => raw.split(",").filter(Boolean);
const stores = values.store ? (list(values.store) as BenchStore[]) : BENCH_STORES;
const processCounts = list(values.processes).map(Number);
const rooms = Math.max(1, agents / 4);

const fixed = (n: number | undefined, digits = 2) => (n === undefined ? "—" : n.toFixed(digits));
const rows: Record<string, string | number>[] = [];
const details: Record<string, string | number>[] = [];

async function bench(store: BenchStore, processes: number): Promise<void> {
  const target = await startTarget(store, { processes });
  try {
    const urls = target.servers.map((s) => s.url);
    const first = target.server.url;
    const dynamicKey = await createDynamicKey(first);
    // Warm-up (JIT, connection pools, script caches) on rooms of its own, through every process.
    const warmRooms = await seedRooms(first, rooms);
    const warm = 2000 * processes; // the same warm-up per process, whatever their number
    await runLoad({ url: urls, secret: SECRET, agents, calls: warm, next: toolsList });
    await runLoad({ url: urls, secret: SECRET, agents, calls: warm, next: mixedWorkload(warmRooms) });
    await runLoad({ url: urls, secret: dynamicKey, agents, calls: warm / 2, next: mixedWorkload(warmRooms) });

    const floor = await cleanestPhase(target, async () => ({
      secret: SECRET,
      agents,
      calls,
      next: toolsList,
    }));
    // Fresh rooms per mixed try, so every one starts from the same room sizes.
    const mixedOn = (secret: string) => async () => ({
      secret,
      agents,
      calls,
      next: mixedWorkload(await seedRooms(first, rooms)),
    });
    const mixed = await cleanestPhase(target, mixedOn(SECRET));
    const dynamic = await cleanestPhase(target, mixedOn(dynamicKey));
    const phases: [string, PhaseResult][] = [
      ["tools/list (floor)", floor],
      ["mixed, static key", mixed],
      ["mixed, dynamic key", dynamic],
    ];
    for (const [workload, r] of phases) {
      rows.push({
        store,
        processes,
        workload,
        calls: r.calls,
        errors: r.errors,
        "calls/s": Math.round(r.perSecond),
        "p50 ms": r.p50,
        "p99 ms": r.p99,
        "vs floor": `${Math.round((100 * r.perSecond) / floor.perSecond)}%`,
        "store round trips/call": fixed(r.tripsPerCall),
        "CPU-ms/1k calls": Math.round(r.cpuMsPer1000),
        "RSS MB (max/process)": Math.round(r.rssMb),
      });
      details.push({
        store,
        processes,
        workload,
        "CPU-ms/1k calls by process": r.cpuMsPer1000ByProcess.map((c) => Math.round(c)).join(" + "),
        "Redis commands/call incl. inside Lua": fixed(r.redis?.commandsPerCall, 1),
        "redis main-thread CPU µs/call": fixed(r.redis?.cpuUsPerCall, 1),
        "EVALSHA µs (Lua)": fixed(r.redis?.evalshaUsec, 1),
        "PostgreSQL transactions/call": fixed(r.postgres?.transactionsPerCall),
        "PostgreSQL server CPU µs/call": fixed(r.postgres && (r.postgres.processCpuMs * 1000) / r.calls, 0),
        "other load, % of machine": Math.round(r.otherCpuPercent),
      });
    }
  } finally {
    await target.stop();
  }
}

// Other work on the machine inflates every number here; the load average says how busy it was.
const loadBefore = loadavg()[0] ?? 0;
for (const store of stores) for (const processes of processCounts) await bench(store, processes);
console.log(`agents=${agents} calls=${calls} bun=${Bun.version}`);
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model}; 1-min load average before: ${loadBefore.toFixed(2)}\n`,
);
console.log(table(rows));
console.log(`\n${table(details)}`);
