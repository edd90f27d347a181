/**
 * Loaded before the test files (bunfig.toml `preload`). Two things every file relies on:
 *
 * - A 60 s default for tests and hooks when one file is run alone (`bun test path/to/file.test.ts`): Bun applies
 *   `setDefaultTimeout` to the file being loaded, which from a preload is only the first file of a run, and it
 *   does not apply bunfig's `[test] timeout`. A run of many files gets its default from `--timeout`, which the
 *   `test` script of package.json passes (see test/support/processes.ts).
 * - The servers shared by every file of the run (redis-server, the Redis Cluster, PostgreSQL) stop after the last
 *   file, by pid, whatever happened to their watchdog shells.
 */
import { afterAll, setDefaultTimeout } from "bun:test";
import { stopSharedServers } from "./processes.ts";

setDefaultTimeout(60_000);
afterAll(stopSharedServers);
