/**
 * `bun run test`: both test tiers, one after the other, and at the end each tier's wall time and every failed test
 * with the lines printed just before it (its error), so that the last screen of a long run — all a CI log may keep —
 * says what failed and why (docs/testing.md). The process tier runs even when the fast tier failed, so one run shows
 * every failure; the exit code is 1 when either failed. Arguments after `--` go to both `bun test` runs.
 */
export {};

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
process.exit(results.every((r) => r.code === 0) ? 0 : 1);
