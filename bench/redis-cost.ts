/**
 * `bun bench/redis-cost.ts [--calls 6000] [--agents 16] [--tasks 100] [--runs 1]`
 * What one tool call costs Redis, without HTTP or roomd's CPU in the way: the mixed workload over fixed-size plans
 * (bench/load.ts planWorkload, rooms seeded with `--tasks` tasks) driven through the real tool layer (call-path.ts)
 * on a private redis-server, each call preceded by its rate charge as the gate makes it. Prints the redis-server main
 * thread's CPU per call (INFO cpu) and the commands it ran per call, scripts' own commands included (INFO
 * commandstats); `--runs` repeats the measured part on the same rooms.
 */
import { parseArgs } from "node:util";
import { planWorkload } from "./load.ts";
import { startRedisDirect } from "./redis-direct.ts";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "6000" },
    agents: { type: "string", default: "16" },
    tasks: { type: "string", default: "100" },
    runs: { type: "string", default: "1" },
  },
});
const calls = Number(values.calls);
const agents = Number(values.agents);
const tasks = Number(values.tasks);

const { probe, call: callTool, charge, seedRooms, close } = await startRedisDirect();

/** A tool call preceded by its rate charge, as the gate makes it. */
async function call(name: string, args: Record<string, unknown>): Promise<void> {
  await charge();
  await callTool(name, args);
}

try {
  const rooms = await seedRooms(agents, tasks, call);
  const next = planWorkload(rooms, tasks);
  const drive = async (count: number) => {
    let issued = 0;
    await Promise.all(
      Array.from({ length: agents }, async (_, agent) => {
        for (let n = 0; issued < count; n++) {
          issued++;
          const { params } = next(agent, n);
          await call(params?.name as string, params?.arguments as Record<string, unknown>);
        }
      }),
    );
  };
  await drive(2000); // warm-up: script cache, JIT
  for (let run = 1; run <= Number(values.runs); run++) {
    const before = await probe.snapshot();
    await drive(calls);
    const after = await probe.snapshot();
    const cpu = ((after.mainThreadCpuSeconds - before.mainThreadCpuSeconds) * 1e6) / calls;
    const commands = (after.allCommands - before.allCommands) / calls;
    const trips = (after.clientCommands - before.clientCommands) / calls;
    console.log(
      `run ${run}: ${calls} calls, tasks/room=${tasks}: redis main-thread CPU ${cpu.toFixed(1)} µs/call, ` +
        `${commands.toFixed(1)} commands/call incl. inside scripts, ${trips.toFixed(2)} round trips/call`,
    );
  }
} finally {
  await close();
}
