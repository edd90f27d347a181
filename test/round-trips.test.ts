/**
 * Store round trips per tool on Redis, counted on a wrapped client through the real tool layer (defect 7: the
 * earlier server needed ~8 for a read and ~18 for update_task). Counts, not timings, so this is stable.
 */
import { expect, test } from "bun:test";
import { measureRoundTrips } from "../bench/round-trips-measure.ts";
import { createTcpScriptClient } from "../src/store/redis/index.ts";
import { sharedRedis } from "./support/redis-server.ts";

test("every one of the 25 tools costs exactly one Redis round trip once scripts are cached", async () => {
  const { url } = await sharedRedis();
  const { cold, warm } = await measureRoundTrips(createTcpScriptClient(url, { timeoutMs: 2000 }), "redis");
  expect(warm.size).toBe(25);
  for (const [tool, trips] of warm) expect(`${tool}: ${trips}`).toBe(`${tool}: 1`);
  // A cold script cache adds at most the one EVAL fallback.
  for (const [tool, trips] of cold) expect(trips, tool).toBeLessThanOrEqual(2);
});
