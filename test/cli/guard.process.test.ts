/**
 * `roomctl guard` in a real git repository against a real roomd: staged files another agent has claimed refuse the
 * commit (exit 1, listing them); files of one's own or nobody's pass (exit 0) — run directly and as the
 * repository's actual pre-commit hook under `git commit`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../../src/log.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { runToEnd } from "../support/run.ts";
import { type RunningServer, startInProcess, TEAM_A } from "../support/server.ts";
import { newRoomId, sqliteE2e } from "../support/stores.ts";
import { freshHome, ROOT, roomctl } from "./support.ts";

let store: RoomStore;
let server: RunningServer;
let http: ReturnType<typeof httpClient>;

beforeAll(async () => {
  store = await sqliteE2e().open();
  server = startInProcess(store, silentLogger);
  http = httpClient(server.url);
});
afterAll(async () => {
  await server.stop();
  await store.close();
});

/** git in `repo` (nothing that runs a hook), failing the test on a non-zero exit. */
function git(repo: string, args: string[]) {
  const run = Bun.spawnSync(["git", ...args], {
    cwd: repo,
    env: { PATH: process.env.PATH ?? "", ...freshHome(), GIT_CONFIG_NOSYSTEM: "1" },
  });
  if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr.toString()}`);
  return { code: run.exitCode, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
}

/**
 * git without blocking this process: a commit runs the pre-commit hook, whose roomctl calls the roomd server that
 * lives in this test's event loop.
 */
async function gitAsync(repo: string, args: string[], env: Record<string, string>) {
  return runToEnd(["git", ...args], {
    cwd: repo,
    env: { PATH: process.env.PATH ?? "", ...freshHome(), GIT_CONFIG_NOSYSTEM: "1", ...env },
  });
}

/** A new repository with one commit, and files written (not yet staged). */
function repoWith(files: string[]): string {
  const repo = mkdtempSync(join(tmpdir(), "roomctl-guard-"));
  git(repo, ["init", "-q", "-b", "main"]);
  git(repo, ["config", "user.email", "t@example.com"]);
  git(repo, ["config", "user.name", "t"]);
  git(repo, ["commit", "-q", "--allow-empty", "-m", "start"]);
  for (const file of files) {
    mkdirSync(join(repo, file, ".."), { recursive: true });
    writeFileSync(join(repo, file), `${file}\n`);
  }
  return repo;
}

describe("roomctl guard", () => {
  const roomId = newRoomId();
  const files = ["src/api.ts", "src/ui.ts", "README.md", "docs/a[1] *.md"];
  let env: Record<string, string>;

  beforeAll(async () => {
    // bob holds src/api.ts and everything under docs/; alice holds src/ui.ts.
    const bob = await http.tool(TEAM_A.secret, "claim_files", {
      roomId,
      agentId: "bob",
      paths: ["src/api.ts", "docs/**"],
    });
    expect(JSON.parse(bob.text).conflicts).toEqual([]);
    const alice = await http.tool(TEAM_A.secret, "claim_files", {
      roomId,
      agentId: "alice",
      paths: ["src/ui.ts"],
    });
    expect(JSON.parse(alice.text).conflicts).toEqual([]);
    env = { ROOMD_URL: server.url, ROOMD_KEY: TEAM_A.secret, ROOMD_ROOM: roomId, ROOMD_AGENT: "alice" };
  });

  test("staged files claimed by another agent: exit 1 listing exactly them (odd file names included)", async () => {
    const repo = repoWith(files);
    git(repo, ["add", "."]);
    const run = await roomctl(["guard"], { env, cwd: repo });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe(
      "  docs/a[1] *.md  claimed by bob (docs/**)\n  src/api.ts  claimed by bob (src/api.ts)\n",
    );
    expect(run.stderr).toBe(
      `roomctl guard: 2 staged files are claimed by another agent in room ${roomId}; commit refused (ask the holder, or unstage them)\n`,
    );
    const json = await roomctl(["guard", "--json"], { env, cwd: repo });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual([
      { path: "README.md", state: "free" },
      { path: "docs/a[1] *.md", state: "held", heldBy: "bob", pattern: "docs/**" },
      { path: "src/api.ts", state: "held", heldBy: "bob", pattern: "src/api.ts" },
      { path: "src/ui.ts", state: "mine", pattern: "src/ui.ts" },
    ]);
  });

  test("own and unclaimed files pass (exit 0, silent); flags override the environment; nothing staged passes; deletions count", async () => {
    const repo = repoWith(files);
    const empty = await roomctl(["guard"], { env, cwd: repo });
    expect(empty).toEqual({ code: 0, stdout: "", stderr: "" });
    git(repo, ["add", "src/ui.ts", "README.md"]);
    expect(await roomctl(["guard"], { env, cwd: repo })).toEqual({ code: 0, stdout: "", stderr: "" });
    // As bob (flags win over ROOMD_ROOM / ROOMD_AGENT), alice's src/ui.ts is the one held.
    const asBob = await roomctl(["guard", "--room", roomId, "--agent", "bob"], {
      env: { ...env, ROOMD_ROOM: "other-room" },
      cwd: repo,
    });
    expect(asBob.code).toBe(1);
    expect(asBob.stdout).toBe("  src/ui.ts  claimed by alice (src/ui.ts)\n");
    // Deleting a claimed file is editing it: a staged deletion is refused too.
    git(repo, ["reset", "-q"]);
    git(repo, ["add", "src/api.ts"]);
    git(repo, ["commit", "-q", "-m", "api"]);
    git(repo, ["rm", "-q", "src/api.ts"]);
    const deletion = await roomctl(["guard"], { env, cwd: repo });
    expect(deletion.code).toBe(1);
    expect(deletion.stdout).toBe("  src/api.ts  claimed by bob (src/api.ts)\n");
  });

  test("as git's pre-commit hook: the commit is refused, then made once the claimed file is unstaged", async () => {
    const repo = repoWith(files);
    const hook = join(repo, ".git", "hooks", "pre-commit");
    writeFileSync(
      hook,
      `#!/bin/sh\nexec bun ${JSON.stringify(join(ROOT, "src", "cli", "index.ts"))} guard\n`,
    );
    chmodSync(hook, 0o755);
    git(repo, ["add", "src/api.ts", "README.md"]);
    const refused = await gitAsync(repo, ["commit", "-m", "api"], env);
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain("src/api.ts  claimed by bob");
    expect(git(repo, ["log", "--oneline"]).stdout.trim().split("\n")).toHaveLength(1);
    git(repo, ["reset", "-q", "src/api.ts"]);
    expect((await gitAsync(repo, ["commit", "-q", "-m", "readme"], env)).code).toBe(0);
    expect(git(repo, ["log", "--oneline"]).stdout.trim().split("\n")).toHaveLength(2);
  });

  test("outside a repository, or with roomd unreachable, the guard fails closed (exit 1, one line)", async () => {
    const notRepo = mkdtempSync(join(tmpdir(), "roomctl-norepo-"));
    const outside = await roomctl(["guard"], {
      env: { ...env, GIT_CEILING_DIRECTORIES: tmpdir() },
      cwd: notRepo,
    });
    expect(outside.code).toBe(1);
    expect(outside.stderr.trim().split("\n")).toHaveLength(1);
    expect(outside.stderr).toContain("git:");
    const repo = repoWith(["a.txt"]);
    git(repo, ["add", "."]);
    const down = await roomctl(["guard"], { env: { ...env, ROOMD_URL: "http://127.0.0.1:9" }, cwd: repo });
    expect(down.code).toBe(1);
    expect(down.stderr).toBe("roomctl: roomd not reached at http://127.0.0.1:9 (connection refused)\n");
  });
});
