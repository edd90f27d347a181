/** The conformance suite on the shared real redis-server; the second instance is a second TCP client. */
import type { Clock } from "../../src/protocol/time.ts";
import { createRedisStore, createTcpScriptClient } from "../../src/store/redis/index.ts";
import { sharedRedis } from "../support/redis-server.ts";
import { runConformance } from "./conformance.ts";

const TIMEOUT_MS = 5000;

async function open(now: Clock) {
  const { url } = await sharedRedis();
  const client = createTcpScriptClient(url, { timeoutMs: TIMEOUT_MS });
  return createRedisStore({ client, driver: "redis", now, timeoutMs: TIMEOUT_MS });
}

// Rooms are random per test, so nothing is flushed; the shared server stops when the process exits.
runConformance("redis", {
  driver: "redis",
  open,
  openSecond: open,
  cleanup: async () => {},
});
