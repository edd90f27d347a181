/**
 * `bun run test`: both test tiers, one after the other, and at the end each tier's wall time and every failed test
 * with the lines printed just before it (its error), so that the last screen of a long run — all a CI log may keep —
 * says what failed and why (docs/testing.md). The process tier runs even when the fast tier failed, so one run shows
 * every failure; the exit code is 1 when either failed. Arguments after `--` go to both `bun test` runs.
 *
 * The servers every test file shares (redis-server, the Redis Cluster, PostgreSQL) are started here, once for both
 * tiers, and handed to the test processes in ROOMD_TEST_SHARED (test/support/shared-servers.ts); their watchdogs
 * stop them if this process dies.
 *
 * The serial process tier also ends with its slowest files: Bun prints a file's name as it starts the file, so the time
 * from one name to the next is that file's wall time, hooks included (the fast tier runs files side by side, so its
 * names say nothing about time).
 */
import { availableParallelism } from "node:os";
import { sharedPostgres } from "../test/support/postgres.ts";
import { stopSharedServers } from "../test/support/processes.ts";
import { sharedRedisCluster } from "../test/support/redis-cluster.ts";
import { sharedRedis } from "../test/support/redis-server.ts";
import { SHARED_ENV, type SharedServers } from "../test/support/shared-servers.ts";

/** TEST_TIER=fast or TEST_TIER=process runs that tier alone (with the same shared servers and summary). */
const only = process.env.TEST_TIER;
/**
 * The fast tier's workers: one more than the cores. A fifth of two workers' time was spent waiting on a store's
 * round trips (the cores 23% idle through the tier); a third worker on two cores fills it. Alternating runs on one
 * machine: 107–136 s with two workers, 81–105 s with three, 104 s with four (docs/testing.md).
 */
const FAST_WORKERS = availableParallelism() + 1;
const tiers = [
  { name: "fast", script: "test:fast", args: [`--parallel=${FAST_WORKERS}`], timed: false },
  { name: "process", script: "test:process", args: [], timed: true },
].filter((tier) => only === undefined || only === "" || tier.name === only);
if (tiers.length === 0) throw new Error(`TEST_TIER: fast or process, not ${only}`);

const serversStarted = performance.now();
const [redis, postgres, cluster] = await Promise.all([sharedRedis(), sharedPostgres(), sharedRedisCluster()]);
const shared: SharedServers = {
  redis: { url: redis.url, port: redis.port },
  postgres: { url: postgres.url, port: postgres.port },
  cluster: { url: cluster.url, ports: cluster.ports, nodeTimeoutMs: cluster.nodeTimeoutMs },
};
console.log(
  `shared servers for both tiers: redis-server, Redis Cluster and PostgreSQL ready in ${((performance.now() - serversStarted) / 1000).toFixed(1)} s`,
);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, async () => {
    await stopSharedServers();
    process.exit(130);
  });
}

/** Lines kept before each `(fail)` line: Bun prints a test's error, source excerpt and stack just before it. */
const CONTEXT_LINES = 12;
/** Failures repeated at the end, per tier (Bun lists each failure twice: in place and in its own summary). */
const MAX_FAILURES = 10;
/** The serial tier's slowest files listed at the end. */
const SLOWEST_FILES = 12;
/** A line Bun prints as it starts a test file: the file's path and a colon. */
const FILE_START = /^\S+\.test\.ts:$/;

/** What one tier's output said: its failures with their context, and when each file started (ms). */
interface Seen {
  failures: Map<string, string[]>;
  starts: { file: string; at: number }[];
}

/** Passes a stream through to `out` line by line, keeping each `(fail)` line with the lines before it. */
async function relay(stream: ReadableStream<Uint8Array>, out: NodeJS.WriteStream, seen: Seen) {
  const { failures, starts } = seen;
  const recent: string[] = [];
  const decoder = new TextDecoder();
  let partial = "";
  const take = (line: string) => {
    if (FILE_START.test(line)) starts.push({ file: line.slice(0, -1), at: performance.now() });
    if (line.startsWith("(fail)") && !failures.has(line)) failures.set(line, [...recent]);
    recent.push(line);
    if (recent.length > CONTEXT_LINES) recent.shift();
  };
  for await (const chunk of stream) {
    out.write(chunk);
    const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) take(line);
  }
  if (partial) take(partial);
}

/** Each file's wall time from its start to the next file's (the last one's to the tier's end), slowest first. */
function fileTimes(starts: Seen["starts"], end: number): { file: string; seconds: number }[] {
  return starts
    .map(({ file, at }, i) => ({ file, seconds: ((starts[i + 1]?.at ?? end) - at) / 1000 }))
    .sort((a, b) => b.seconds - a.seconds);
}

/**
 * The machine's speed as one fixed piece of CPU work (JSON in and out, 300,000 times), in ms. Machines of this kind
 * were seen running it in 101 ms and in 222 ms within one hour: printed beside each tier's time, so two runs' times
 * can be told apart from two machines' speeds.
 */
function speedProbeMs(): number {
  const sample = { a: [1, 2, 3, { b: "hello world", c: [true, false, null] }], d: "x".repeat(200) };
  const started = performance.now();
  let chars = 0;
  for (let i = 0; i < 300_000; i++) chars += (JSON.parse(JSON.stringify(sample)) as typeof sample).d.length;
  // The result is used, so the loop cannot be skipped as dead code.
  if (chars === 0) throw new Error("unreachable");
  return performance.now() - started;
}

const results: {
  name: string;
  code: number;
  seconds: number;
  probeMs: [number, number];
  failures: Map<string, string[]>;
  files?: { file: string; seconds: number }[];
}[] = [];
for (const tier of tiers) {
  const probedBefore = speedProbeMs();
  const started = performance.now();
  const proc = Bun.spawn(["bun", "run", tier.script, ...tier.args, ...process.argv.slice(2)], {
    env: { ...process.env, [SHARED_ENV]: JSON.stringify(shared) },
    stdin: "inherit",
    stdout: "pipe",
    stderr: "pipe",
  });
  const seen: Seen = { failures: new Map(), starts: [] };
  await Promise.all([relay(proc.stdout, process.stdout, seen), relay(proc.stderr, process.stderr, seen)]);
  const code = await proc.exited;
  const ended = performance.now();
  results.push({
    name: tier.name,
    code,
    seconds: (ended - started) / 1000,
    probeMs: [probedBefore, speedProbeMs()],
    failures: seen.failures,
    ...(tier.timed ? { files: fileTimes(seen.starts, ended) } : {}),
  });
}

for (const r of results) {
  if (!r.files?.length) continue;
  console.log(
    `\n── ${r.name} tier: the ${Math.min(SLOWEST_FILES, r.files.length)} slowest of ${r.files.length} files ──`,
  );
  for (const { file, seconds } of r.files.slice(0, SLOWEST_FILES))
    console.log(`${seconds.toFixed(1).padStart(7)} s  ${file}`);
}

for (const r of results) {
  if (r.failures.size === 0) continue;
  console.log(`\n── ${r.name} tier: ${r.failures.size} failed ──`);
  for (const [line, before] of [...r.failures].slice(0, MAX_FAILURES))
    console.log([...before, line, ""].join("\n"));
}
for (const r of results) {
  console.log(
    `${r.name} tier: ${r.code === 0 ? "passed" : `failed (exit ${r.code})`} in ${r.seconds.toFixed(1)} s ` +
      `(speed probe: ${r.probeMs.map((ms) => ms.toFixed(0)).join(" ms before, ")} ms after)`,
  );
}
await stopSharedServers();
process.exit(results.every((r) => r.code === 0) ? 0 : 1);
