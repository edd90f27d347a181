/**
 * roomctl's credentials: `login` checks the key and saves it to $XDG_CONFIG_HOME/roomd/credentials.json (else
 * ~/.config/roomd/…) with mode 0600 in a 0700 directory; the key comes from stdin or a prompt that does not echo,
 * never from argv; the environment wins over the file; a saved key is never sent to another server; `logout`
 * forgets it. Real processes, a real roomd, a real pseudo-terminal for the prompt.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { silentLogger } from "../../src/log.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { OPERATOR, type RunningServer, startInProcess, TEAM_A } from "../support/server.ts";
import { sqliteE2e } from "../support/stores.ts";
import { freshHome, roomctl, roomctlJson, roomctlOnPty } from "./support.ts";

let store: RoomStore;
let server: RunningServer;

beforeAll(async () => {
  store = await sqliteE2e().open();
  server = startInProcess(store, silentLogger, {
    OPERATOR_KEYS: `${OPERATOR.teamId}:${OPERATOR.secret}:carol`,
  });
});
afterAll(async () => {
  await server.stop();
  await store.close();
});

const mode = (path: string) => statSync(path).mode & 0o777;

describe("roomctl login / whoami / logout", () => {
  test("login reads the key from stdin, checks it, saves it 0600 under XDG_CONFIG_HOME; later commands use it", async () => {
    const home = freshHome();
    const login = await roomctl(["login", `${server.url}/`], { env: home, stdin: `${OPERATOR.secret}\n` });
    expect(login.code).toBe(0);
    expect(login.stdout).toContain(`Logged in to ${server.url} as human:carol (operator key of team ops)`);
    expect(login.stdout + login.stderr).not.toContain(OPERATOR.secret);
    const file = join(home.XDG_CONFIG_HOME, "roomd", "credentials.json");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ url: server.url, key: OPERATOR.secret });
    expect(mode(file)).toBe(0o600);
    expect(mode(join(home.XDG_CONFIG_HOME, "roomd"))).toBe(0o700);

    expect(await roomctlJson(["whoami"], { env: home })).toMatchObject({
      url: server.url,
      credentials: file,
      humanId: "carol",
    });
    expect((await roomctl(["rooms"], { env: home })).code).toBe(0);

    // Logging in again (another key) replaces the file, still 0600.
    const again = await roomctl(["login", server.url, "--key-stdin"], { env: home, stdin: TEAM_A.secret });
    expect(again.code).toBe(0);
    expect(mode(file)).toBe(0o600);
    expect((await roomctlJson(["whoami"], { env: home })).teamId).toBe("team-a");

    const out = await roomctl(["logout"], { env: home });
    expect(out).toMatchObject({ code: 0, stdout: `Logged out: removed ${file}.\n` });
    expect(existsSync(file)).toBe(false);
    const after = await roomctl(["whoami"], { env: home });
    expect(after.code).toBe(1);
    expect(after.stderr).toContain("not logged in");
    expect((await roomctl(["logout"], { env: home })).stdout).toBe(`Not logged in (no ${file}).\n`);
  });

  test("without XDG_CONFIG_HOME (or with a relative one) the file goes to ~/.config/roomd", async () => {
    const home = freshHome();
    for (const xdg of ["", "relative/dir"]) {
      const run = await roomctl(["login", server.url], {
        env: { HOME: home.HOME, XDG_CONFIG_HOME: xdg },
        stdin: OPERATOR.secret,
      });
      expect(run.code).toBe(0);
      const file = join(home.HOME, ".config", "roomd", "credentials.json");
      expect(mode(file)).toBe(0o600);
    }
  });

  test("the key is never taken from argv; a refused key is not saved; the key never appears in output", async () => {
    const home = freshHome();
    const file = join(home.XDG_CONFIG_HOME, "roomd", "credentials.json");
    const inArgv = await roomctl(["login", server.url, OPERATOR.secret], { env: home });
    expect(inArgv.code).toBe(2);
    expect(inArgv.stderr).toContain("never from the command line");
    expect(inArgv.stderr + inArgv.stdout).not.toContain(OPERATOR.secret);
    for (const flag of ["--key", `--key=${OPERATOR.secret}`, "--token"]) {
      const run = await roomctl(["login", server.url, flag, OPERATOR.secret], { env: home });
      expect(run.code).toBe(2);
      expect(run.stderr + run.stdout).not.toContain(OPERATOR.secret);
    }
    const wrong = "wrong-key-0123456789-abcdef";
    const refused = await roomctl(["login", server.url], { env: home, stdin: wrong });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("not logged in");
    expect(refused.stderr).toContain("(401)");
    expect(refused.stderr).not.toContain(wrong);
    const empty = await roomctl(["login", server.url], { env: home, stdin: "\n" });
    expect(empty.code).toBe(2);
    const down = await roomctl(["login", "http://127.0.0.1:9"], { env: home, stdin: OPERATOR.secret });
    expect(down.code).toBe(1);
    expect(existsSync(file)).toBe(false);
  });

  test("on a terminal the key is asked for without echo", async () => {
    const home = freshHome();
    const run = await roomctlOnPty(["login", server.url], {
      env: home,
      prompt: "(not shown): ",
      answer: OPERATOR.secret,
    });
    expect(run.code).toBe(0);
    expect(run.screen).toContain(`roomd key for ${server.url} (not shown): `);
    expect(run.screen).toContain("Logged in to");
    expect(run.screen).not.toContain(OPERATOR.secret);
    const file = join(home.XDG_CONFIG_HOME, "roomd", "credentials.json");
    expect(JSON.parse(readFileSync(file, "utf8")).key).toBe(OPERATOR.secret);
  });

  test("ROOMD_URL + ROOMD_KEY win over the file; the file's key is never sent to another ROOMD_URL", async () => {
    const home = freshHome();
    expect((await roomctl(["login", server.url], { env: home, stdin: OPERATOR.secret })).code).toBe(0);
    // ROOMD_KEY alone: the env key, at the file's server.
    expect(await roomctlJson(["whoami"], { env: { ...home, ROOMD_KEY: TEAM_A.secret } })).toMatchObject({
      teamId: "team-a",
      credentials: "env",
    });
    // ROOMD_URL naming the same server: the file's key.
    expect((await roomctlJson(["whoami"], { env: { ...home, ROOMD_URL: `${server.url}/` } })).humanId).toBe(
      "carol",
    );
    // ROOMD_URL naming another server, without ROOMD_KEY: refused before any request.
    const elsewhere = await roomctl(["whoami"], { env: { ...home, ROOMD_URL: "http://127.0.0.1:9" } });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain("is not the server you logged in to");
    expect(elsewhere.stderr).not.toContain(OPERATOR.secret);
  });

  test("a credentials file others can read is used with a warning; a broken one is an error naming the fix", async () => {
    const home = freshHome();
    const dir = join(home.XDG_CONFIG_HOME, "roomd");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "credentials.json");
    writeFileSync(file, JSON.stringify({ url: server.url, key: OPERATOR.secret }), { mode: 0o644 });
    const loose = await roomctl(["whoami", "--json"], { env: home });
    expect(loose.code).toBe(0);
    expect(loose.stderr).toContain(`is readable by others; run chmod 600 ${file}`);
    writeFileSync(file, "{not json");
    const broken = await roomctl(["whoami"], { env: home });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("roomctl logout");
  });
});
