/**
 * `bun bench/round-trips.ts` — store round trips per tool call on Redis (TCP), counted on a wrapped client
 * against a real redis-server, plus the average across the 25 tools.
 */
import { createTcpScriptClient } from "../src/store/redis/index.ts";
import { startRedisServer } from "../test/support/redis-server.ts";
import { measureRoundTrips } from "./round-trips-measure.ts";
import { table } from "./server.ts";

const redis = await startRedisServer();
try {
  const counts = await measureRoundTrips(createTcpScriptClient(redis.url, { timeoutMs: 2000 }), "redis");
  const rows = [...counts].map(([tool, trips]) => ({ tool, "round trips": trips }));
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  console.log(table(rows));
  console.log(
    `\naverage over ${counts.size} tools: ${(total / counts.size).toFixed(2)} round trips per call`,
  );
} finally {
  await redis.stop();
}
