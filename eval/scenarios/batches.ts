/**
 * The scenarios whose runs are batches of trials rather than repetitions: S3's collision experiment (every N,
 * `trials` rooms each) and workloads, and S4's write modes. Each answers its merged tally, the last room it used
 * (whose report the result carries), and fills the result's params and extra series.
 */
import type { Arm, ArmRules } from "../harness/arms.ts";
import {
  collisionCurve,
  emptyTally,
  mergeTallies,
  metricsOf,
  round,
  type Tally,
  wilson,
} from "../harness/metrics.ts";
import type { Random } from "../harness/random.ts";
import type { Harness } from "../harness/runner.ts";
import { runContention } from "./contention.ts";
import { BONFERRONI_Z, type sizes } from "./index.ts";
import { modeOf, runPlanWrites, type WriteMode } from "./plan-writes.ts";

/** What a batch needs from runScenario. */
export interface Batch {
  h: Harness;
  arm: Arm;
  rules: ArmRules;
  size: ReturnType<typeof sizes>;
  /** The rooms' id prefix. */
  base: string;
  /** The random stream of a label (the same for every arm). */
  stream(label: string | number): Random;
}

type Out = Record<string, unknown>;

export async function contentionBatch(
  { h, arm, rules, size, base, stream }: Batch,
  params: Out,
  extra: Out,
): Promise<{ tally: Tally; lastRoom: string }> {
  let lastRoom = "";
  const s = size.s3;
  const main = arm === "room" || arm === "room-no-claims";
  const ns = main ? s.n : s.fewN;
  const trials = main ? s.trials : s.fewTrials;
  Object.assign(params, { k: s.k, f: s.f, n: ns, trials, workloadN: s.workloadN });
  const collisions = [];
  for (const n of ns) {
    let hits = 0;
    let duplicates = 0;
    for (let t = 0; t < trials; t++) {
      const o = await runContention(h, rules, stream(`pick-${n}-${t}`), `${base}-p${n}-${t}`, {
        n,
        k: s.k,
        f: s.f,
        firstPickOnly: true,
      });
      hits += o.collided ? 1 : 0;
      duplicates += o.duplicateClaims;
    }
    const [low, high] = wilson(hits, trials, BONFERRONI_Z);
    collisions.push({
      n,
      trials,
      collided: hits,
      duplicateClaims: duplicates,
      rate: round(hits / trials),
      low: round(low),
      high: round(high),
      expected: round(collisionCurve(n, s.k)),
    });
  }
  extra.collisions = collisions;
  const tallies: Tally[] = [];
  const workloads = [];
  for (const n of s.workloadN) {
    lastRoom = `${base}-w${n}`;
    const o = await runContention(h, rules, stream(`work-${n}`), lastRoom, {
      n,
      k: s.k,
      f: s.f,
      firstPickOnly: false,
    });
    const t = { ...emptyTally(), ...o, interventions: 0, tasks: s.k };
    tallies.push(t);
    workloads.push({
      n,
      makespanMs: o.makespanMs,
      wastedWorkMs: o.wastedWorkMs,
      duplicateClaims: o.duplicateClaims,
      overlappingFileEdits: o.overlappingFileEdits,
      claimConflicts: o.claimConflicts,
    });
  }
  extra.workloads = workloads;
  return { tally: mergeTallies(tallies), lastRoom };
}

export async function planWritesBatch(
  { h, arm, rules, size, base, stream }: Batch,
  params: Out,
  extra: Out,
): Promise<{ tally: Tally; lastRoom: string }> {
  let lastRoom = "";
  Object.assign(params, size.s4);
  const modes: WriteMode[] = arm === "room" ? ["expectedVersion", "planLock"] : [modeOf(rules)];
  const variants = [];
  let main: Tally | undefined;
  for (const mode of modes) {
    const tallies: Tally[] = [];
    for (let r = 0; r < size.s4.rounds; r++) {
      lastRoom = `${base}-${mode.toLowerCase()}-${r}`;
      const o = await runPlanWrites(h, rules, stream(`${mode}-${r}`), lastRoom, size.s4.writers, mode);
      tallies.push({ ...emptyTally(), ...o, tasks: 1 });
    }
    const t = mergeTallies(tallies);
    variants.push({
      mode,
      lostUpdates: t.lostUpdates,
      refusedStaleWrites: t.refusedStaleWrites,
      writes: size.s4.writers * size.s4.rounds,
      calls: metricsOf(t, false).coordination.calls,
    });
    main ??= t;
  }
  extra.variants = variants;
  return { tally: main as Tally, lastRoom };
}
