/**
 * Counts store round trips per tool: every tool of the catalog is called through the real call path on a Redis
 * store whose script client is wrapped to count calls. One evalsha (or eval) is one round trip.
 */

import { createLiveRooms } from "../src/live/hub.ts";
import { callTool } from "../src/mcp/call-path.ts";
import { CATALOG } from "../src/mcp/catalog.ts";
import { contextFields, type ExampleRoom } from "../src/mcp/tool.ts";
import type { Principal } from "../src/protocol/principal.ts";
import type { ScriptClient } from "../src/store/redis/index.ts";
import { createRedisStore } from "../src/store/redis/index.ts";

export interface CountingClient extends ScriptClient {
  count: number;
}

export function countingClient(inner: ScriptClient): CountingClient {
  const wrapped: CountingClient = {
    count: 0,
    evalsha: (sha, keys, args) => {
      wrapped.count++;
      return inner.evalsha(sha, keys, args);
    },
    eval: (script, keys, args) => {
      wrapped.count++;
      return inner.eval(script, keys, args);
    },
    ping: () => inner.ping(),
    close: () => inner.close?.(),
  };
  return wrapped;
}

export interface RoundTrips {
  /** First call of each tool on a fresh script cache (EVALSHA → NOSCRIPT → EVAL costs 2). */
  cold: Map<string, number>;
  /** Steady state: the same calls once every script is cached. */
  warm: Map<string, number>;
}

/**
 * Round trips of each tool's own work, in catalog order: each tool's example runs in a room the team already owns
 * (so no claim handshake), and only the tool's own call is counted. Every call must succeed.
 */
export async function measureRoundTrips(
  inner: ScriptClient,
  driver: "redis" | "upstash",
): Promise<RoundTrips> {
  const client = countingClient(inner);
  // Two passes make two rooms per tool for one team: lift the room limit so the catalog can grow past 50 tools.
  const store = createRedisStore({ client, driver, limits: { roomsPerTeam: 1_000_000 } });
  const live = createLiveRooms(store);
  const principal: Principal = { teamId: "bench", kind: "static" };
  // Tools for people's acts run as a person (an operator, whose role costs no read, like an agent's key).
  const person: Principal = { teamId: "bench", kind: "operator", humanId: "bench" };
  const call = async (
    name: string,
    args: Record<string, unknown>,
    context?: { roomId: string; agentId: string },
  ) => {
    const caller = CATALOG.get(name)?.peopleOnly !== undefined ? person : principal;
    const deps = { store, live, principal: caller, requestId: "bench", ...(context ? { context } : {}) };
    const { result } = await callTool(CATALOG, name, args, deps);
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
    // A result whose text is written for people (show_room_board's) carries its value as structuredContent.
    return result.structuredContent ?? JSON.parse((result.content[0] as { text: string }).text);
  };
  const pass = async () => {
    const counts = new Map<string, number>();
    for (const tool of CATALOG.tools) {
      const roomId = `rt-${crypto.randomUUID().slice(0, 8)}`;
      await store.createRoom({ roomId, teamId: principal.teamId });
      const room: ExampleRoom = { call: (name, args) => call(name, { roomId, ...args }) };
      const args = await tool.example(room);
      const before = client.count;
      // A tool taking its room and agent from the request's context gets them there (as the headers would).
      if (tool.context === "context" && contextFields(tool).length === 2)
        await call(tool.name, args, { roomId, agentId: "alice" });
      else await call(tool.name, tool.room ? { roomId, ...args } : args);
      counts.set(tool.name, client.count - before);
    }
    return counts;
  };
  const cold = await pass();
  const warm = await pass();
  await store.close();
  return { cold, warm };
}
