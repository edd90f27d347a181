/**
 * What every scenario × arm run reports (eval/results/<scenario>-<arm>-<seed>.json), and the statistics behind
 * it: nearest-rank percentiles (as the room report), the AgentRoom collision curve p(N,K) and the Wilson interval
 * a measured rate is compared with. Counts are always numbers (0 when nothing happened); staleness and handoff
 * correctness are null only in scenarios without a handoff (S3, S4).
 */
import type { RoomReport } from "../../src/protocol/report.ts";
import { percentile } from "../../src/protocol/report.ts";
import type { Arm } from "./arms.ts";
import { addLedger, emptyLedger, type Ledger, totalTokens } from "./session.ts";

export { percentile };

export interface Metrics {
  humanInterventions: number;
  interventionsPerTask: number;
  handoffs: number;
  /** Share of consumers that finished against the latest contract version; null without handoffs. */
  handoffCorrectness: number | null;
  coordination: {
    calls: number;
    tokens: number;
    callsPerTask: number;
    tokensPerTask: number;
    callsPerHandoff: number | null;
    tokensPerHandoff: number | null;
  };
  /** Per session: the tokens and calls of its first reads (tool list and instructions included). */
  coldStart: { sessions: number; meanTokens: number; maxTokens: number; meanCalls: number };
  /** From each contract change to its consumer seeing it. */
  staleness: { count: number; p50Ms: number | null; p99Ms: number | null };
  concurrency: {
    lostUpdates: number;
    duplicateClaims: number;
    overlappingFileEdits: number;
    refusedStaleWrites: number;
    claimConflicts: number;
  };
  makespanMs: number;
  /** Work done twice, redone after a change or a steer, or given up: ms of agent work. */
  wastedWorkMs: number;
  tokens: { total: number; context: number; results: number; output: number };
}

export interface RunResult {
  scenario: string;
  arm: Arm;
  seed: number;
  profile: string;
  store: string;
  quick: boolean;
  params: Record<string, unknown>;
  tasks: number;
  metrics: Metrics;
  /** Calls by tool, over every session of the run. */
  calls: Record<string, number>;
  /** The room report of the run's (last) room, for the room arms: the same metrics from the room's own log. */
  roomReport: RoomReport | null;
  /** Scenario-specific series (collisions per N, variants, the polling sweep). */
  extra: Record<string, unknown>;
}

/** 1 − ∏_{k<N}(1 − k/K): the chance that two of N agents picking uniformly among K candidates collide. */
export function collisionCurve(n: number, k: number): number {
  let none = 1;
  for (let i = 0; i < n; i++) none *= Math.max(0, 1 - i / k);
  return 1 - none;
}

/** The Wilson score interval of `hits` in `trials` at z (1.96 ≈ 95%). */
export function wilson(hits: number, trials: number, z = 1.96): [number, number] {
  if (trials === 0) return [0, 1];
  const p = hits / trials;
  const z2 = z * z;
  const centre = (p + z2 / (2 * trials)) / (1 + z2 / trials);
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / (1 + z2 / trials);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** Rounds to 4 decimals so the JSON of one seed is the same on every machine. */
export const round = (x: number): number => Math.round(x * 10_000) / 10_000;

export interface Tally {
  ledgers: Ledger[];
  coldStarts: { tokens: number; calls: number }[];
  interventions: number;
  handoffs: { correct: boolean }[];
  staleness: number[];
  lostUpdates: number;
  duplicateClaims: number;
  overlappingFileEdits: number;
  refusedStaleWrites: number;
  claimConflicts: number;
  makespanMs: number;
  wastedWorkMs: number;
  tasks: number;
}

export const emptyTally = (): Tally => ({
  ledgers: [],
  coldStarts: [],
  interventions: 0,
  handoffs: [],
  staleness: [],
  lostUpdates: 0,
  duplicateClaims: 0,
  overlappingFileEdits: 0,
  refusedStaleWrites: 0,
  claimConflicts: 0,
  makespanMs: 0,
  wastedWorkMs: 0,
  tasks: 0,
});

/** The metrics of a tally; `handoffs: false` for scenarios without one (staleness and correctness null). */
export function metricsOf(t: Tally, withHandoffs: boolean): Metrics {
  const all = t.ledgers.reduce((sum, l) => addLedger(sum, l), emptyLedger());
  const tokens = totalTokens(all);
  const tasks = Math.max(1, t.tasks);
  const handoffs = t.handoffs.length;
  const cold = t.coldStarts;
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : round(xs.reduce((a, b) => a + b, 0) / xs.length));
  return {
    humanInterventions: t.interventions,
    interventionsPerTask: round(t.interventions / tasks),
    handoffs,
    handoffCorrectness:
      withHandoffs && handoffs > 0 ? round(t.handoffs.filter((h) => h.correct).length / handoffs) : null,
    coordination: {
      calls: all.calls,
      tokens,
      callsPerTask: round(all.calls / tasks),
      tokensPerTask: round(tokens / tasks),
      callsPerHandoff: withHandoffs && handoffs > 0 ? round(all.calls / handoffs) : null,
      tokensPerHandoff: withHandoffs && handoffs > 0 ? round(tokens / handoffs) : null,
    },
    coldStart: {
      sessions: cold.length,
      meanTokens: mean(cold.map((c) => c.tokens)),
      maxTokens: Math.max(0, ...cold.map((c) => c.tokens)),
      meanCalls: mean(cold.map((c) => c.calls)),
    },
    staleness: withHandoffs
      ? { count: t.staleness.length, p50Ms: percentile(t.staleness, 50), p99Ms: percentile(t.staleness, 99) }
      : { count: 0, p50Ms: null, p99Ms: null },
    concurrency: {
      lostUpdates: t.lostUpdates,
      duplicateClaims: t.duplicateClaims,
      overlappingFileEdits: t.overlappingFileEdits,
      refusedStaleWrites: t.refusedStaleWrites,
      claimConflicts: t.claimConflicts,
    },
    makespanMs: t.makespanMs,
    wastedWorkMs: t.wastedWorkMs,
    tokens: {
      total: tokens,
      context: all.contextTokens,
      results: all.resultTokens,
      output: all.outputTokens,
    },
  };
}

/** Calls by tool over every ledger, keys sorted. */
export function callsByTool(ledgers: Ledger[]): Record<string, number> {
  const all = ledgers.reduce((sum, l) => addLedger(sum, l), emptyLedger());
  return Object.fromEntries(Object.entries(all.byTool).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The tallies of several repetitions as one: everything added up, the makespan averaged. */
export function mergeTallies(tallies: Tally[]): Tally {
  const out = emptyTally();
  for (const t of tallies) {
    out.ledgers.push(...t.ledgers);
    out.coldStarts.push(...t.coldStarts);
    out.handoffs.push(...t.handoffs);
    out.staleness.push(...t.staleness);
    out.interventions += t.interventions;
    out.lostUpdates += t.lostUpdates;
    out.duplicateClaims += t.duplicateClaims;
    out.overlappingFileEdits += t.overlappingFileEdits;
    out.refusedStaleWrites += t.refusedStaleWrites;
    out.claimConflicts += t.claimConflicts;
    out.wastedWorkMs += t.wastedWorkMs;
    out.tasks += t.tasks;
    out.makespanMs += t.makespanMs;
  }
  out.makespanMs = tallies.length === 0 ? 0 : Math.round(out.makespanMs / tallies.length);
  return out;
}

/**
 * The collision experiment against p(N,K) as one test: trials with a collision over every N, against their
 * expectation Σ trials·p(N,K), standardised by the binomial variance Σ trials·p·(1 − p). |z| ≤ 1.96 is the 95%
 * interval of the arm's collision rate.
 */
export function pooledCollisions(rows: { trials: number; collided: number; expected: number }[]) {
  const observed = rows.reduce((a, r) => a + r.collided, 0);
  const expected = rows.reduce((a, r) => a + r.trials * r.expected, 0);
  const variance = rows.reduce((a, r) => a + r.trials * r.expected * (1 - r.expected), 0);
  return {
    observed,
    expected: round(expected),
    z: variance === 0 ? 0 : round((observed - expected) / Math.sqrt(variance)),
  };
}
