/**
 * `bun run test`: both test tiers, one after the other, and each tier's wall time at the end (docs/testing.md).
 * The process tier runs even when the fast tier failed, so one run shows every failure; the exit code is 1 when
 * either failed. Arguments after `--` go to both `bun test` runs (e.g. `-- --bail`).
 */
export {};

const tiers = [
  { name: "fast", script: "test:fast" },
  { name: "process", script: "test:process" },
];

const results: { name: string; code: number; seconds: number }[] = [];
for (const tier of tiers) {
  const started = performance.now();
  const proc = Bun.spawn(["bun", "run", tier.script, ...process.argv.slice(2)], {
    stdio: ["inherit", "inherit", "inherit"],
  });
  const code = await proc.exited;
  results.push({ name: tier.name, code, seconds: (performance.now() - started) / 1000 });
}

for (const r of results) {
  console.log(
    `${r.name} tier: ${r.code === 0 ? "passed" : `failed (exit ${r.code})`} in ${r.seconds.toFixed(1)} s`,
  );
}
process.exit(results.every((r) => r.code === 0) ? 0 : 1);
