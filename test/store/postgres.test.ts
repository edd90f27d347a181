/**
 * The conformance suite on a real PostgreSQL (a database of its own on the shared test server); the second
 * instance is a second connection pool, as a second roomd process would have; the unreachable one a loopback port
 * nothing listens on.
 */
import { postgresE2e } from "../support/stores.ts";
import { backingFactory, runConformance } from "./conformance.ts";

runConformance("postgres", backingFactory("postgres", postgresE2e()));
