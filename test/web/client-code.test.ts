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
const SHARED = ["protocol/records.ts", "protocol/people.ts", "protocol/claims.ts", "protocol/roles.ts"];

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

  test("never parses data as HTML", () => {
    for (const file of files) {
      const text = readFileSync(join(CLIENT, file), "utf8");
      expect(
        `${file}: ${/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/.test(text)}`,
      ).toBe(`${file}: false`);
    }
  });
});
