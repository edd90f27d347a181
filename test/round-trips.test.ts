/**
 * Store round trips per tool on Redis, counted on a wrapped client through the real tool layer (the earlier
 * roomd server needed ~8 for a read and ~18 for update_task;
 * docs/benchmarks.md#store-round-trips-per-tool-call-redis). Counts, not timings, so this is stable.
 */
import { expect, test } from "bun:test";
import { countingClient, measureRoundTrips } from "../bench/round-trips-measure.ts";
import { createLiveRooms } from "../src/live/hub.ts";
import { callTool } from "../src/mcp/call-path.ts";
import { CATALOG } from "../src/mcp/catalog.ts";
import type { ExampleRoom } from "../src/mcp/tool.ts";
import type { Principal } from "../src/protocol/principal.ts";
import { createRedisStore, createTcpScriptClient } from "../src/store/redis/index.ts";
import { sharedRedis } from "./support/redis-server.ts";

test("every tool costs the Redis round trips it declares (1 unless it says why) once scripts are cached", async () => {
  const { url } = await sharedRedis();
  const { cold, warm } = await measureRoundTrips(createTcpScriptClient(url, { timeoutMs: 2000 }), "redis");
  expect([...warm.keys()]).toEqual(CATALOG.tools.map((t) => t.name));
  for (const tool of CATALOG.tools) {
    expect(`${tool.name}: ${warm.get(tool.name)}`).toBe(`${tool.name}: ${tool.roundTrips}`);
  }
  // A cold script cache adds at most one EVAL fallback per script call (EVALSHA → NOSCRIPT → EVAL): one for a
  // tool of one call; show_room_board's seven reads run scripts no earlier tool ran (the approvals and handoffs
  // lists), each falling back once.
  for (const tool of CATALOG.tools)
    expect(cold.get(tool.name), tool.name).toBeLessThanOrEqual(
      tool.roundTrips + Math.max(1, tool.roundTrips),
    );
});

/**
 * A tool that names no agent, called by a known agent (a key bound to it, or the X-Roomd-Agent header), is checked
 * for a suspension by the store in the operation's own step (RoomScope.caller): no read of its own, so it costs
 * what the same call with an unbound key costs — and a suspended agent's call is refused in that same count.
 */
test("a tool naming no agent costs the same round trips with a bound key or the agent header as with an unbound key", async () => {
  const { url } = await sharedRedis();
  const client = countingClient(createTcpScriptClient(url, { timeoutMs: 2000 }));
  const store = createRedisStore({ client, driver: "redis", limits: { roomsPerTeam: 1_000_000 } });
  const live = createLiveRooms(store);
  const unbound: Principal = { teamId: `rt-${crypto.randomUUID().slice(0, 8)}`, kind: "static" };
  const bound: Principal = { ...unbound, boundAgentId: "alice" };
  const header = { agentId: "alice" };
  const call = async (principal: Principal, name: string, args: object, roomId: string, agent?: object) => {
    const before = client.count;
    const deps = { store, live, principal, requestId: "rt", context: { roomId, ...agent } };
    const { result } = await callTool(CATALOG, name, args, deps);
    return { result, trips: client.count - before };
  };
  const unnamed = CATALOG.tools.filter(
    (t) => t.room && t.acting.length === 0 && t.peopleOnly === undefined && t.context !== "context",
  );
  expect(unnamed.map((t) => t.name)).toContain("read_plan");
  expect(unnamed.map((t) => t.name)).toContain("get_presence");
  try {
    for (const tool of unnamed) {
      const roomId = `rt-${crypto.randomUUID().slice(0, 8)}`;
      await store.createRoom({ roomId, teamId: unbound.teamId });
      const room: ExampleRoom = {
        call: async (name, args) => {
          const { result } = await call(unbound, name, { roomId, ...args }, roomId);
          if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
          return result.structuredContent ?? JSON.parse((result.content[0] as { text: string }).text);
        },
      };
      const args = { roomId, ...(await tool.example(room)) };
      await call(unbound, tool.name, args, roomId); // every script it runs is cached from here on
      const counts: Record<string, number> = {};
      for (const [how, principal, agent] of [
        ["unbound", unbound, undefined],
        ["bound", bound, undefined],
        ["header", unbound, header],
      ] as const) {
        const { result, trips } = await call(principal, tool.name, args, roomId, agent);
        expect(`${tool.name} ${how}: ${result.isError === true}`).toBe(`${tool.name} ${how}: false`);
        counts[how] = trips;
      }
      expect({ tool: tool.name, ...counts } as Record<string, unknown>).toEqual({
        tool: tool.name,
        unbound: tool.roundTrips,
        bound: tool.roundTrips,
        header: tool.roundTrips,
      });
    }
    // Suspended, the bound key's read is refused in its one round trip.
    const roomId = `rt-${crypto.randomUUID().slice(0, 8)}`;
    await store.createRoom({ roomId, teamId: unbound.teamId });
    await store.suspendAgent({ roomId, teamId: unbound.teamId }, { agentId: "alice", by: "p", reason: "r" });
    for (const [principal, agent] of [
      [bound, undefined],
      [unbound, header],
    ] as const) {
      const { result, trips } = await call(principal, "read_plan", { roomId }, roomId, agent);
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain("AGENT_SUSPENDED");
      expect(trips).toBe(1);
    }
  } finally {
    await store.close();
  }
});
