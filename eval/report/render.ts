/**
 * docs/evaluation.md, written whole by `bun run eval` from a run's results: what scripted agents can and cannot
 * show (first), the assumptions, one table per scenario with the arms side by side, the figures (SVG files in
 * docs/images/, drawn by charts.ts), the profiles' session cost, the latency, and how to run it again.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Arm } from "../harness/arms.ts";
import { collisionCurve, type RunResult } from "../harness/metrics.ts";
import { OUTPUT_TOKENS_PER_CALL } from "../harness/tokens.ts";
import type { LatencyRow, ProfileSession } from "../profiles.ts";
import { SCENARIOS, sizes, TITLES } from "../scenarios/index.ts";
import { armsChart, collisionChart, profileChart, stalenessChart } from "./charts.ts";
import { ASSUMPTIONS, HONESTY, QUESTIONS } from "./text.ts";

export interface RenderInput {
  root: string;
  results: RunResult[];
  profiles: ProfileSession[];
  latency: LatencyRow[];
  command: string;
  seconds: number;
  store: string;
}

const dash = "—";
const num = (x: number | null, digits = 0) =>
  x === null
    ? dash
    : x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const min = (ms: number | null) => (ms === null ? dash : `${(ms / 60_000).toFixed(1)} min`);
const sec = (ms: number | null) => (ms === null ? dash : `${(ms / 1000).toFixed(1)} s`);
const pct = (x: number | null) => (x === null ? dash : `${Math.round(x * 100)}%`);

function scenarioTable(rows: RunResult[]): string {
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

function writeFigure(root: string, name: string, svg: string): string {
  writeFileSync(join(root, "docs", "images", name), svg);
  return `images/${name}`;
}

export async function renderEvaluation(input: RenderInput): Promise<void> {
  const { root, results } = input;
  const by = (id: string) => results.filter((r) => r.scenario === id);
  const seed = results[0]?.seed ?? 1;
  const s = sizes(false);

  const tokensFig = writeFigure(
    root,
    "eval-tokens-per-task.svg",
    armsChart(
      results.map((r) => ({ scenario: r.scenario, arm: r.arm, value: r.metrics.coordination.tokensPerTask })),
      "coordination tokens per task",
    ),
  );
  const callsFig = writeFigure(
    root,
    "eval-calls-per-task.svg",
    armsChart(
      results.map((r) => ({ scenario: r.scenario, arm: r.arm, value: r.metrics.coordination.callsPerTask })),
      "coordination calls per task",
    ),
  );
  const collisionRows = by("S3").flatMap((r) =>
    ((r.extra.collisions as { n: number; rate: number; low: number; high: number }[]) ?? []).map((c) => ({
      ...c,
      arm: r.arm,
    })),
  );
  const k = s.s3.k;
  const curve = Array.from({ length: 16 }, (_, i) => ({ n: i + 1, p: collisionCurve(i + 1, k) }));
  const collisionFig = writeFigure(root, "eval-collisions.svg", collisionChart(collisionRows, curve, k));
  const sweep = (by("S6").find((r) => r.arm === "room-poll")?.extra.sweep ?? []) as {
    pollMs: number;
    p50Ms: number | null;
    p99Ms: number | null;
    calls: number;
    tokens: number;
  }[];
  const push = by("S6").find((r) => r.arm === "room")?.metrics.staleness;
  const stalenessFig = writeFigure(
    root,
    "eval-staleness.svg",
    stalenessChart(
      sweep.flatMap((p) => [
        { pollS: p.pollMs / 1000, quantile: "p50", seconds: (p.p50Ms ?? 0) / 1000 },
        { pollS: p.pollMs / 1000, quantile: "p99", seconds: (p.p99Ms ?? 0) / 1000 },
      ]),
      [
        { quantile: "p50", seconds: (push?.p50Ms ?? 0) / 1000 },
        { quantile: "p99", seconds: (push?.p99Ms ?? 0) / 1000 },
      ],
    ),
  );
  const profileFig = writeFigure(
    root,
    "eval-profiles.svg",
    profileChart(
      input.profiles.flatMap((p) => [
        { profile: p.profile, part: "tool list + instructions", tokens: p.contextTokensPerSession },
        {
          profile: p.profile,
          part: "results + output",
          tokens: p.tokensPerSession - p.contextTokensPerSession,
        },
      ]),
    ),
  );

  const sections = SCENARIOS.map((id) => {
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

  const reportCheck = results
    .filter((r) => r.roomReport !== null && (r.scenario === "S1" || r.scenario === "S2"))
    .map((r) => {
      const rep = r.roomReport as NonNullable<RunResult["roomReport"]>;
      return `| ${r.scenario} | \`${r.arm}\` | ${rep.humanInterventions.total} | ${pct(rep.handoffCorrectness)} | ${rep.staleness.count} | ${rep.concurrency.duplicateClaims} | ${rep.tasks.done} |`;
    });

  const doc = [
    "# Evaluation: what a room gives agents and what it costs them",
    "",
    `<!-- Generated by \`${input.command}\` (eval/report/render.ts); do not edit: run it again. -->`,
    "",
    "## Read this first: what these numbers are",
    "",
    HONESTY,
    "",
    "### Assumptions of the cost and behaviour models",
    "",
    ASSUMPTIONS.replace("{OUTPUT}", String(OUTPUT_TOKENS_PER_CALL)),
    "",
    "## The run",
    "",
    `\`${input.command}\` — seed ${seed}, store \`${input.store}\`, agents on the \`full\` profile; wall time ${input.seconds} s on the development machine (2 cores, shared). Raw results: \`eval/results/<scenario>-<arm>-${seed}.json\`; latency: \`eval/results/latency-${input.store}-${seed}.json\`; profiles: \`eval/results/profiles-${seed}.json\`. The same seed gives the same numbers, byte for byte, except the latency (wall clock). \`bun run eval --quick\` runs every scenario small (CI runs it through \`test/eval/harness.test.ts\`).`,
    "",
    "Arms: `room` (the protocol as its printed instructions say), `chat` (the message-passing baseline), `room-no-claims`, `room-no-context`, `room-poll` (see eval/README.md for every rule). Columns: people stepped in = a person relaying or redirecting; handoff correct = consumers that finished against the latest contract; calls and tokens per task = coordination (every roomd call is coordination: implementation happens outside the room); cold start = the first turn of a session; wasted work = work done twice, redone after a change or a steer, or overtaken.",
    "",
    `![coordination tokens per task, by scenario and arm](${tokensFig})`,
    "",
    `![coordination calls per task, by scenario and arm](${callsFig})`,
    "",
    "## Scenarios",
    "",
    sections.join("\n\n"),
    "",
    "## Tokens per session, per profile",
    "",
    "One canonical agent session: the S1 and S2 runs of the `room` arm with every agent on the profile (`bun run eval --scenario S1,S2 --arm room --profile <name>` prints the total).",
    "",
    `![tokens per session per profile](${profileFig})`,
    "",
    "| profile | sessions | tokens per session | of which tool list + instructions | calls per session |",
    "|---|---|---|---|---|",
    ...input.profiles.map(
      (p) =>
        `| \`${p.profile}\` | ${p.sessions} | ${num(p.tokensPerSession)} | ${num(p.contextTokensPerSession)} | ${num(p.callsPerSession, 1)} |`,
    ),
    "",
    "## The room report agrees",
    "",
    "Every run's room was also read back with `GET /rooms/:roomId/report` ([http.md](http.md#get-roomsroomidreport)); for the handoff scenarios (last repetition's room):",
    "",
    "| scenario | arm | people stepped in | handoff correctness | staleness samples | duplicate claims | tasks done |",
    "|---|---|---|---|---|---|---|",
    ...reportCheck,
    "",
    "The chat and room-no-context rooms have no context entries, so their reports show no handoff: the report reads what a room records, and a contract passed as a message is not recorded as one.",
    "",
    "## Latency overhead per tool call (wall clock, varies run to run)",
    "",
    `Real HTTP on loopback, the official SDK client, roomd in the harness's process on \`${input.store}\`; wait_for_events excluded (its time is waiting). Under the harness's one-call-at-a-time schedule, so no queueing; see [benchmarks.md](benchmarks.md) for load.`,
    "",
    "| tool | calls | p50 | p99 |",
    "|---|---|---|---|",
    ...input.latency
      .slice(0, 15)
      .map((l) => `| \`${l.tool}\` | ${l.calls} | ${l.p50Ms.toFixed(2)} ms | ${l.p99Ms.toFixed(2)} ms |`),
    "",
  ].join("\n");
  writeFileSync(join(root, "docs", "evaluation.md"), doc);
}

export type { Arm };
