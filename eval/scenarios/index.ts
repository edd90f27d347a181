/**
 * The scenarios S1–S7: what each asks, how big it is (quick for CI, full for the documented run), and how a run
 * of one arm becomes a RunResult. Every repetition and trial gets its own room and its own random stream derived
 * from the seed, the scenario and its index — the same for every arm (common random numbers: the arms get the same
 * tasks, sizes and think times) — so a result depends on nothing but those.
 */
import { type Arm, DEFAULT_POLL_MS, rulesOf } from "../harness/arms.ts";
import {
  callsByTool,
  mergeTallies,
  metricsOf,
  percentile,
  type RunResult,
  type Tally,
} from "../harness/metrics.ts";
import { random } from "../harness/random.ts";
import type { Harness } from "../harness/runner.ts";
import { type Batch, contentionBatch, planWritesBatch } from "./batches.ts";
import { runHandoff } from "./handoff.ts";
import { runPeople } from "./people.ts";
import { runStaleness } from "./staleness.ts";

export const SCENARIOS = ["S1", "S2", "S3", "S4", "S5", "S6", "S7"] as const;
export type ScenarioId = (typeof SCENARIOS)[number];

export const TITLES: Record<ScenarioId, string> = {
  S1: "Producer→consumer handoff",
  S2: "A mid-stream change",
  S3: "Contention: N agents over K tasks and F files",
  S4: "Concurrent plan writes",
  S5: "Cold start: an agent joins mid-flight",
  S6: "Staleness: a contract changes while its consumer works",
  S7: "People steer and approve",
};

/** Sizes: quick (CI, ≤ 60 s for everything) and full (the documented run). */
export function sizes(quick: boolean) {
  return {
    reps: quick ? 1 : 8,
    s3: {
      k: 16,
      f: 12,
      /** N of the collision experiment, and its trials per N, for room and room-no-claims (others: `fewN`). */
      n: Array.from({ length: 16 }, (_, i) => i + 1),
      trials: quick ? 1 : 30,
      fewN: quick ? [16] : [1, 2, 4, 8, 12, 16],
      fewTrials: quick ? 1 : 15,
      workloadN: quick ? [4] : [1, 2, 4, 8, 16],
    },
    s4: { writers: quick ? 4 : 8, rounds: quick ? 1 : 6 },
    s5: { joinAtMs: 60 * 60_000 },
    s6: {
      revisions: quick ? 3 : 8,
      sweepMs: quick ? [15_000, 60_000, 300_000] : [5_000, 15_000, 30_000, 60_000, 120_000, 300_000],
    },
  };
}

const roomIdOf = (...parts: (string | number)[]) =>
  parts
    .join("-")
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "");

export async function runScenario(h: Harness, id: ScenarioId, arm: Arm): Promise<RunResult> {
  const { seed, quick, profile, store } = h.options;
  const size = sizes(quick);
  const rules = rulesOf(arm);
  const base = roomIdOf(id, arm, profile, seed);
  // Common random numbers: every arm draws the same task sizes and think times from the same streams.
  const stream = (label: string | number) => random(seed, `${id}/${label}`);
  const extra: Record<string, unknown> = {};
  let tally: Tally;
  let withHandoffs = true;
  let lastRoom = "";
  const params: Record<string, unknown> = { reps: size.reps };
  const batch: Batch = { h, arm, rules, size, base, stream };

  if (id === "S1" || id === "S2" || id === "S5") {
    const tallies: Tally[] = [];
    const newcomers = [];
    for (let r = 0; r < size.reps; r++) {
      lastRoom = `${base}-${r}`;
      const run = await runHandoff(
        h,
        rules,
        stream(r),
        lastRoom,
        id !== "S1",
        id === "S5" ? size.s5.joinAtMs : null,
      );
      tallies.push(run.tally);
      if (run.newcomer) newcomers.push(run.newcomer);
    }
    tally = mergeTallies(tallies);
    if (id === "S5") {
      params.joinAtMs = size.s5.joinAtMs;
      // The cold start that matters here is the newcomer's: it replaces the sessions' average.
      tally.coldStarts = newcomers.map((n) => ({ tokens: n.tokens, calls: n.calls }));
      extra.newcomers = newcomers;
    }
  } else if (id === "S3") {
    withHandoffs = false;
    ({ tally, lastRoom } = await contentionBatch(batch, params, extra));
  } else if (id === "S4") {
    withHandoffs = false;
    ({ tally, lastRoom } = await planWritesBatch(batch, params, extra));
  } else if (id === "S6") {
    params.revisions = size.s6.revisions;
    const run = async (pollMs: number, label: string) => {
      const tallies: Tally[] = [];
      for (let r = 0; r < size.reps; r++) {
        lastRoom = `${base}-${label}-${r}`;
        tallies.push(
          await runStaleness(h, rulesOf(arm, pollMs), stream(`${label}-${r}`), lastRoom, size.s6.revisions),
        );
      }
      return mergeTallies(tallies);
    };
    tally = await run(DEFAULT_POLL_MS, "main");
    if (arm === "room-poll") {
      const sweep = [];
      for (const pollMs of size.s6.sweepMs) {
        const t = await run(pollMs, `poll${pollMs}`);
        const m = metricsOf(t, true);
        sweep.push({
          pollMs,
          p50Ms: m.staleness.p50Ms,
          p99Ms: m.staleness.p99Ms,
          calls: m.coordination.calls,
          tokens: m.tokens.total,
        });
      }
      extra.sweep = sweep;
    }
  } else {
    withHandoffs = false;
    const tallies: Tally[] = [];
    const approvals = { requested: 0, decided: 0, decisionMs: [] as number[] };
    for (let r = 0; r < size.reps; r++) {
      lastRoom = `${base}-${r}`;
      const run = await runPeople(h, rules, stream(r), lastRoom);
      tallies.push(run.tally);
      approvals.requested += run.approvals.requested;
      approvals.decided += run.approvals.decided;
      approvals.decisionMs.push(...run.approvals.decisionMs);
    }
    tally = mergeTallies(tallies);
    extra.approvals = {
      requested: approvals.requested,
      decided: approvals.decided,
      medianDecisionMs: percentile(approvals.decisionMs, 50),
    };
    // A person's word reaching its agent is this scenario's staleness.
    const m = metricsOf(tally, true);
    extra.instructionStaleness = m.staleness;
  }

  const metrics = metricsOf(tally, withHandoffs);
  if (id === "S7") metrics.staleness = extra.instructionStaleness as typeof metrics.staleness;
  return {
    scenario: id,
    arm,
    seed,
    profile,
    store,
    quick,
    params,
    tasks: tally.tasks,
    metrics,
    calls: callsByTool(tally.ledgers),
    roomReport: lastRoom === "" ? null : await h.report(lastRoom),
    extra,
  };
}

/** z of a two-sided 95% interval, Bonferroni-corrected over the 16 values of N (simultaneous intervals). */
export const BONFERRONI_Z = 2.955;
