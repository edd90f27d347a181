/**
 * Starts a real redis-server (Debian's package) on a free loopback port, once per test process, and stops it
 * when the process exits. Tests isolate themselves with random room ids, never by flushing.
 */

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Subprocess, spawn } from "bun";

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

/** Resolves once something accepts connections on the loopback port. */
export async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
      socket.end();
      return;
    } catch {
      await Bun.sleep(25);
    }
  }
  throw new Error(`redis-server did not open port ${port} within ${timeoutMs} ms`);
}

/** Starts a private redis-server; the caller stops it. */
export async function startRedisServer(): Promise<RedisServer> {
  if (!Bun.which("redis-server")) {
    throw new Error("redis-server is not installed: the Redis tests need it (apt-get install redis-server)");
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "roomd-redis-"));
  let proc: Subprocess<"ignore", "pipe", "ignore"> | undefined;
  let pid = 0;
  // `bun test` runs no exit handlers, so the server watches us instead: a small shell starts redis-server, prints
  // its pid, and kills it as soon as this test process is gone. stderr is not inherited, so pipes never hang.
  const watchdog = [
    `redis-server --port ${port} --bind 127.0.0.1 --save '' --appendonly no --dir '${dir}' --loglevel warning >/dev/null 2>&1 &`,
    "r=$!; echo $r",
    `while kill -0 ${process.pid} 2>/dev/null && kill -0 $r 2>/dev/null; do sleep 0.5; done`,
    "kill -9 $r 2>/dev/null",
  ].join("\n");
  const launch = async () => {
    proc = spawn(["sh", "-c", watchdog], { stdin: "ignore", stdout: "pipe", stderr: "ignore" });
    const reader = proc.stdout.getReader();
    const { value } = await reader.read();
    reader.releaseLock();
    // Only the first line is the pid (redis-server's own output goes to /dev/null, but be strict anyway).
    pid = Number(new TextDecoder().decode(value).split("\n")[0]?.trim());
    if (!Number.isInteger(pid)) throw new Error("could not read the redis-server pid");
    await waitForPort(port);
  };
  await launch();
  const stop = async () => {
    if (!proc || proc.exitCode !== null) return;
    process.kill(pid, "SIGKILL");
    await proc.exited;
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
    pause: () => process.kill(pid, "SIGSTOP"),
    resume: () => process.kill(pid, "SIGCONT"),
  };
}

let shared: Promise<RedisServer> | undefined;

/** One redis-server shared by every test file of this process. */
export function sharedRedis(): Promise<RedisServer> {
  shared ??= startRedisServer();
  return shared;
}
