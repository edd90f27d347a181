/**
 * `bun bench/capacity.ts [--calls 10000] [--agents 16] [--target 10000]` — the inputs of a sizing model, each
 * measured, and what follows from them:
 *   1. roomd on Redis under the mixed workload: roomd CPU-ms per 1,000 calls, round trips per call (client
 *      commands at the redis-server), µs of Lua per call and the redis main thread's CPU per call;
 *   2. redis-benchmark against a fresh private redis-server: SET/GET, a trivial EVALSHA, and roomd's own
 *      rate-limit script (CONSUME_RATE) — commands/s one shard sustains with 50 clients, no pipelining.
 * Then: tool calls/s per roomd core, tool calls/s per Redis shard, roomd cores one shard can feed, and a sizing
 * example for `--target` tool calls/s. Everything shares one machine; the numbers say so.
 */
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { RedisClient } from "bun";
import { startRedisServer } from "../test/support/redis-server.ts";
import { mixedWorkload, runLoad, toolsList } from "./load.ts";
import { cleanestPhase, type PhaseResult } from "./phase.ts";
import { checkedRateCharge, redisBenchmark } from "./rate-charge.ts";
import { SECRET, seedRooms, startTarget, table } from "./server.ts";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "10000" },
    agents: { type: "string", default: "16" },
    target: { type: "string", default: "10000" },
  },
});
const calls = Number(values.calls);
const agents = Number(values.agents);
const wanted = Number(values.target);
/** Planned utilisation: size for this fraction of a core or shard, keeping headroom for bursts. */
const UTILISATION = 0.7;

// 1. roomd + Redis under the mixed workload (one roomd process).
const target = await startTarget("redis");
let phase: PhaseResult;
try {
  const url = target.server.url;
  const warm = await seedRooms(url, Math.max(1, agents / 4));
  await runLoad({ url, secret: SECRET, agents, calls: 2000, next: toolsList });
  await runLoad({ url, secret: SECRET, agents, calls: 2000, next: mixedWorkload(warm) });
  phase = await cleanestPhase(target, async () => ({
    secret: SECRET,
    agents,
    calls,
    next: mixedWorkload(await seedRooms(url, Math.max(1, agents / 4))),
  }));
} finally {
  await target.stop();
}
const redisCost = phase.redis;
if (!redisCost || phase.tripsPerCall === undefined) throw new Error("no Redis counters from the mixed phase");

// 2. redis-benchmark on a fresh shard.
const shard = await startRedisServer();
const rates: Record<string, number> = {};
try {
  const client = new RedisClient(shard.url);
  const trivial = String(await client.send("SCRIPT", ["LOAD", "return 1"]));
  // The rate-limit charge every request pays, at a fixed instant and a limit it never reaches.
  const charge = await checkedRateCharge(client, "bench");
  client.close();
  rates.SET = redisBenchmark(shard.port, ["-n", "200000", "-t", "set"]);
  rates.GET = redisBenchmark(shard.port, ["-n", "200000", "-t", "get"]);
  rates["EVALSHA (return 1)"] = redisBenchmark(shard.port, ["-n", "100000", "EVALSHA", trivial, "0"]);
  rates["EVALSHA CONSUME_RATE (roomd)"] = redisBenchmark(shard.port, ["-n", "100000", ...charge]);
} finally {
  await shard.stop();
}

// 3. The model.
const perCore = 1e6 / phase.cpuMsPer1000; // tool calls/s one fully used roomd core serves
const trips = phase.tripsPerCall;
const evalshaRate = rates["EVALSHA (return 1)"] as number;
const perTripUs = 1e6 / evalshaRate; // redis main-thread µs per round trip, protocol and dispatch
const luaUs = (redisCost.evalshaUsec ?? 0) * trips; // script execution per tool call, from commandstats
const modelUs = trips * perTripUs + luaUs;
const shardModel = 1e6 / modelUs;
const shardMeasured = 1e6 / redisCost.cpuUsPerCall; // main-thread CPU actually spent per call under load
const perShard = Math.min(shardModel, shardMeasured);
const coresPerShard = perShard / perCore;

console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? "?"}; load average before: ${loadavg()[0]?.toFixed(2)}`,
);
console.log(
  `mixed workload: agents=${agents} calls=${phase.calls} errors=${phase.errors} bun=${Bun.version}; ` +
    `other load during it: ${phase.otherCpuPercent.toFixed(0)}% of the machine\n`,
);
console.log(
  table(Object.entries(rates).map(([test, r]) => ({ "redis-benchmark": test, "requests/s": Math.round(r) }))),
);
console.log();
const rows: [string, string][] = [
  ["roomd CPU-ms per 1,000 tool calls (mixed, 1 process)", phase.cpuMsPer1000.toFixed(0)],
  ["→ tool calls/s per roomd core  (1e6 / CPU-ms per 1,000)", perCore.toFixed(0)],
  ["store round trips per tool call (incl. auth + rate limit)", trips.toFixed(2)],
  ["Lua µs per round trip (EVALSHA usec_per_call under load)", (redisCost.evalshaUsec ?? 0).toFixed(1)],
  ["Redis commands per tool call, incl. those inside scripts", redisCost.commandsPerCall.toFixed(1)],
  ["redis µs per round trip outside Lua (1e6 / trivial EVALSHA/s)", perTripUs.toFixed(1)],
  ["→ modelled redis µs per tool call (trips × per-trip + Lua)", modelUs.toFixed(1)],
  ["measured redis main-thread CPU µs per tool call under load", redisCost.cpuUsPerCall.toFixed(1)],
  ["→ tool calls/s per Redis shard, model (1e6 / modelled µs)", shardModel.toFixed(0)],
  ["→ tool calls/s per Redis shard, measured (1e6 / measured µs)", shardMeasured.toFixed(0)],
  ["→ tool calls/s per Redis shard, planning (the lower)", perShard.toFixed(0)],
  ["→ roomd cores one shard can feed (shard / core)", coresPerShard.toFixed(1)],
];
console.log(table(rows.map(([quantity, value]) => ({ quantity, value }))));
const cores = Math.ceil(wanted / (perCore * UTILISATION));
const shards = Math.ceil(wanted / (perShard * UTILISATION));
console.log(
  `\nsizing for ${wanted} tool calls/s at ${UTILISATION * 100}% utilisation: ` +
    `${cores} roomd cores (${wanted} / (${perCore.toFixed(0)} × ${UTILISATION})), ` +
    `${shards} Redis shard(s) (${wanted} / (${perShard.toFixed(0)} × ${UTILISATION}))`,
);
