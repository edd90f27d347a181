/**
 * The conformance suite on the Upstash driver: @upstash/redis over REST (automatic deserialisation off) through
 * the local Upstash-compatible front (test/support/upstash-front.ts) over the shared real redis-server. The
 * second instance is a second REST client.
 */
import { openWith, upstashE2e } from "../support/stores.ts";
import { runConformance } from "./conformance.ts";

const backing = upstashE2e();

runConformance("upstash", {
  driver: "upstash",
  open: (now, options) => backing.open({ now, ...options }),
  openSecond: (now, options) => backing.open({ now, ...options }),
  // A REST endpoint nothing listens on, with a short timeout: every call must fail fast, never hang.
  openUnreachable: async (now) => openWith(await backing.unreachable!(), { now, timeoutMs: 1000 }),
  // The front is shared with the e2e files of this process and ends with it; stopping it here would break them.
  cleanup: async () => {},
  corruptTask: backing.corruptTask,
});
