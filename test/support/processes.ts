/**
 * How tests start the processes they need (roomd, redis-server, a Redis Cluster's nodes, PostgreSQL, chromium), in
 * one place, because Bun's runner has two habits that turned starts into random failures:
 *
 * - Bun kills every process a test spawned when that test times out, and a process spawned by a promise a file
 *   kicked off while registering its tests is spawned during whatever test runs at that moment. A server meant for
 *   the whole file then dies with the first slow test, and every later test fails for a reason it did not cause.
 *   So starts happen in a hook (beforeAll) or in the test that owns the process, never while a file registers
 *   its tests: `refuseWhileRegistering` throws there, and test/architecture.test.ts refuses the asynchronous
 *   form the runtime check cannot see.
 * - `bunfig.toml`'s `[test] timeout` is not applied, and `setDefaultTimeout` in a preload covers only the first
 *   file of a run; `bun run test` passes `--timeout`, which covers every test and hook of every file.
 *
 * Every start waits for readiness with a bound, and its error says what it waited for and what it saw last.
 * Servers shared by every file of the test process (sharedRedis, sharedPostgres, sharedRedisCluster) register
 * their stop here; the preload stops them all after the last file.
 */
import { onTestFinished } from "bun:test";
import { type Subprocess, spawn } from "bun";

/**
 * Throws when called while a test file registers its tests (module body or a describe callback), where a started
 * process would belong to whichever test happens to run when it spawns. `onTestFinished` is the probe: Bun refuses
 * it outside a running test or hook. Its no-op callback is harmless where it is accepted. Inside a running
 * concurrent test (`describe.concurrent`) Bun refuses it with its own message: that is a test, so the start is
 * fine. Outside `bun test` (a bench using these helpers) Bun refuses it with another message, and there is nothing
 * to check.
 */
export function refuseWhileRegistering(what: string): void {
  try {
    onTestFinished(() => {});
  } catch (error) {
    const said = String(error);
    if (said.includes("outside of the test runner") || said.includes("inside a concurrent test")) return;
    throw new Error(
      `${what} was started while the file registers its tests; start it in beforeAll (or in the test that owns it) ` +
        "and stop it in afterAll: Bun kills what a timed-out test spawned, so a process started here dies with " +
        "whichever test runs first",
    );
  }
}

/**
 * Polls `probe` until it returns true, every `everyMs`, for at most `timeoutMs`. The error names what was awaited,
 * the bound, and the last thing the probe threw (or `describeLast`, e.g. a process's output so far).
 */
export async function waitUntilReady(
  what: string,
  probe: () => Promise<boolean>,
  options: { timeoutMs: number; everyMs?: number; describeLast?: () => string; exited?: () => number | null },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let last = "not tried yet";
  for (;;) {
    const code = options.exited?.();
    if (code !== undefined && code !== null) {
      throw new Error(`${what}: the process exited with ${code} before it was ready${detail(options)}`);
    }
    try {
      if (await probe()) return;
      last = "not ready yet";
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${what}: not ready within ${options.timeoutMs / 1000} s (last attempt: ${last})${detail(options)}`,
      );
    }
    await Bun.sleep(options.everyMs ?? 50);
  }
}

function detail(options: { describeLast?: () => string }): string {
  const text = options.describeLast?.().trim();
  return text ? `\n${text.slice(-4000)}` : "";
}

/** Resolves once something accepts TCP connections on the loopback port; `what` names the server for the error. */
export function waitForPort(port: number, what: string, timeoutMs = 30_000): Promise<void> {
  return waitUntilReady(
    `${what} accepting connections on 127.0.0.1:${port}`,
    async () => {
      const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
      socket.end();
      return true;
    },
    { timeoutMs, everyMs: 25 },
  );
}

export interface WatchedProcess {
  /** The watchdog shell (exits once the server is gone). */
  proc: Subprocess<"ignore", "pipe", "ignore">;
  /** The server's own pid, as the shell printed it. */
  pid: number;
}

/**
 * Starts `script` under `sh -c`; the script starts the server in the background, prints its pid on the first line
 * and then watches this test process, killing the server once it is gone (`bun test` runs no exit handlers).
 * stderr is not inherited, so pipes never hang.
 */
export async function startWatched(what: string, script: string): Promise<WatchedProcess> {
  refuseWhileRegistering(what);
  const proc = spawn(["sh", "-c", script], { stdin: "ignore", stdout: "pipe", stderr: "ignore" });
  const reader = proc.stdout.getReader();
  const { value } = await reader.read();
  reader.releaseLock();
  // Only the first line is the pid (the server's own output goes elsewhere, but be strict anyway).
  const pid = Number(new TextDecoder().decode(value).split("\n")[0]?.trim());
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`${what}: could not read its pid`);
  return { proc, pid };
}

/** The usual watchdog: start `command` in the background, print its pid, SIGKILL it once this process is gone. */
export function watchdogScript(command: string): string {
  return [
    `${command} >/dev/null 2>&1 &`,
    "r=$!; echo $r",
    `while kill -0 ${process.pid} 2>/dev/null && kill -0 $r 2>/dev/null; do sleep 0.5; done`,
    "kill -9 $r 2>/dev/null",
  ].join("\n");
}

const sharedStops: (() => Promise<void>)[] = [];

/** A server shared by every file of this test process registers its stop; the preload runs them after all files. */
export function stopWithTestProcess(stop: () => Promise<void>): void {
  sharedStops.push(stop);
}

/** Stops every shared server (the preload's afterAll). */
export async function stopSharedServers(): Promise<void> {
  const stops = sharedStops.splice(0);
  await Promise.allSettled(stops.map((stop) => stop()));
}
