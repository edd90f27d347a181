/**
 * Starts a real redis-server (Debian's package) on a free loopback port: one shared by every file of the test
 * process (stopped after the last file), or a private one a file starts in beforeAll and stops in afterAll. Tests
 * isolate themselves with random room ids, never by flushing.
 */

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startWatched, stopWithTestProcess, waitForPort, watchdogScript } from "./processes.ts";
import { attachedServers, refusedOnShared } from "./shared-servers.ts";

export { waitForPort } from "./processes.ts";

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Starts it again on the same port (for outage tests). */
  restart(): Promise<void>;
  /** SIGSTOP: the server keeps its connections but answers nothing until resume(). */
  pause(): void;
  /** SIGCONT after pause(): it then runs whatever arrived meanwhile. */
  resume(): void;
}

export async function freePort(): Promise<number> {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = server.port as number;
  await server.stop(true);
  return port;
}

/** Starts a private redis-server; the caller stops it. */
export async function startRedisServer(): Promise<RedisServer> {
  if (!Bun.which("redis-server")) {
    throw new Error("redis-server is not installed: the Redis tests need it (apt-get install redis-server)");
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "roomd-redis-"));
  let watched: Awaited<ReturnType<typeof startWatched>> | undefined;
  const launch = async () => {
    watched = await startWatched(
      "redis-server",
      watchdogScript(
        `redis-server --port ${port} --bind 127.0.0.1 --save '' --appendonly no --dir '${dir}' --loglevel warning`,
      ),
    );
    await waitForPort(port, "redis-server");
  };
  await launch();
  const running = () => {
    if (!watched) throw new Error("redis-server was not started");
    return watched;
  };
  const stop = async () => {
    if (!watched) return;
    // By pid, even when its watchdog shell is gone (Bun kills the shell, not the server, if a test times out).
    try {
      process.kill(watched.pid, "SIGKILL");
    } catch {}
    await watched.proc.exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const restart = async () => {
    mkdirSync(dir, { recursive: true });
    await launch();
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    restart,
    pause: () => process.kill(running().pid, "SIGSTOP"),
    resume: () => process.kill(running().pid, "SIGCONT"),
  };
}

let shared: Promise<RedisServer> | undefined;

/** One redis-server shared by every test file of this process, stopped after the last file. */
export function sharedRedis(): Promise<RedisServer> {
  const given = attachedServers()?.redis;
  if (!shared && given) {
    const refuse = (what: string) => refusedOnShared("redis-server", what);
    shared = Promise.resolve({
      ...given,
      stop: async () => {},
      restart: refuse("restarted"),
      pause: refuse("paused"),
      resume: refuse("resumed"),
    });
  }
  if (!shared) {
    const started = startRedisServer();
    shared = started;
    // Forgotten once stopped: a worker that keeps its modules across files (`--no-isolate`) starts another.
    stopWithTestProcess(async () => {
      shared = undefined;
      await (await started).stop();
    });
  }
  return shared;
}
