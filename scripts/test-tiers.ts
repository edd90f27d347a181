/**
 * `bun run test`: both test tiers and each tier's wall time at the end (docs/testing.md).
 *
 * The tiers run side by side: the process tier spends most of its time waiting (for retries, leases, processes
 * starting), and the fast tier is CPU work that fills those waits. The fast tier's output streams as it comes;
 * the process tier's is held until the fast tier ends, then streams too, so the two never interleave.
 * `TEST_TIERS=serial` (or a machine with one core) runs them one after the other instead. Either way both run to
 * the end, so one run shows every failure; the exit code is 1 when either failed. Arguments after `--` go to both
 * `bun test` runs (e.g. `-- --bail`).
 */
import { availableParallelism } from "node:os";

type Tier = { name: string; script: string };
type Result = { name: string; code: number; seconds: number };

const FAST: Tier = { name: "fast", script: "test:fast" };
const PROCESS: Tier = { name: "process", script: "test:process" };
const args = process.argv.slice(2);

/** Runs a tier; its output goes to `out` (chunk by chunk, as it comes). */
async function run(tier: Tier, out: (chunk: Uint8Array) => void): Promise<Result> {
  const started = performance.now();
  const proc = Bun.spawn(["bun", "run", tier.script, ...args], {
    stdin: "inherit",
    stdout: "pipe",
    stderr: "pipe",
  });
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) out(chunk);
  };
  await Promise.all([pump(proc.stdout), pump(proc.stderr), proc.exited]);
  return { name: tier.name, code: proc.exitCode ?? 1, seconds: (performance.now() - started) / 1000 };
}

const write = (chunk: Uint8Array) => process.stderr.write(chunk);

let results: Result[];
if (process.env.TEST_TIERS === "serial" || availableParallelism() < 2) {
  results = [await run(FAST, write), await run(PROCESS, write)];
} else {
  // The process tier's output waits here until the fast tier is done.
  let held: Uint8Array[] | null = [];
  const processTier = run(PROCESS, (chunk) => (held ? held.push(chunk) : write(chunk)));
  const fast = await run(FAST, write);
  write(new TextEncoder().encode(`\n── fast tier done; the process tier so far and from now on ──\n`));
  for (const chunk of held) write(chunk);
  held = null;
  results = [fast, await processTier];
}

for (const r of results) {
  console.log(
    `${r.name} tier: ${r.code === 0 ? "passed" : `failed (exit ${r.code})`} in ${r.seconds.toFixed(1)} s`,
  );
}
process.exit(results.every((r) => r.code === 0) ? 0 : 1);
