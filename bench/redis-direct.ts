/**
 * The tool layer over a private redis-server with no HTTP in the way, as bench/redis-cost.ts and
 * bench/redis-cost-tools.ts drive it: the real call path (call-path.ts) on a Redis store, a probe of the server's
 * counters, and rooms seeded with fixed-size plans.
 */
import { createLiveRooms } from "../src/live/hub.ts";
import { callTool } from "../src/mcp/call-path.ts";
import { CATALOG } from "../src/mcp/catalog.ts";
import type { Principal } from "../src/protocol/principal.ts";
import { createRedisStore, createTcpScriptClient } from "../src/store/redis/index.ts";
import { startRedisServer } from "../test/support/redis-server.ts";
import { redisProbe } from "./probes.ts";

export async function startRedisDirect() {
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

  /** One tool call through the call path; a tool error throws. */
  async function call(name: string, args: Record<string, unknown>): Promise<void> {
    const { result } = await callTool(CATALOG, name, args, { store, live, principal, requestId: "bench" });
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
  }

  return {
    probe,
    call,
    /** The rate charge the gate makes before each tool call. */
    charge: () => store.consumeRate(principal.teamId, rate),
    /** `cost-0`… rooms for `agents` agents (four to a room), each with a variable and `tasks` tasks, seeded by `via`. */
    async seedRooms(agents: number, tasks: number, via = call): Promise<string[]> {
      const rooms = Array.from({ length: Math.max(1, agents / 4) }, (_, i) => `cost-${i}`);
      for (const roomId of rooms) {
        await via("set_shared_var", { roomId, key: "port", value: "8080", agentId: "seed" });
        for (let t = 1; t <= tasks; t++) await via("add_task", { roomId, title: `seed task ${t}` });
      }
      return rooms;
    },
    async close(): Promise<void> {
      probe.close();
      live.close();
      await store.close();
      await server.stop();
    },
  };
}
