/**
 * The conformance suite on a real Redis Cluster (3 primaries + 3 replicas on loopback) through the cluster
 * client, wired by openStore like every other store; the second instance is a second cluster client with its own
 * connections.
 */
import { openWith, redisClusterE2e } from "../support/stores.ts";
import { runConformance } from "./conformance.ts";

const backing = redisClusterE2e();

// Rooms are random per test (so they spread over every primary); the shared cluster stops when the process exits.
runConformance("redis cluster", {
  driver: "redis",
  open: (now, options) => backing.open({ now, ...options }),
  openSecond: (now, options) => backing.open({ now, ...options }),
  // A seed nothing listens on, with a short timeout: every call must fail fast, never hang.
  openUnreachable: async (now) => openWith(await backing.unreachable!(), { now, timeoutMs: 1000 }),
  cleanup: async () => {},
  corruptTask: backing.corruptTask,
});
