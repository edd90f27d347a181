/**
 * What one canonical agent session costs per tool profile — the S1 and S2 runs of the room arm with every agent on
 * that profile — and the wall-clock latency summary. `sessionTokens` is the function later measures build on:
 * same seed, same store, one profile, and the tokens every session of those runs spent, in total and per session.
 */
import { PROFILES, type Profile } from "../src/mcp/tool.ts";
import { percentile, round } from "./harness/metrics.ts";
import { Harness } from "./harness/runner.ts";
import type { Latencies } from "./harness/session.ts";
import type { EvalStore } from "./harness/target.ts";
import { runScenario } from "./scenarios/index.ts";

export interface ProfileSession {
  profile: Profile;
  sessions: number;
  totalTokens: number;
  tokensPerSession: number;
  /** Of which: the tool list and instructions each session starts with. */
  contextTokensPerSession: number;
  callsPerSession: number;
}

/** S1 + S2, room arm, every agent on `profile`: the tokens of its sessions. */
export async function sessionTokens(
  profile: Profile,
  options: { seed: number; store: EvalStore; quick: boolean },
): Promise<ProfileSession> {
  const h = await Harness.start({ ...options, profile });
  try {
    let sessions = 0;
    let total = 0;
    let context = 0;
    let calls = 0;
    for (const id of ["S1", "S2"] as const) {
      const r = await runScenario(h, id, "room");
      sessions += r.metrics.coldStart.sessions;
      total += r.metrics.tokens.total;
      context += r.metrics.tokens.context;
      calls += r.metrics.coordination.calls;
    }
    return {
      profile,
      sessions,
      totalTokens: total,
      tokensPerSession: round(total / sessions),
      contextTokensPerSession: round(context / sessions),
      callsPerSession: round(calls / sessions),
    };
  } finally {
    await h.stop();
  }
}

/** sessionTokens for every profile. */
export async function profileSessions(
  seed: number,
  store: EvalStore,
  quick: boolean,
): Promise<ProfileSession[]> {
  const out: ProfileSession[] = [];
  for (const profile of PROFILES) out.push(await sessionTokens(profile, { seed, store, quick }));
  return out;
}

export interface LatencyRow {
  tool: string;
  calls: number;
  p50Ms: number;
  p99Ms: number;
}

/** p50/p99 wall-clock ms per tool over real HTTP (wait_for_events excluded: its time is waiting). */
export function latencySummary(latencies: Latencies): LatencyRow[] {
  return [...latencies]
    .filter(([tool]) => tool !== "wait_for_events" && tool !== "wait")
    .map(([tool, ms]) => ({
      tool,
      calls: ms.length,
      p50Ms: round(percentile(ms, 50) ?? 0),
      p99Ms: round(percentile(ms, 99) ?? 0),
    }))
    .sort((a, b) => b.calls - a.calls || (a.tool < b.tool ? -1 : 1));
}
