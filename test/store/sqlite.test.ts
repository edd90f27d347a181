/** The conformance suite on a SQLite file in a fresh temp dir; the second instance is a second Database handle. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStore } from "../../src/store/sqlite/index.ts";
import { runConformance } from "./conformance.ts";

const dir = mkdtempSync(join(tmpdir(), "roomd-conformance-"));
const path = join(dir, "roomd.sqlite");

runConformance("sqlite", {
  driver: "sqlite",
  open: async (now) => createSqliteStore({ path, now }),
  openSecond: async (now) => createSqliteStore({ path, now }),
  cleanup: async () => rmSync(dir, { recursive: true, force: true }),
});
