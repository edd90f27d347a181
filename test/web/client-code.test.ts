/**
 * The browser code stays browser code (docs/web.md): modules under src/web/client/ import only each other and the
 * pure record modules of src/protocol/ (shapes and constants, no server code), and never write HTML from strings.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../../src");
const CLIENT = join(SRC, "web", "client");
/** The protocol modules the pages may share with the server: record shapes and constants only. */
// protocol/roles.ts: the pages offer only what the person's role allows, by the rule the server applies.
const SHARED = [
  "protocol/records.ts",
  "protocol/people.ts",
  "protocol/claims.ts",
  "protocol/roles.ts",
  // The room board's snapshot shape (the board inside chat clients draws it).
  "protocol/board.ts",
  // The timeline's one formatter, shared with roomctl watch: pure functions over event records.
  "protocol/timeline.ts",
  "protocol/timeline-parts.ts",
  "protocol/timeline-sentences.ts",
  "protocol/timeline-work.ts",
];

const files = readdirSync(CLIENT).filter((f) => f.endsWith(".ts"));

describe("the browser code", () => {
  test("imports only client modules and the shared protocol records", () => {
    const problems: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(CLIENT, file), "utf8");
      for (const [, target] of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+["']([^"']+)["']/g)) {
        if (!target?.startsWith(".")) {
          problems.push(`${file} → ${target} (no packages in the browser bundle)`);
          continue;
        }
        const module = relative(SRC, resolve(dirname(join(CLIENT, file)), target));
        if (!module.startsWith("web/client/") && !SHARED.includes(module))
          problems.push(`${file} → ${module}`);
      }
    }
    expect(files.length).toBeGreaterThan(4);
    expect(problems).toEqual([]);
  });

  test("the timeline's formatter stays pure: its modules import only each other", () => {
    const timeline = SHARED.filter((m) => m.startsWith("protocol/timeline"));
    for (const module of timeline) {
      const text = readFileSync(join(SRC, module), "utf8");
      for (const [, target] of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+["']([^"']+)["']/g)) {
        const imported = relative(SRC, resolve(dirname(join(SRC, module)), target as string));
        expect(`${module} → ${imported}`).toBe(
          `${module} → ${timeline.includes(imported) ? imported : "a timeline module"}`,
        );
      }
    }
  });

  test("never parses data as HTML", () => {
    for (const file of files) {
      const text = readFileSync(join(CLIENT, file), "utf8");
      expect(
        `${file}: ${/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/.test(text)}`,
      ).toBe(`${file}: false`);
    }
  });
});
