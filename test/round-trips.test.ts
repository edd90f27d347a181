/**
 * Store round trips per tool on Redis, counted on a wrapped client through the real tool layer (the earlier
 * roomd server needed ~8 for a read and ~18 for update_task;
 * docs/benchmarks.md#store-round-trips-per-tool-call-redis). Counts, not timings, so this is stable.
 */
import { expect, test } from "bun:test";
import { measureRoundTrips } from "../bench/round-trips-measure.ts";
import { CATALOG } from "../src/mcp/catalog.ts";
import { createTcpScriptClient } from "../src/store/redis/index.ts";
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
