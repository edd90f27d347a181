/**
 * A plain `bun install` on a fresh clone leaves the tree clean (docs/security.md#network-exposure): the lockfile bun
 * would write from package.json is byte for byte the committed one. `bun install --frozen-lockfile` is not enough to
 * prove it: it accepts a lockfile whose recorded specifiers ("^4.13.19") differ from package.json ("4.13.19"), which
 * a plain install then rewrites. So the check re-resolves in a temporary copy with `--lockfile-only`, which needs
 * nothing but the lockfile when it is complete. It runs offline by construction: an empty package cache, a throwaway
 * HOME (no user .npmrc or registry override) and proxies pointing at a closed port, so a lockfile that does need the
 * network fails fast instead of reaching out.
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "./support/redis-server.ts";

const ROOT = resolve(import.meta.dir, "..");
const INSTALL_INPUTS = ["package.json", "bun.lock", "bunfig.toml"];

/** What `bun install` would leave in bun.lock, given these package.json and bun.lock texts. */
async function relock(packageJson: string): Promise<{ exitCode: number; lock: string; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), "roomd-lock-"));
  for (const file of INSTALL_INPUTS)
    if (existsSync(join(ROOT, file))) copyFileSync(join(ROOT, file), join(dir, file));
  writeFileSync(join(dir, "package.json"), packageJson);
  mkdirSync(join(dir, "home"));
  const closed = `http://127.0.0.1:${await freePort()}`;
  const proc = Bun.spawn(["bun", "install", "--lockfile-only", "--ignore-scripts", "--no-progress"], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: join(dir, "home"),
      BUN_INSTALL_CACHE_DIR: join(dir, "cache"),
      HTTP_PROXY: closed,
      HTTPS_PROXY: closed,
      http_proxy: closed,
      https_proxy: closed,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const exitCode = await proc.exited;
  const output = (await new Response(proc.stdout).text()) + (await new Response(proc.stderr).text());
  return { exitCode, lock: readFileSync(join(dir, "bun.lock"), "utf8"), output };
}

/** The first lines where two texts differ, to make a failure readable. */
function firstDifferences(a: string, b: string): string[] {
  const left = a.split("\n");
  const right = b.split("\n");
  const out: string[] = [];
  for (let i = 0; i < Math.max(left.length, right.length) && out.length < 6; i++) {
    if (left[i] !== right[i])
      out.push(`line ${i + 1}: committed ${JSON.stringify(left[i])} → bun ${JSON.stringify(right[i])}`);
  }
  return out;
}

describe("lockfile", () => {
  const committed = readFileSync(join(ROOT, "bun.lock"), "utf8");
  const packageJson = readFileSync(join(ROOT, "package.json"), "utf8");

  test("bun install on a fresh clone rewrites nothing (bun.lock matches package.json, offline)", async () => {
    const result = await relock(packageJson);
    expect(result.exitCode, result.output).toBe(0);
    expect(firstDifferences(committed, result.lock)).toEqual([]);
  });

  test("the check notices drift (a range in package.json the lockfile does not record)", async () => {
    const drifted = packageJson.replace(/"hono": "([^"]+)"/, '"hono": "~$1"');
    expect(drifted).not.toBe(packageJson);
    const result = await relock(drifted);
    expect(result.exitCode, result.output).toBe(0);
    expect(firstDifferences(committed, result.lock).length).toBeGreaterThan(0);
  });
});
