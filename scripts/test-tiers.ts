/**
 * `bun run test`: both test tiers, one after the other, and at the end each tier's wall time and every failed test
 * with the lines printed just before it (its error), so that the last screen of a long run — all a CI log may keep —
 * says what failed and why (docs/testing.md). The process tier runs even when the fast tier failed, so one run shows
 * every failure; the exit code is 1 when either failed. Arguments after `--` go to both `bun test` runs.
 *
 * The servers every test file shares (redis-server, the Redis Cluster, PostgreSQL) are started here, once for both
 * tiers, and handed to the test processes in ROOMD_TEST_SHARED (test/support/shared-servers.ts); their watchdogs
 * stop them if this process dies.
 */
import { sharedPostgres } from "../test/support/postgres.ts";
import { stopSharedServers } from "../test/support/processes.ts";
import { sharedRedisCluster } from "../test/support/redis-cluster.ts";
import { sharedRedis } from "../test/support/redis-server.ts";
import { SHARED_ENV, type SharedServers } from "../test/support/shared-servers.ts";

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

const tiers = [
  { name: "fast", script: "test:fast" },
  { name: "process", script: "test:process" },
];
/** Lines kept before each `(fail)` line: Bun prints a test's error, source excerpt and stack just before it. */
const CONTEXT_LINES = 12;
/** Failures repeated at the end, per tier (Bun lists each failure twice: in place and in its own summary). */
const MAX_FAILURES = 10;

/** Passes a stream through to `out` line by line, keeping each `(fail)` line with the lines before it. */
async function relay(
  stream: ReadableStream<Uint8Array>,
  out: NodeJS.WriteStream,
  failures: Map<string, string[]>,
) {
  const recent: string[] = [];
  const decoder = new TextDecoder();
  let partial = "";
  const take = (line: string) => {
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

const results: { name: string; code: number; seconds: number; failures: Map<string, string[]> }[] = [];
for (const tier of tiers) {
  const started = performance.now();
  const proc = Bun.spawn(["bun", "run", tier.script, ...process.argv.slice(2)], {
    env: { ...process.env, [SHARED_ENV]: JSON.stringify(shared) },
    stdin: "inherit",
    stdout: "pipe",
    stderr: "pipe",
  });
  const failures = new Map<string, string[]>();
  await Promise.all([
    relay(proc.stdout, process.stdout, failures),
    relay(proc.stderr, process.stderr, failures),
  ]);
  const code = await proc.exited;
  results.push({ name: tier.name, code, seconds: (performance.now() - started) / 1000, failures });
}

for (const r of results) {
  if (r.failures.size === 0) continue;
  console.log(`\n── ${r.name} tier: ${r.failures.size} failed ──`);
  for (const [line, before] of [...r.failures].slice(0, MAX_FAILURES))
    console.log([...before, line, ""].join("\n"));
}
for (const r of results) {
  console.log(
    `${r.name} tier: ${r.code === 0 ? "passed" : `failed (exit ${r.code})`} in ${r.seconds.toFixed(1)} s`,
  );
}
await stopSharedServers();
process.exit(results.every((r) => r.code === 0) ? 0 : 1);
