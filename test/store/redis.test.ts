/**
 * The conformance suite on the shared real redis-server; the second instance is a second TCP client, the unreachable
 * one a loopback port nothing listens on. Rooms are random per test, so nothing is flushed.
 */
import { redisE2e } from "../support/stores.ts";
import { backingFactory, runConformance } from "./conformance.ts";

runConformance("redis", backingFactory("redis", redisE2e()));
