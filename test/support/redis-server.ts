/**
 * Starts a real redis-server (Debian's package) on a free loopback port, once per test process, and stops it
 * when the process exits. Tests isolate themselves with random room ids, never by flushing.
 */
import { type Subprocess, spawn } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Starts it again on the same port (for outage tests). */
  restart(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = server.port as number;
  await server.stop(true);
  return port;
}

async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
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
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "roomd-redis-"));
  let proc: Subprocess | undefined;
  const launch = async () => {
    proc = spawn(
      ["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
      { stdout: "ignore", stderr: "inherit" },
    );
    await waitForPort(port);
  };
  await launch();
  const stop = async () => {
    if (!proc || proc.exitCode !== null) return;
    proc.kill("SIGKILL");
    await proc.exited;
  };
  process.once("exit", () => {
    proc?.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });
  return { url: `redis://127.0.0.1:${port}`, port, stop, restart: launch };
}

let shared: Promise<RedisServer> | undefined;

/** One redis-server shared by every test file of this process. */
export function sharedRedis(): Promise<RedisServer> {
  shared ??= startRedisServer();
  return shared;
}
