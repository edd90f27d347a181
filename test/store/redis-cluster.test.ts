/**
 * The conformance suite on a real Redis Cluster (3 primaries + 3 replicas on loopback) through the cluster
 * client; the second instance is a second cluster client with its own connections.
 */
import type { Clock } from "../../src/protocol/time.ts";
import type { StoreLimits } from "../../src/store/access-types.ts";
import { createClusterScriptClient, createRedisStore } from "../../src/store/redis/index.ts";
import { sharedRedisCluster } from "../support/redis-cluster.ts";
import { freePort } from "../support/redis-server.ts";
import { type OpenOptions, runConformance } from "./conformance.ts";

const TIMEOUT_MS = 5000;

function openAt(url: string, now: Clock, timeoutMs: number, limits?: StoreLimits) {
  const client = createClusterScriptClient(url, { timeoutMs });
  return createRedisStore({ client, driver: "redis", now, timeoutMs, limits });
}

const open = async (now: Clock, options?: OpenOptions) =>
  openAt((await sharedRedisCluster()).url, now, TIMEOUT_MS, options?.limits);

// Rooms are random per test (so they spread over every primary); the shared cluster stops when the process exits.
runConformance("redis cluster", {
  driver: "redis",
  open,
  openSecond: open,
  // Seeds nothing listens on, with a short timeout: every call must fail fast, never hang.
  openUnreachable: async (now) =>
    openAt(`redis-cluster://127.0.0.1:${await freePort()},127.0.0.1:${await freePort()}`, now, 1000),
  cleanup: async () => {},
});
