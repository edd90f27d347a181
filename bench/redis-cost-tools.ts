/**
 * `bun bench/redis-cost-tools.ts [--calls 400] [--agents 16] [--tasks 100]`
 * redis-cost.ts split by tool: the same rooms (`--tasks` seeded tasks each, bench/load.ts planWorkload), then each
 * slot of the mixed workload run alone (`--calls` calls, 16 concurrent agents, no rate charge), and the rate charge
 * alone. Prints redis-server main-thread CPU (INFO cpu) and commands (INFO commandstats) per call of each, and the
 * workload's weighted mean (each tool by its share of the 20 slots, plus one rate charge per call).
 */
import { parseArgs } from "node:util";
import { planWorkload } from "./load.ts";
import { startRedisDirect } from "./redis-direct.ts";

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

const { probe, call, charge, seedRooms, close } = await startRedisDirect();

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
  const rooms = await seedRooms(agents, tasks);
  const next = planWorkload(rooms, tasks);
  // Warm up the mix once, so logs, cursors and context exist as in redis-cost.ts.
  for (let n = 0; n < 200; n++) {
    const { params } = next(n % agents, n);
    await call(params?.name as string, params?.arguments as Record<string, unknown>);
  }
  let mean = 0;
  mean += 20 * (await measure("rate charge", 20, () => charge().then(() => {})));
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
  await close();
}
