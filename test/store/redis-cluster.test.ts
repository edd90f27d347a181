/**
 * The conformance suite on a real Redis Cluster (3 primaries + 3 replicas on loopback) through the cluster
 * client, wired by openStore like every other store; the second instance is a second cluster client with its own
 * connections, the unreachable one a seed nothing listens on. Rooms are random per test, so they spread over every
 * primary.
 */
import { redisClusterE2e } from "../support/stores.ts";
import { backingFactory, runConformance } from "./conformance.ts";

runConformance("redis cluster", backingFactory("redis", redisClusterE2e()));
