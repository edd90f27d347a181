/**
 * `bun bench/redis-cost-tools.ts [--calls 400] [--agents 16] [--tasks 100]`
 * redis-cost.ts split by tool: the same rooms (`--tasks` seeded tasks each, bench/load.ts planWorkload), then each
 * slot of the mixed workload run alone (`--calls` calls, 16 concurrent agents, no rate charge), and the rate charge
 * alone. Prints redis-server main-thread CPU (INFO cpu) and commands (INFO commandstats) per call of each, and the
 * workload's weighted mean (each tool by its share of the 20 slots, plus one rate charge per call).
 */
import { parseArgs } from "node:util";
import { createLiveRooms } from "../src/live/hub.ts";
import { callTool } from "../src/mcp/call-path.ts";
import { CATALOG } from "../src/mcp/catalog.ts";
import type { Principal } from "../src/protocol/principal.ts";
import { createRedisStore, createTcpScriptClient } from "../src/store/redis/index.ts";
import { startRedisServer } from "../test/support/redis-server.ts";
import { planWorkload } from "./load.ts";
import { redisProbe } from "./probes.ts";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "400" },
    agents: { type: "string", default: "16" },
    tasks: { type: "string", default: "100" },
  },
});
const calls = Number(values.calls);
const agents = Number(values.agents);
const tasks = Number(values.tasks);

const server = await startRedisServer();
const probe = await redisProbe(server.url);
const store = createRedisStore({
  client: createTcpScriptClient(server.url, { timeoutMs: 5000 }),
  driver: "redis",
  now: Date.now,
  timeoutMs: 5000,
});
const live = createLiveRooms(store);
const principal: Principal = { teamId: "bench", kind: "static" };
const rate = { bucket: "tools" as const, limit: 1_000_000, windowMs: 60_000 };

async function call(name: string, args: Record<string, unknown>): Promise<void> {
  const { result } = await callTool(CATALOG, name, args, { store, live, principal, requestId: "bench" });
  if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
}

async function measure(label: string, slots: number, run: (agent: number, n: number) => Promise<void>) {
  let issued = 0;
  const drive = (count: number) =>
    Promise.all(
      Array.from({ length: agents }, async (_, agent) => {
        for (let n = 0; issued < count; n++) {
          issued++;
          await run(agent, n);
        }
      }),
    );
  await drive(50);
  issued = 0;
  const before = await probe.snapshot();
  await drive(calls);
  const after = await probe.snapshot();
  const cpu = ((after.mainThreadCpuSeconds - before.mainThreadCpuSeconds) * 1e6) / calls;
  const commands = (after.allCommands - before.allCommands) / calls;
  console.log(
    `${label.padEnd(22)} ×${String(slots).padStart(2)}  ${cpu.toFixed(1).padStart(6)} µs  ${commands.toFixed(1)} cmds`,
  );
  return cpu;
}

try {
  const rooms = Array.from({ length: Math.max(1, agents / 4) }, (_, i) => `cost-${i}`);
  for (const roomId of rooms) {
    await call("set_shared_var", { roomId, key: "port", value: "8080", agentId: "seed" });
    for (let t = 1; t <= tasks; t++) await call("add_task", { roomId, title: `seed task ${t}` });
  }
  const next = planWorkload(rooms, tasks);
  // Warm up the mix once, so logs, cursors and context exist as in redis-cost.ts.
  for (let n = 0; n < 200; n++) {
    const { params } = next(n % agents, n);
    await call(params?.name as string, params?.arguments as Record<string, unknown>);
  }
  let mean = 0;
  mean +=
    20 * (await measure("rate charge", 20, () => store.consumeRate(principal.teamId, rate).then(() => {})));
  const seen = new Map<string, number[]>();
  for (let slot = 0; slot < 20; slot++) {
    const name = next(0, slot).params?.name as string;
    seen.set(name, [...(seen.get(name) ?? []), slot]);
  }
  for (const [name, slots] of seen) {
    const cpu = await measure(name, slots.length, async (agent, n) => {
      const slot = slots[n % slots.length] as number;
      const { params } = next(agent, slot + 20 * n);
      await call(params?.name as string, params?.arguments as Record<string, unknown>);
    });
    mean += cpu * slots.length;
  }
  console.log(`weighted mean per mixed call (incl. rate charge): ${(mean / 20).toFixed(1)} µs`);
} finally {
  probe.close();
  live.close();
  await store.close();
  await server.stop();
}
