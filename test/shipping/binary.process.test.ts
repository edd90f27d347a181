/**
 * `bun run build` as a user meets it: the two executables, copied alone into an empty directory (no checkout, no
 * node_modules, no Bun on the PATH), work — roomd starts on the embedded store, prints and saves its first-run key,
 * answers the probes, an MCP call and a room's page with its script and stylesheet; `roomd healthcheck` agrees;
 * roomctl talks to it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "../support/redis-server.ts";
import { checkServes, printedKey, run, type StartedRoomd, startRoomdCommand } from "../support/shipped.ts";

const ROOT = resolve(import.meta.dir, "..", "..");

let scratch: string;
let alone: string;
let env: Record<string, string>;
let roomd: StartedRoomd;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "roomd-binary-"));
  const built = await run(["bun", "run", "build", "--outdir", join(scratch, "dist")], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
  });
  if (built.code !== 0) throw new Error(`bun run build failed:\n${built.stdout}\n${built.stderr}`);
  alone = join(scratch, "alone");
  mkdirSync(alone);
  for (const name of ["roomd", "roomctl"]) copyFileSync(join(scratch, "dist", name), join(alone, name));
  for (const name of ["roomd", "roomctl"]) chmodSync(join(alone, name), 0o755);
  const port = await freePort();
  // No PATH to Bun: the executables carry their runtime.
  env = { PATH: "/usr/bin:/bin", HOME: alone, PORT: String(port) };
  roomd = await startRoomdCommand("the compiled roomd", [join(alone, "roomd")], {
    cwd: alone,
    env,
    url: `http://127.0.0.1:${port}`,
  });
});

afterAll(async () => {
  await roomd?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test("bun run build makes dist/roomd and dist/roomctl, executables of their own", () => {
  for (const name of ["roomd", "roomctl"]) {
    const stat = statSync(join(scratch, "dist", name));
    expect(stat.isFile()).toBe(true);
    expect(stat.mode & 0o111).not.toBe(0);
  }
  expect(readdirSync(alone).sort()).toEqual(["data", "roomctl", "roomd"]);
});

test("alone in a directory, roomd serves: first-run key printed and saved, probes, MCP, the room page", async () => {
  const key = printedKey(roomd.output());
  expect(readFileSync(join(alone, "data", "operator.key"), "utf8").trim()).toBe(key);
  expect(statSync(join(alone, "data", "operator.key")).mode & 0o777).toBe(0o600);
  expect(existsSync(join(alone, "data", "roomd.sqlite"))).toBe(true);
  await checkServes(roomd.url, key);
});

test("roomd healthcheck and --version; roomctl logs in and lists the rooms", async () => {
  const health = await run([join(alone, "roomd"), "healthcheck"], { cwd: alone, env });
  expect(health.code).toBe(0);
  const down = await run([join(alone, "roomd"), "healthcheck"], {
    cwd: alone,
    env: { ...env, PORT: String(await freePort()) },
  });
  expect(down.code).toBe(1);
  expect(down.stderr).toContain("roomd healthcheck:");
  const version = await run([join(alone, "roomd"), "--version"], { cwd: alone, env });
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
  expect(version.stdout.trim()).toBe(`roomd ${pkg.version}`);

  const key = printedKey(roomd.output());
  const login = await run([join(alone, "roomctl"), "login", roomd.url], { cwd: alone, env, stdin: key });
  expect(login.code).toBe(0);
  const rooms = await run([join(alone, "roomctl"), "rooms", "--json"], { cwd: alone, env });
  expect(rooms.code).toBe(0);
  expect(rooms.stdout).toContain("shipped-");
});
