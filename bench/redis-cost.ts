/**
 * `bun bench/redis-cost.ts [--calls 6000] [--agents 16] [--tasks 100] [--runs 1]`
 * What one tool call costs Redis, without HTTP or roomd's CPU in the way: the mixed workload over fixed-size plans
 * (bench/load.ts planWorkload, rooms seeded with `--tasks` tasks) driven through the real tool layer (call-path.ts)
 * on a private redis-server, each call preceded by its rate charge as the gate makes it. Prints the redis-server main
 * thread's CPU per call (INFO cpu) and the commands it ran per call, scripts' own commands included (INFO
 * commandstats); `--runs` repeats the measured part on the same rooms.
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
    calls: { type: "string", default: "6000" },
    agents: { type: "string", default: "16" },
    tasks: { type: "string", default: "100" },
    runs: { type: "string", default: "1" },
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
  await store.consumeRate(principal.teamId, rate);
  const { result } = await callTool(CATALOG, name, args, { store, live, principal, requestId: "bench" });
  if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
}

try {
  const rooms = Array.from({ length: Math.max(1, agents / 4) }, (_, i) => `cost-${i}`);
  for (const roomId of rooms) {
    await call("set_shared_var", { roomId, key: "port", value: "8080", agentId: "seed" });
    for (let t = 1; t <= tasks; t++) await call("add_task", { roomId, title: `seed task ${t}` });
  }
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
  probe.close();
  live.close();
  await store.close();
  await server.stop();
}
