/**
 * `bun bench/round-trips.ts` — store round trips per tool call on Redis (TCP), counted on a wrapped client
 * against a real redis-server: steady state (scripts cached) and the first call on a cold script cache.
 */
import { createTcpScriptClient } from "../src/store/redis/index.ts";
import { startRedisServer } from "../test/support/redis-server.ts";
import { measureRoundTrips } from "./round-trips-measure.ts";
import { table } from "./server.ts";

const average = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0) / m.size;

const redis = await startRedisServer();
try {
  const { cold, warm } = await measureRoundTrips(
    createTcpScriptClient(redis.url, { timeoutMs: 2000 }),
    "redis",
  );
  const rows = [...warm].map(([tool, trips]) => ({
    tool,
    "round trips": trips,
    "first call, cold script cache": cold.get(tool) ?? 0,
  }));
  console.log(table(rows));
  console.log(
    `\naverage over ${warm.size} tools: ${average(warm).toFixed(2)} round trips per call (cold cache: ${average(cold).toFixed(2)})`,
  );
} finally {
  await redis.stop();
}
