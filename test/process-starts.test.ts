/**
 * No test file starts a process while it registers its tests (test/support/processes.ts says why: Bun kills what
 * a timed-out test spawned, and a start begun at registration spawns inside whichever test runs then). The support
 * starters refuse a synchronous call there at run time; this file checks that the guard works, and reads every test
 * file for what the guard cannot see: an asynchronous start (an immediately invoked async function, or a starter
 * whose call is reached only after an await) written at a file's top level or directly in a describe callback.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { refuseWhileRegistering } from "./support/processes.ts";

const ROOT = resolve(import.meta.dir, "..");

let atRegistration: unknown;
try {
  refuseWhileRegistering("a probe");
} catch (error) {
  atRegistration = error;
}

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === "node_modules" || name.startsWith(".")) return [];
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Calls that start a process, directly or through a store backing or a shared server. */
const STARTS =
  /\b(spawnServer|startRedisServer|startPostgres|startRedisCluster|launchBrowser|sharedRedis|sharedPostgres|sharedRedisCluster|startWatched|Bun\.spawn|spawn)\(|\.env\(\)|(?<![\w$])\(async \(\) => \{/;

/** A line that opens a function body: an arrow or function expression, or a method. */
const OPENS_FUNCTION =
  /=>\s*\(?[{[]?\s*$|\bfunction\b.*\{\s*$|^\s*(async\s+)?[\w$]+\([^)]*\)\s*(:\s*[^{]+)?\{\s*$/;
/** A describe callback, which Bun runs while it registers the file's tests. */
const OPENS_DESCRIBE = /\bdescribe(\.\w+)*(\([^)]*\))?\(/;

/**
 * The lines of a biome-formatted file that run while the file registers its tests and start a process: each line
 * whose enclosing blocks (found by indentation) are all either not functions or describe callbacks.
 */
export function registrationStarts(text: string): { line: number; text: string }[] {
  const lines = text.split("\n");
  const found: { line: number; text: string }[] = [];
  let inComment = false;
  lines.forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed.startsWith("/*")) inComment = true;
    const comment = inComment || trimmed.startsWith("//") || trimmed.startsWith("*");
    if (trimmed.endsWith("*/")) inComment = false;
    if (comment || !STARTS.test(line)) return;
    let indent = line.length - line.trimStart().length;
    for (let i = index - 1; i >= 0 && indent > 0; i--) {
      const opener = lines[i] as string;
      const depth = opener.length - opener.trimStart().length;
      if (opener.trim() === "" || depth >= indent) continue;
      indent = depth;
      if (OPENS_FUNCTION.test(opener) && !OPENS_DESCRIBE.test(opener)) return;
    }
    found.push({ line: index + 1, text: trimmed });
  });
  return found;
}

describe("processes start in hooks or tests, never while a file registers its tests", () => {
  test("the support starters refuse a call at registration and accept one in a test", () => {
    expect(String(atRegistration)).toContain("a probe was started while the file registers its tests");
    expect(() => refuseWhileRegistering("a probe")).not.toThrow();
  });

  test("the reader finds registration-time starts and passes hooks and tests", () => {
    const file = [
      "const early = (async () => {",
      "  await spawnServer(env);",
      "})();",
      "for (const make of STORES) {",
      '  describe("x", () => {',
      "    const env = make().env();",
      "    beforeAll(async () => {",
      "      servers.push(await spawnServer(env));",
      "    });",
      '    test("y", async () => {',
      "      const s = await startRedisServer();",
      "    });",
      "  });",
      "}",
      "async function helper(): Promise<{ a: number }> {",
      "  return spawnServer({});",
      "}",
      "const env = async () => ({",
      "  ...(await make().env()),",
      "});",
    ].join("\n");
    expect(registrationStarts(file).map((f) => f.line)).toEqual([1, 6]);
  });

  test("no test file starts a process while it registers its tests", () => {
    const offenders = [join(ROOT, "test"), join(ROOT, "src")]
      .flatMap(testFiles)
      .filter((path) => path !== import.meta.path)
      .flatMap((path) =>
        registrationStarts(readFileSync(path, "utf8")).map(
          (f) => `${relative(ROOT, path)}:${f.line}: ${f.text}`,
        ),
      );
    expect(offenders).toEqual([]);
  });
});
