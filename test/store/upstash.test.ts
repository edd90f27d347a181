/**
 * The conformance suite on the Upstash driver: @upstash/redis over REST (automatic deserialisation off) through
 * the local Upstash-compatible front (test/support/upstash-front.ts) over the shared real redis-server. The
 * second instance is a second REST client.
 */
import type { Clock } from "../../src/protocol/time.ts";
import type { StoreLimits } from "../../src/store/access-types.ts";
import { createRedisStore, createUpstashScriptClient } from "../../src/store/redis/index.ts";
import { freePort } from "../support/redis-server.ts";
import { sharedUpstashFront } from "../support/stores.ts";
import { type OpenOptions, runConformance } from "./conformance.ts";

const TIMEOUT_MS = 5000;

function openAt(url: string, token: string, now: Clock, timeoutMs: number, limits?: StoreLimits) {
  return createRedisStore({
    client: createUpstashScriptClient(url, token),
    driver: "upstash",
    now,
    timeoutMs,
    limits,
  });
}

const open = async (now: Clock, options?: OpenOptions) => {
  const { url, token } = await sharedUpstashFront();
  return openAt(url, token, now, TIMEOUT_MS, options?.limits);
};

runConformance("upstash", {
  driver: "upstash",
  open,
  openSecond: open,
  // A REST endpoint nothing listens on, with a short timeout: every call must fail fast, never hang.
  openUnreachable: async (now) => openAt(`http://127.0.0.1:${await freePort()}`, "token", now, 1000),
  // The front is shared with the e2e files of this process and ends with it; stopping it here would break them.
  cleanup: async () => {},
});
