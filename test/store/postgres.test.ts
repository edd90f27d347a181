/**
 * The conformance suite on a real PostgreSQL (a database of its own on the shared test server); the second
 * instance is a second connection pool, as a second roomd process would have.
 */
import { openWith, postgresE2e } from "../support/stores.ts";
import { runConformance } from "./conformance.ts";

const backing = postgresE2e();

runConformance("postgres", {
  driver: "postgres",
  open: (now, options) => backing.open({ now, ...options }),
  openSecond: (now, options) => backing.open({ now, ...options }),
  // A loopback port nothing listens on, with a short timeout: every call must fail fast, never hang.
  openUnreachable: async (now) => openWith(await backing.unreachable!(), { now, timeoutMs: 1000 }),
  cleanup: async () => {},
  corruptTask: backing.corruptTask,
});
