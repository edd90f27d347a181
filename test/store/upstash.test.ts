/**
 * The conformance suite on the Upstash driver: @upstash/redis over REST (automatic deserialisation off) through
 * the local Upstash-compatible front (test/support/upstash-front.ts) over the shared real redis-server. The
 * second instance is a second REST client, the unreachable one a REST endpoint nothing listens on.
 */
import { upstashE2e } from "../support/stores.ts";
import { backingFactory, runConformance } from "./conformance.ts";

runConformance("upstash", backingFactory("upstash", upstashE2e()));
