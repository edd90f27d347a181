/**
 * Process tier (slow, ~1 min): the official MCP conformance suite, pinned in package.json
 * (@modelcontextprotocol/conformance), against a real roomd process with CONFORMANCE_FIXTURES=1, at both wire
 * eras it defines requirements for. Every scored scenario must pass (the suite's exit code and each scenario's
 * line); the scenarios it runs without scoring (extensions, pending) are printed, not hidden. The suite sends no
 * credentials, so it talks to roomd through a front that adds a key (test/support/bearer-front.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BearerFront, startBearerFront } from "../support/bearer-front.ts";
import { runToEnd } from "../support/run.ts";
import { type SpawnedServer, spawnServer } from "../support/server.ts";

const KEY = "secret-conformance-0123456789";
const SUITE = join(
  import.meta.dir,
  "..",
  "..",
  "node_modules",
  "@modelcontextprotocol",
  "conformance",
  "dist",
  "index.js",
);

let server: SpawnedServer;
let front: BearerFront;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "roomd-conformance-"));
  server = await spawnServer({
    STORE: "sqlite",
    SQLITE_PATH: join(dir, "roomd.sqlite"),
    API_KEYS: `team-conf:${KEY}`,
    CONFORMANCE_FIXTURES: "1",
  });
  front = startBearerFront(server.url, KEY);
});

afterAll(async () => {
  await front?.stop();
  await server?.stop();
});

/** The scenario lines of a run: name, passed and failed checks. */
function scenarios(output: string): { name: string; ok: boolean; line: string }[] {
  return [...output.matchAll(/^([✓✗]) (\S+): (\d+) passed, (\d+) failed$/gm)].map((m) => ({
    name: m[2] as string,
    ok: m[1] === "✓",
    line: m[0],
  }));
}

/** The scenarios the run reports as not scored, with why. */
function unscored(output: string): Map<string, string> {
  const block = output.slice(output.indexOf("Not scored"));
  return new Map([...block.matchAll(/^ {2}[✓✗] (\S+) \(([^)]+)\)$/gm)].map((m) => [m[1] as string, m[0]]));
}

describe("the official conformance suite", () => {
  for (const revision of ["2025-11-25", "2026-07-28"]) {
    test(`--requirements ${revision}: every scored scenario passes`, async () => {
      const run = await runToEnd(
        [
          "bun",
          SUITE,
          "server",
          "--url",
          `${front.url}/mcp?profile=conformance`,
          "--requirements",
          revision,
          "-o",
          mkdtempSync(join(tmpdir(), "roomd-conformance-results-")),
        ],
        { killAfterMs: 240_000 },
      );
      const output = run.stdout + run.stderr;
      const ran = scenarios(output);
      const notScored = unscored(output);
      const failedScored = ran.filter((s) => !s.ok && !notScored.has(s.name)).map((s) => s.line);
      // Reported, not hidden: what the suite runs without scoring, and how it went.
      console.log(
        `conformance ${revision}: ${ran.length} scenarios; not scored:\n${[...notScored.values()].join("\n")}`,
      );
      console.log(output.match(/^Total: .*$/m)?.[0] ?? "(no total line)");
      expect(failedScored).toEqual([]);
      expect(ran.filter((s) => !notScored.has(s.name)).length).toBeGreaterThan(25);
      expect(run.code).toBe(0);
    }, 300_000);
  }
});
