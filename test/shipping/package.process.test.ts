/**
 * The npm package as a user installs it: `npm pack` makes the tarball (its contents listed here: sources, no
 * tests, benches or data), `npm install -g` into a temporary prefix puts `roomd` and `roomctl` on the PATH, and
 * both work from an empty directory (roomd serves: first-run key, probes, MCP, a room's page; roomctl logs in);
 * `bunx --package <tarball>` runs them too. The package needs Bun (engines.bun): its executables are TypeScript.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { freePort } from "../support/redis-server.ts";
import {
  checkServes,
  must,
  printedKey,
  run,
  type StartedRoomd,
  startRoomdCommand,
} from "../support/shipped.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Record<string, unknown> & {
  name: string;
  version: string;
};

let scratch: string;
let tarball: string;
let contents: string[];
let prefix: string;
let userEnv: Record<string, string>;
let roomd: StartedRoomd | undefined;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "roomd-package-"));
  const packed = JSON.parse(
    await must(["npm", "pack", "--json", "--pack-destination", scratch], { cwd: ROOT }),
  ) as [{ filename: string }];
  tarball = join(scratch, packed[0].filename);
  contents = (await must(["tar", "-tzf", tarball]))
    .trim()
    .split("\n")
    .map((line) => line.replace(/^package\//, ""))
    .sort();
  prefix = join(scratch, "prefix");
  await must(["npm", "install", "--global", "--prefix", prefix, "--no-audit", "--no-fund", tarball]);
  // A user's shell: the package's executables, Bun (which they run on) and the system, nothing of this checkout.
  const bunDir = dirname(Bun.which("bun") as string);
  userEnv = { PATH: `${join(prefix, "bin")}:${bunDir}:/usr/bin:/bin`, HOME: join(scratch, "home") };
  mkdirSync(userEnv.HOME as string);
}, 5 * 60_000);

afterAll(async () => {
  await roomd?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test("the package is publishable: not private, with files, bin, engines, license and repository", () => {
  expect(pkg.private).toBeUndefined();
  expect(pkg.bin).toEqual({ roomd: "src/index.ts", roomctl: "src/cli/index.ts" });
  expect(pkg.files).toBeArray();
  expect(pkg.engines).toHaveProperty("bun");
  expect(pkg.license).toBe("MIT");
  expect(pkg.repository).toMatchObject({ type: "git" });
  for (const bin of Object.values(pkg.bin as Record<string, string>)) {
    expect(readFileSync(join(ROOT, bin), "utf8").startsWith("#!/usr/bin/env bun\n")).toBe(true);
  }
});

test("the tarball holds the sources and the notices, and no tests, benches or data", () => {
  console.log(`${tarball}: ${contents.length} files\n${contents.join("\n")}`);
  for (const file of [
    "package.json",
    "README.md",
    "LICENSE",
    "CHANGELOG.md",
    "src/index.ts",
    "src/cli/index.ts",
  ]) {
    expect(contents).toContain(file);
  }
  expect(contents.filter((f) => !/^src\//.test(f) && !f.includes("/")).sort()).toEqual([
    ".env.example",
    "CHANGELOG.md",
    "LICENSE",
    "README.md",
    "package.json",
  ]);
  const unwanted = contents.filter(
    (f) =>
      /\.test\.ts$/.test(f) || /^(test|bench|data|docs|eval|dist|scripts)\//.test(f) || /\.sqlite/.test(f),
  );
  expect(unwanted).toEqual([]);
});

test("npm install -g puts roomd and roomctl on the PATH, and they work from an empty directory", async () => {
  const cwd = join(scratch, "project");
  mkdirSync(cwd);
  const version = await run(["roomd", "--version"], { cwd, env: userEnv });
  expect(version.stdout.trim()).toBe(`roomd ${pkg.version}`);
  const port = await freePort();
  roomd = await startRoomdCommand("the installed roomd", ["roomd"], {
    cwd,
    env: { ...userEnv, PORT: String(port) },
    url: `http://127.0.0.1:${port}`,
  });
  const key = printedKey(roomd.output());
  expect(readFileSync(join(cwd, "data", "operator.key"), "utf8").trim()).toBe(key);
  await checkServes(roomd.url, key);

  const login = await run(["roomctl", "login", roomd.url, "--key-stdin"], { cwd, env: userEnv, stdin: key });
  expect({ code: login.code, stderr: login.stderr }).toEqual({ code: 0, stderr: "" });
  const rooms = await run(["roomctl", "rooms", "--json"], { cwd, env: userEnv });
  expect(rooms.code).toBe(0);
  expect(rooms.stdout).toContain("shipped-");
}, 120_000);

test("bunx --package <tarball> runs both executables", async () => {
  const cwd = join(scratch, "bunx");
  mkdirSync(cwd);
  // Bun's own cache in the scratch directory: the package comes from the tarball, its dependencies from npm.
  const env = {
    ...(process.env as Record<string, string>),
    BUN_INSTALL_CACHE_DIR: join(scratch, "bun-cache"),
  };
  for (const [bin, expected] of [
    ["roomd", `roomd ${pkg.version}`],
    ["roomctl", pkg.version],
  ] as const) {
    const ran = await run(["bunx", "--package", tarball, bin, "--version"], { cwd, env });
    expect({ code: ran.code, last: ran.stdout.trim().split("\n").at(-1) }).toEqual({
      code: 0,
      last: expected,
    });
  }
}, 120_000);
