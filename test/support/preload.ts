/**
 * Loaded before every test file (bunfig.toml `preload`). bunfig's `[test] timeout` covers tests but not hooks, which
 * keep Bun's 5 s: a `beforeAll` that starts a real roomd process (spawnServer allows it 15 s to become healthy) or a
 * private PostgreSQL could time out on a loaded machine. This gives hooks the same room as tests; a file that sets
 * its own default still wins.
 */
import { setDefaultTimeout } from "bun:test";

setDefaultTimeout(60_000);
