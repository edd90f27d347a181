/**
 * "What the numbers say": a few sentences computed from the results (never typed in), each naming the rule it
 * rests on, so the document's summary cannot drift from its tables.
 */
import { pooledCollisions, type RunResult } from "../harness/metrics.ts";

const get = (results: RunResult[], id: string, arm: string) =>
  results.find((r) => r.scenario === id && r.arm === arm);
const share = (part: number, whole: number) => `${Math.round((100 * part) / Math.max(1, whole))}%`;
const k = (n: number) => `${(n / 1000).toFixed(1)}k`;

export function findings(results: RunResult[]): string[] {
  const out: string[] = [];
  const room = get(results, "S2", "room");
  const chat = get(results, "S2", "chat");
  if (room && chat) {
    const t = room.metrics.tokens;
    out.push(
      `S2 (mid-stream change): the \`room\` arm spent ${k(room.metrics.coordination.tokensPerTask)} tokens per task, \`chat\` ${k(chat.metrics.coordination.tokensPerTask)}; ${share(t.context, t.total)} of the room's tokens are the \`${room.profile}\` profile's tool list and instructions, read once per session (chat agents are booked four tools). Both finished against the latest contract (${room.metrics.handoffCorrectness === 1 ? "100%" : room.metrics.handoffCorrectness}, ${chat.metrics.handoffCorrectness === 1 ? "100%" : chat.metrics.handoffCorrectness}): a scripted chat agent never misreads a restated contract.`,
    );
  }
  const noClaims = get(results, "S3", "room-no-claims");
  const claims = get(results, "S3", "room");
  if (noClaims && claims) {
    type Row = {
      n: number;
      collided: number;
      trials: number;
      duplicateClaims: number;
      expected: number;
      low: number;
      high: number;
    };
    const rows = (r: RunResult) => (r.extra.collisions ?? []) as Row[];
    const sum = (r: RunResult, f: (c: Row) => number) => rows(r).reduce((a, c) => a + f(c), 0);
    const fit = pooledCollisions(rows(noClaims));
    const outside = rows(noClaims).filter((c) => c.expected < c.low || c.expected > c.high);
    out.push(
      `S3 (contention): over ${sum(claims, (c) => c.trials)} first-pick trials from N = 1 to 16, \`room\` let two agents start one task ${sum(claims, (c) => c.duplicateClaims)} times; \`room-no-claims\` ${sum(noClaims, (c) => c.duplicateClaims)} times. Its trials with a collision: ${fit.observed}, against ${fit.expected} expected from p(N,K) (z = ${fit.z}; the 95% interval is |z| ≤ 1.96). ${outside.length === 0 ? "Every N lies within its simultaneous interval." : `Outside its simultaneous interval: ${outside.map((c) => `N = ${c.n} (${c.collided} of ${c.trials}, p = ${c.expected})`).join(", ")} — the agents' picks are seeded draws, and replaying the same draws without roomd gives the same count, so the deviation is the draws', not the room's.`} The price of claims: ${claims.metrics.concurrency.claimConflicts} refused claims in the workloads.`,
    );
  }
  const blind = get(results, "S4", "room-no-claims");
  const versioned = get(results, "S4", "room");
  if (blind && versioned)
    out.push(
      `S4 (concurrent plan writes): writes without expectedVersion lost ${blind.metrics.concurrency.lostUpdates} updates; with it none were lost and ${versioned.metrics.concurrency.refusedStaleWrites} stale writes were refused and retried.`,
    );
  const newcomer = (arm: string) => get(results, "S5", arm)?.metrics.coldStart.meanTokens;
  if (newcomer("room") !== undefined && newcomer("chat") !== undefined)
    out.push(
      `S5 (cold start): the newcomer read ${k(newcomer("room") as number)} tokens to recover in \`room\` (tool list included), ${k(newcomer("chat") as number)} replaying the channel in \`chat\`, ${k((newcomer("room-no-context") ?? 0) as number)} walking the log in \`room-no-context\`. A replay grows with the room's history; the session-start summary (\`summary\`; \`get_my_summary\` in \`full\`) returns at most 20 events whatever the history.`,
    );
  const push = get(results, "S6", "room")?.metrics.staleness;
  const poll = get(results, "S6", "room-poll");
  if (push && poll) {
    const p = poll.metrics.staleness;
    out.push(
      `S6 (staleness): a waiting consumer saw each new version after ${((push.p50Ms ?? 0) / 1000).toFixed(1)} s (p50) under push; polling every 60 s, after ${((p.p50Ms ?? 0) / 1000).toFixed(1)} s (p50) and ${((p.p99Ms ?? 0) / 1000).toFixed(1)} s (p99). Under push the harness sends the wait when it would return, so its latency here is roomd's answer time, not a measured wake-up.`,
    );
  }
  const people = (arm: string) => get(results, "S7", arm)?.metrics.humanInterventions;
  if (people("room") !== undefined && people("chat") !== undefined)
    out.push(
      `S7 (people): ${people("room")} intervention(s) in \`room\` (the steer; the deploy went through a structured approval), ${people("chat")} in \`chat\` (the steer and the approval as messages).`,
    );
  const relays = results
    .filter((r) => r.arm === "chat")
    .reduce((a, r) => a + r.metrics.humanInterventions, 0);
  out.push(
    `Across every scenario, chat needed ${relays} person(s) stepping in, S7's included. Under the patience rule a holder that answers at its next turn (1–4 min) rarely leaves anyone waiting 20 min: the chat baseline's cost shows in messages and tokens read, not in relays.`,
  );
  return out.map((line) => `- ${line}`);
}
