/**
 * `bun run eval [--quick] [--seed N] [--store sqlite|redis|postgres] [--scenario S1,S2] [--arm room,chat]
 * [--profile full|compact|agentroom] [--out DIR] [--docs | --no-docs] [--render]`
 *
 * Runs the scenarios × arms against a real roomd (eval/README.md), writes one JSON per run to the results folder
 * (`eval/results`, or `eval/results/quick` with --quick) and prints a deterministic summary: the same seed prints
 * the same lines. A complete full run (every scenario and arm, no --quick) also measures one canonical session per
 * profile and regenerates docs/evaluation.md and its figures; --docs forces that, --no-docs skips it; --render
 * only rewrites them from the saved results of such a run.
 * With one profile and S1,S2 on the room arm it is the agent-economy measure: the total tokens are printed last.
 */

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { PRINTED_PROFILE } from "../src/clients.ts";
import { PROFILES, type Profile } from "../src/mcp/tool.ts";
import { ARMS, type Arm } from "./harness/arms.ts";
import type { RunResult } from "./harness/metrics.ts";
import { Harness } from "./harness/runner.ts";
import { EVAL_STORES, type EvalStore } from "./harness/target.ts";
import { latencySummary, profileSessions } from "./profiles.ts";
import { renderEvaluation } from "./report/render.ts";
import { runScenario, SCENARIOS, type ScenarioId } from "./scenarios/index.ts";

const ROOT = join(import.meta.dir, "..");

function choices<T extends string>(value: string | undefined, all: readonly T[], what: string): T[] {
  if (value === undefined) return [...all];
  const picked = value.split(",").map((v) => v.trim());
  for (const v of picked)
    if (!all.includes(v as T)) throw new Error(`--${what} ${v}: one of ${all.join(", ")}`);
  return picked as T[];
}

/** How a documented run was made: the command and its wall time (written beside its results). */
interface RunMeta {
  command: string;
  seconds: number;
  store: string;
}

/** `--render`: docs/evaluation.md and its figures again from the results of a documented run in `dir`. */
async function renderFrom(dir: string, seed: number): Promise<number> {
  const read = (name: string) => JSON.parse(readFileSync(join(dir, name), "utf8"));
  const run = read(`run-${seed}.json`) as RunMeta;
  const results = readdirSync(dir)
    .filter((f) => new RegExp(`^S\\d-[a-z-]+-${seed}\\.json$`).test(f))
    .map((f) => read(f) as RunResult)
    .sort((a, b) =>
      a.scenario < b.scenario ? -1 : a.scenario > b.scenario ? 1 : ARMS.indexOf(a.arm) - ARMS.indexOf(b.arm),
    );
  const latency = read(`latency-${run.store}-${seed}.json`);
  const profiles = read(`profiles-${seed}.json`);
  await renderEvaluation({ root: ROOT, results, profiles, latency, ...run });
  process.stderr.write("docs/evaluation.md and its figures rewritten from the saved results\n");
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: "boolean", default: false },
      seed: { type: "string", default: "1" },
      store: { type: "string", default: "sqlite" },
      scenario: { type: "string" },
      arm: { type: "string" },
      profile: { type: "string", default: PRINTED_PROFILE },
      out: { type: "string" },
      docs: { type: "boolean" },
      "no-docs": { type: "boolean" },
      render: { type: "boolean" },
    },
    strict: true,
  });
  const seed = Number(values.seed);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error("--seed: a whole number ≥ 0");
  const [store] = choices(values.store, EVAL_STORES, "store") as [EvalStore];
  const [profile] = choices(values.profile, PROFILES, "profile") as [Profile];
  const scenarios = choices<ScenarioId>(values.scenario, SCENARIOS, "scenario");
  const arms = choices<Arm>(values.arm, ARMS, "arm");
  const quick = values.quick === true;
  const out = values.out ?? join(ROOT, "eval", "results", quick ? "quick" : "");
  const complete = !quick && values.scenario === undefined && values.arm === undefined;
  const docs = values.docs === true || (complete && values["no-docs"] !== true);
  mkdirSync(out, { recursive: true });
  if (values.render === true) return renderFrom(out, seed);

  const started = performance.now();
  const h = await Harness.start({ seed, quick, profile, store });
  const results: RunResult[] = [];
  const say = (line: string) => process.stdout.write(`${line}\n`);
  try {
    for (const id of scenarios) {
      for (const arm of arms) {
        const began = performance.now();
        const result = await runScenario(h, id, arm);
        process.stderr.write(`${id} ${arm}: ${Math.round(performance.now() - began)} ms\n`);
        results.push(result);
        const suffix = profile === PRINTED_PROFILE ? "" : `-${profile}`;
        writeFileSync(
          join(out, `${id}-${arm}-${seed}${suffix}.json`),
          `${JSON.stringify(result, null, 2)}\n`,
        );
        const m = result.metrics;
        say(
          `${id} ${arm.padEnd(15)} interventions ${m.humanInterventions}  handoff ${m.handoffCorrectness ?? "—"}  calls ${m.coordination.calls}  tokens ${m.tokens.total}  staleness p50 ${m.staleness.p50Ms ?? "—"} ms  duplicates ${m.concurrency.duplicateClaims}  lost ${m.concurrency.lostUpdates}  makespan ${Math.round(m.makespanMs / 1000)} s`,
        );
      }
    }
    const latency = latencySummary(h.latencies);
    writeFileSync(join(out, `latency-${store}-${seed}.json`), `${JSON.stringify(latency, null, 2)}\n`);
    const profiles = docs ? await profileSessions(seed, store, quick) : null;
    if (profiles) writeFileSync(join(out, `profiles-${seed}.json`), `${JSON.stringify(profiles, null, 2)}\n`);
    const seconds = Math.round((performance.now() - started) / 1000);
    if (docs && profiles) {
      const command = `bun run eval${quick ? " --quick" : ""}${profile !== PRINTED_PROFILE ? ` --profile ${profile}` : ""}${seed !== 1 ? ` --seed ${seed}` : ""}${store !== "sqlite" ? ` --store ${store}` : ""}`;
      const run: RunMeta = { command, seconds, store };
      writeFileSync(join(out, `run-${seed}.json`), `${JSON.stringify(run, null, 2)}\n`);
      await renderEvaluation({ root: ROOT, results, profiles, latency, ...run });
      process.stderr.write("docs/evaluation.md and its figures rewritten\n");
    }
    const total = results.reduce((sum, r) => sum + r.metrics.tokens.total, 0);
    say(`total tokens (${profile}, o200k_base): ${total}`);
    process.stderr.write(`wall time ${seconds} s; results in ${out}\n`);
  } finally {
    await h.stop();
  }
  return 0;
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(
        `eval: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
