/** The per-scenario sections of docs/evaluation.md: the arms side by side, and each scenario's own series. */
import { collisionCurve, type RunResult } from "../harness/metrics.ts";
import { SCENARIOS, TITLES } from "../scenarios/index.ts";
import { QUESTIONS } from "./text.ts";

export const dash = "—";
export const num = (x: number | null, digits = 0) =>
  x === null
    ? dash
    : x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
export const min = (ms: number | null) => (ms === null ? dash : `${(ms / 60_000).toFixed(1)} min`);
export const sec = (ms: number | null) => (ms === null ? dash : `${(ms / 1000).toFixed(1)} s`);
export const pct = (x: number | null) => (x === null ? dash : `${Math.round(x * 100)}%`);

export function scenarioTable(rows: RunResult[]): string {
  const head = [
    "arm",
    "people stepped in",
    "handoff correct",
    "calls / task",
    "tokens / task",
    "cold start (tokens)",
    "staleness p50 / p99",
    "lost updates",
    "duplicate claims",
    "overlapping edits",
    "refused stale writes",
    "claim conflicts",
    "makespan",
    "wasted work",
    "tokens",
  ];
  const lines = rows.map((r) => {
    const m = r.metrics;
    const c = m.concurrency;
    return [
      `\`${r.arm}\``,
      num(m.humanInterventions),
      pct(m.handoffCorrectness),
      num(m.coordination.callsPerTask, 1),
      num(m.coordination.tokensPerTask),
      num(m.coldStart.meanTokens),
      m.staleness.p50Ms === null ? dash : `${sec(m.staleness.p50Ms)} / ${sec(m.staleness.p99Ms)}`,
      num(c.lostUpdates),
      num(c.duplicateClaims),
      num(c.overlappingFileEdits),
      num(c.refusedStaleWrites),
      num(c.claimConflicts),
      min(m.makespanMs),
      min(m.wastedWorkMs),
      num(m.tokens.total),
    ];
  });
  return [
    `| ${head.join(" | ")} |`,
    `|${head.map(() => "---").join("|")}|`,
    ...lines.map((l) => `| ${l.join(" | ")} |`),
  ].join("\n");
}

export interface SectionInput {
  results: RunResult[];
  collisionRows: { n: number; rate: number; low: number; high: number; arm: string }[];
  k: number;
  collisionFig: string;
  stalenessFig: string;
  sweep: { pollMs: number; p50Ms: number | null; p99Ms: number | null; calls: number; tokens: number }[];
  push: RunResult["metrics"]["staleness"] | undefined;
}

export function scenarioSections({
  results,
  collisionRows,
  k,
  collisionFig,
  stalenessFig,
  sweep,
  push,
}: SectionInput): string[] {
  const by = (id: string) => results.filter((r) => r.scenario === id);
  return SCENARIOS.map((id) => {
    const rows = by(id);
    if (rows.length === 0) return "";
    const parts = [`### ${id}. ${TITLES[id]}`, "", QUESTIONS[id], "", scenarioTable(rows)];
    if (id === "S3") {
      const table = collisionRows
        .filter((c) => c.arm === "room-no-claims" || c.arm === "room")
        .map(
          (c) =>
            `| ${c.arm} | ${c.n} | ${num(collisionCurve(c.n, k), 3)} | ${num(c.rate, 3)} | ${num(c.low, 3)}–${num(c.high, 3)} |`,
        );
      parts.push(
        "",
        `Collisions in the first pick, per N (K = ${k}): the share of trials where two agents started the same task, with 95% simultaneous (Bonferroni over the 16 values of N) Wilson intervals, beside p(N,K) = 1 − ∏(1 − k/K).`,
        "",
        `![collisions vs N](${collisionFig})`,
        "",
        "| arm | N | p(N,K) | measured | interval |",
        "|---|---|---|---|---|",
        ...table,
      );
    }
    if (id === "S4") {
      const variants = rows.flatMap((r) =>
        (
          (r.extra.variants as {
            mode: string;
            lostUpdates: number;
            refusedStaleWrites: number;
            writes: number;
          }[]) ?? []
        ).map(
          (v) => `| \`${r.arm}\` | ${v.mode} | ${v.writes} | ${v.lostUpdates} | ${v.refusedStaleWrites} |`,
        ),
      );
      parts.push(
        "",
        "| arm | write mode | writes | lost updates | refused stale writes |",
        "|---|---|---|---|---|",
        ...variants,
      );
    }
    if (id === "S5") {
      const newcomers = rows.map((r) => {
        const n =
          (r.extra.newcomers as { tokens: number; calls: number; knewVersion: boolean; events: number }[]) ??
          [];
        const first = n[0];
        return `| \`${r.arm}\` | ${first?.events ?? dash} | ${num(r.metrics.coldStart.meanTokens)} | ${num(r.metrics.coldStart.meanCalls, 1)} | ${n.filter((x) => x.knewVersion).length}/${n.length} |`;
      });
      parts.push(
        "",
        "The newcomer's recovery (its whole first turn: tool list, instructions, reads):",
        "",
        "| arm | events in the room | tokens | calls | knew the current contract |",
        "|---|---|---|---|---|",
        ...newcomers,
      );
    }
    if (id === "S6") {
      parts.push(
        "",
        `![staleness vs polling interval](${stalenessFig})`,
        "",
        "| polling interval | staleness p50 | p99 | calls | tokens |",
        "|---|---|---|---|---|",
        `| push (\`room\`) | ${sec(push?.p50Ms ?? null)} | ${sec(push?.p99Ms ?? null)} | ${num(by("S6").find((r) => r.arm === "room")?.metrics.coordination.calls ?? null)} | ${num(by("S6").find((r) => r.arm === "room")?.metrics.tokens.total ?? null)} |`,
        ...sweep.map(
          (p) =>
            `| ${p.pollMs / 1000} s | ${sec(p.p50Ms)} | ${sec(p.p99Ms)} | ${num(p.calls)} | ${num(p.tokens)} |`,
        ),
      );
    }
    if (id === "S7") {
      const approvals = rows.map((r) => {
        const a = r.extra.approvals as {
          requested: number;
          decided: number;
          medianDecisionMs: number | null;
        };
        return `| \`${r.arm}\` | ${a.requested} | ${a.decided} | ${min(a.medianDecisionMs)} |`;
      });
      parts.push(
        "",
        "| arm | approvals requested | decided | median decision |",
        "|---|---|---|---|",
        ...approvals,
      );
    }
    return parts.join("\n");
  }).filter((p) => p !== "");
}
