/** The conformance suite on the shared real redis-server; the second instance is a second TCP client. */
import { openWith, redisE2e } from "../support/stores.ts";
import { runConformance } from "./conformance.ts";

const backing = redisE2e();

// Rooms are random per test, so nothing is flushed; the shared server stops when the process exits.
runConformance("redis", {
  driver: "redis",
  open: (now, options) => backing.open({ now, ...options }),
  openSecond: (now, options) => backing.open({ now, ...options }),
  // A loopback port nothing listens on, with a short timeout: every call must fail fast, never hang.
  openUnreachable: async (now) => openWith(await backing.unreachable!(), { now, timeoutMs: 1000 }),
  cleanup: async () => {},
  corruptTask: backing.corruptTask,
});
