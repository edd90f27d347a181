/**
 * The servers every test file shares — redis-server, the Redis Cluster, PostgreSQL — started once for a whole run.
 *
 * `bun run test` (scripts/test-tiers.ts) starts them before the tiers and hands them to every test process in
 * ROOMD_TEST_SHARED: the fast tier runs each file in a fresh global (`--parallel`), where a module-level "shared"
 * server would otherwise be started and stopped again by every file that uses a store (an initdb and a 3+3 cluster
 * per file, most of the tier's CPU). A file run alone (`bun test path/to/file.test.ts`) has no ROOMD_TEST_SHARED
 * and starts its own, once per test process, as before.
 *
 * An attached server serves reads and writes only: stopping, restarting, pausing, killing or resharding it is
 * refused, since every file of the run uses it (outage and failover tests start servers of their own).
 */

export const SHARED_ENV = "ROOMD_TEST_SHARED";

export interface SharedServers {
  redis: { url: string; port: number };
  postgres: { url: string; port: number };
  cluster: { url: string; ports: number[]; nodeTimeoutMs: number };
}

let parsed: SharedServers | null | undefined;

/** The run's shared servers, when this test process was given them. */
export function attachedServers(): SharedServers | undefined {
  if (parsed === undefined) {
    const raw = process.env[SHARED_ENV];
    parsed = raw ? (JSON.parse(raw) as SharedServers) : null;
  }
  return parsed ?? undefined;
}

/** What an attached server answers to a call that would disturb the other files. */
export function refusedOnShared(server: string, what: string): () => never {
  return () => {
    throw new Error(
      `the run's shared ${server} cannot be ${what}: every test file uses it; start one of your own in beforeAll`,
    );
  };
}
