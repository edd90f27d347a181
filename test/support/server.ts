/**
 * Real roomd servers for end-to-end tests: in this process (Bun.serve on a free port, real HTTP) or as a separate
 * `bun src/index.ts` process with its own environment.
 */

import { join } from "node:path";
import { type Subprocess, spawn } from "bun";
import { appDeps, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import type { LiveRooms } from "../../src/live/hub.ts";
import { type Logger, silentLogger } from "../../src/log.ts";
import type { Catalog } from "../../src/mcp/catalog.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { refuseWhileRegistering, waitUntilReady } from "./processes.ts";
import { freePort } from "./redis-server.ts";
import { TEST_ROOMS_PER_TEAM } from "./stores.ts";

export const TEAM_A = { teamId: "team-a", secret: "secret-team-a-0123456789" };
export const TEAM_B = { teamId: "team-b", secret: "secret-team-b-0123456789" };

export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

export const OPERATOR = { teamId: "ops", secret: "secret-operator-0123456789" };

export interface InProcessServer extends RunningServer {
  /** The server's live rooms (tests look at how many hubs are open). */
  live: LiveRooms;
}

/** The rate limit of test servers unless a test sets one (teams A and B serve many files on the shared stores). */
const SHARED_RATE_LIMIT = 1_000_000;
/**
 * What test servers allow unless a test sets its own: the shared stores keep every file's rate windows for the minute
 * and every file's keys for the run, per team, and teams A and B serve them all. A spawned server once kept the
 * defaults (600 calls a minute, 50 keys a team), and the security test's admin call on the shared Redis came back
 * without a key (team A's window spent by the files before it, or its keys counted over the run).
 */
const SHARED_LIMITS = { RATE_LIMIT_PER_MINUTE: String(SHARED_RATE_LIMIT), KEYS_PER_TEAM: "10000" };

/** roomd in this process on the given store, with teams A and B and an operator; env overrides config. */
export function startInProcess(
  store: RoomStore,
  logger: Logger = silentLogger,
  env: Record<string, string> = {},
  now: () => number = Date.now,
  catalog?: Catalog,
): InProcessServer {
  // A test of the rate limit (a RATE_LIMIT_PER_MINUTE below the default here) gets an operator team of its own, with
  // the same secret: the operator's admin calls spend its team's window, which on the shared stores every file's
  // operator calls of the same minute fill (a limit of 100 was spent by other files when the fast tier ran quicker).
  const limited = Number(env.RATE_LIMIT_PER_MINUTE ?? SHARED_RATE_LIMIT) < SHARED_RATE_LIMIT;
  const operatorTeam = limited ? `ops-${crypto.randomUUID().slice(0, 8)}` : OPERATOR.teamId;
  const config = loadConfig({
    API_KEYS: [TEAM_A, TEAM_B].map((k) => `${k.teamId}:${k.secret}`).join(","),
    OPERATOR_KEYS: `${operatorTeam}:${OPERATOR.secret}`,
    ROOMS_PER_TEAM: String(TEST_ROOMS_PER_TEAM),
    // Tests of the rate limit or the key limit set their own (and use teams of their own).
    ...SHARED_LIMITS,
    ...env,
  });
  const deps = appDeps(config, store, logger, now);
  const app = createApp(catalog ? { ...deps, catalog } : deps);
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: app.fetch });
  return {
    url: `http://127.0.0.1:${server.port}`,
    live: deps.live,
    stop: () => {
      deps.live.close();
      return server.stop(true);
    },
  };
}

export interface SpawnedServer extends RunningServer {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  /** Everything the process printed so far (stdout + stderr). */
  output(): string;
}

const ROOT = join(import.meta.dir, "..", "..");

/**
 * Starts `bun src/index.ts` and waits until /health answers 200. `options.port` starts it on a given port (a
 * restart behind the same URL); a free one otherwise. `options.entry` runs another entry file (relative to the
 * repository) that serves the same routes, e.g. a benchmark's variant of the server. Its rate and key limits are the
 * shared stores' (SHARED_LIMITS) unless `env` sets them.
 */
export async function spawnServer(
  env: Record<string, string>,
  options: { port?: number; entry?: string } = {},
): Promise<SpawnedServer> {
  const entry = options.entry ?? "src/index.ts";
  refuseWhileRegistering(`roomd (bun ${entry})`);
  const port = options.port ?? (await freePort());
  const proc = spawn(["bun", entry], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      PORT: String(port),
      ...SHARED_LIMITS,
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  let text = "";
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) text += new TextDecoder().decode(chunk);
  };
  void drain(proc.stdout);
  void drain(proc.stderr);
  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady(
    `roomd on ${url} answering GET /health with 200`,
    async () => {
      const res = await fetch(`${url}/health`);
      await res.body?.cancel();
      if (res.status !== 200) throw new Error(`GET /health answered ${res.status}`);
      return true;
    },
    { timeoutMs: 60_000, exited: () => proc.exitCode, describeLast: () => `roomd printed:\n${text}` },
  ).catch(async (error) => {
    proc.kill("SIGKILL");
    await proc.exited;
    throw error;
  });
  return {
    url,
    proc,
    output: () => text,
    stop: async () => {
      if (proc.exitCode === null) proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}
