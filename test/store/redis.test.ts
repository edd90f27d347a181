/** The conformance suite on the shared real redis-server; the second instance is a second TCP client. */
import type { Clock } from "../../src/protocol/time.ts";
import type { StoreLimits } from "../../src/store/access-types.ts";
import { createRedisStore, createTcpScriptClient } from "../../src/store/redis/index.ts";
import { freePort, sharedRedis } from "../support/redis-server.ts";
import { type OpenOptions, runConformance } from "./conformance.ts";

const TIMEOUT_MS = 5000;

function openAt(url: string, now: Clock, timeoutMs: number, limits?: StoreLimits) {
  const client = createTcpScriptClient(url, { timeoutMs });
  return createRedisStore({ client, driver: "redis", now, timeoutMs, limits });
}

const open = async (now: Clock, options?: OpenOptions) =>
  openAt((await sharedRedis()).url, now, TIMEOUT_MS, options?.limits);

// Rooms are random per test, so nothing is flushed; the shared server stops when the process exits.
runConformance("redis", {
  driver: "redis",
  open,
  openSecond: open,
  // A loopback port nothing listens on, with a short timeout: every call must fail fast, never hang.
  openUnreachable: async (now) => openAt(`redis://127.0.0.1:${await freePort()}`, now, 1000),
  cleanup: async () => {},
});
