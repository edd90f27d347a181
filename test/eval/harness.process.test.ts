/**
 * The evaluation harness (eval/): `bun run eval --quick` runs every scenario × arm to its end as CI's check; every
 * run yields every metric; in S3 the room arm never lets two agents start one task at any N, and the no-claims arm
 * follows the collision curve p(N,K) — in the quick run and, with 30 trials per N, in the committed full results;
 * and two runs with one seed write identical JSON.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  measureSessions,
  renderSessionTable,
  SESSIONS_BEGIN,
  SESSIONS_END,
} from "../../bench/profile-tokens.ts";
import { ARMS } from "../../eval/harness/arms.ts";
import { collisionCurve, pooledCollisions, type RunResult, round } from "../../eval/harness/metrics.ts";
import { random } from "../../eval/harness/random.ts";
import { shuffled } from "../../eval/scenarios/contention.ts";
import { SCENARIOS } from "../../eval/scenarios/index.ts";
import { PRINTED_PROFILE } from "../../src/clients.ts";
import { refuseWhileRegistering } from "../support/processes.ts";

const ROOT = join(import.meta.dir, "..", "..");

async function evalRun(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  refuseWhileRegistering("bun run eval");
  const proc = Bun.spawn(["bun", "eval/main.ts", ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  return { code: await proc.exited, stdout, stderr };
}

const readResults = (dir: string) =>
  readdirSync(dir)
    .filter((f) => /^S\d-.*\.json$/.test(f))
    .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as RunResult);

/** Every metric of a run: counts are finite numbers; staleness and correctness null only where no handoff exists. */
function checkMetrics(r: RunResult): string[] {
  const problems: string[] = [];
  const m = r.metrics;
  const numbers: [string, unknown][] = [
    ["humanInterventions", m.humanInterventions],
    ["interventionsPerTask", m.interventionsPerTask],
    ["coordination.calls", m.coordination.calls],
    ["coordination.tokens", m.coordination.tokens],
    ["coordination.callsPerTask", m.coordination.callsPerTask],
    ["coordination.tokensPerTask", m.coordination.tokensPerTask],
    ["coldStart.meanTokens", m.coldStart.meanTokens],
    ["coldStart.meanCalls", m.coldStart.meanCalls],
    ["makespanMs", m.makespanMs],
    ["wastedWorkMs", m.wastedWorkMs],
    ["tokens.total", m.tokens.total],
    ...Object.entries(m.concurrency).map(([k, v]): [string, unknown] => [`concurrency.${k}`, v]),
  ];
  for (const [name, value] of numbers)
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) problems.push(`${name}: ${value}`);
  if (m.coordination.calls === 0 || m.tokens.total === 0 || m.coldStart.sessions === 0)
    problems.push("nothing measured");
  const handoffs = !["S3", "S4", "S7"].includes(r.scenario);
  const timed = r.scenario !== "S3" && r.scenario !== "S4";
  if (handoffs !== (m.handoffCorrectness !== null))
    problems.push(`handoffCorrectness: ${m.handoffCorrectness}`);
  if (handoffs !== (m.coordination.callsPerHandoff !== null)) problems.push("callsPerHandoff");
  if (timed !== (m.staleness.p50Ms !== null && m.staleness.p99Ms !== null && m.staleness.count > 0))
    problems.push(`staleness: ${JSON.stringify(m.staleness)}`);
  if (r.roomReport === null) problems.push("no room report");
  return problems.map((p) => `${r.scenario} ${r.arm}: ${p}`);
}

/**
 * S3: the room arm has no duplicate at any N 1…16; the no-claims arm's collision rate lies within its 95% interval
 * of p(N,K): its collisions over every N against their expectation under p(N,K) (|z| ≤ 1.96). The per-N intervals
 * are in the figure; with 16 of them one may fall outside by chance, which is why the test is the pooled one.
 */
function checkCollisions(results: RunResult[]): string[] {
  const problems: string[] = [];
  for (const arm of ["room", "room-no-claims"] as const) {
    const r = results.find((x) => x.scenario === "S3" && x.arm === arm);
    const rows = (r?.extra.collisions ?? []) as {
      n: number;
      trials: number;
      collided: number;
      duplicateClaims: number;
      expected: number;
    }[];
    if (rows.map((c) => c.n).join(",") !== Array.from({ length: 16 }, (_, i) => i + 1).join(","))
      problems.push(`${arm}: N is not 1…16`);
    for (const c of rows) {
      if (c.expected !== round(collisionCurve(c.n, (r?.params.k as number) ?? 16)))
        problems.push(`${arm}, N=${c.n}: expected ${c.expected} is not p(N,K)`);
      if (arm === "room" && (c.collided !== 0 || c.duplicateClaims !== 0))
        problems.push(`room, N=${c.n}: ${c.duplicateClaims} duplicate claims`);
    }
    if (arm === "room-no-claims") {
      const fit = pooledCollisions(rows);
      if (Math.abs(fit.z) > 1.96) problems.push(`no-claims: ${JSON.stringify(fit)} outside the 95% interval`);
    }
  }
  return problems;
}

describe("bun run eval --quick", () => {
  let dir: string;
  let run: { code: number; stdout: string; stderr: string };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "roomd-eval-quick-"));
    run = await evalRun(["--quick", "--out", dir]);
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("finishes, writing one result per scenario × arm and the latency", () => {
    expect({ code: run.code, stderr: run.code === 0 ? "" : run.stderr }).toEqual({ code: 0, stderr: "" });
    const files = readdirSync(dir);
    for (const id of SCENARIOS) for (const arm of ARMS) expect(files).toContain(`${id}-${arm}-1.json`);
    expect(files).toContain("latency-sqlite-1.json");
    expect(run.stdout.trim().split("\n")).toHaveLength(SCENARIOS.length * ARMS.length + 1);
  });

  test("every scenario × arm yields every metric", () => {
    const results = readResults(dir);
    expect(results).toHaveLength(SCENARIOS.length * ARMS.length);
    expect(results.flatMap(checkMetrics)).toEqual([]);
  });

  test("S3: zero duplicate claims for the room arm at every N; no-claims within its intervals of p(N,K)", () => {
    expect(checkCollisions(readResults(dir))).toEqual([]);
  });

  test("the arms differ where their rules do: claims, versions, context and polling", () => {
    const get = (id: string, arm: string) =>
      readResults(dir).find((r) => r.scenario === id && r.arm === arm) as RunResult;
    expect(get("S4", "room-no-claims").metrics.concurrency.lostUpdates).toBeGreaterThan(0);
    expect(get("S4", "room").metrics.concurrency.lostUpdates).toBe(0);
    expect(get("S4", "room").metrics.concurrency.refusedStaleWrites).toBeGreaterThan(0);
    // The agents use the printed profile's tools (compact): context_write, claim.
    expect(get("S1", "room").calls.context_write).toBe(1);
    expect(get("S1", "room-no-context").calls.context_write).toBeUndefined();
    // Polling (a wait that returns at once, on a timer) sees new versions later than push.
    expect(get("S1", "room-poll").metrics.staleness.p50Ms as number).toBeGreaterThan(
      get("S1", "room").metrics.staleness.p50Ms as number,
    );
    expect(get("S1", "chat").calls.claim).toBeUndefined();
    expect(get("S1", "chat").calls.claim_task).toBeUndefined();
    expect(get("S7", "chat").metrics.humanInterventions).toBeGreaterThan(
      get("S7", "room").metrics.humanInterventions,
    );
  });
});

test("two runs with one seed write identical JSON", async () => {
  const dirs = [mkdtempSync(join(tmpdir(), "roomd-eval-a-")), mkdtempSync(join(tmpdir(), "roomd-eval-b-"))];
  try {
    const args = ["--quick", "--seed", "7", "--scenario", "S2,S4,S6", "--arm", "room,chat,room-poll"];
    // Side by side: the runs share nothing but the seed (each its own roomd, store and clock).
    const runs = await Promise.all(dirs.map((out) => evalRun([...args, "--out", out])));
    expect(runs.map((r) => r.code)).toEqual([0, 0]);
    expect(runs[0]?.stdout).toBe(runs[1]?.stdout as string);
    const files = readdirSync(dirs[0] as string).filter((f) => !f.startsWith("latency"));
    expect(files).toHaveLength(9);
    for (const f of files)
      expect(readFileSync(join(dirs[1] as string, f), "utf8")).toBe(
        readFileSync(join(dirs[0] as string, f), "utf8"),
      );
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}, 240_000);

test("the committed full results: every metric, and S3 against p(N,K) with 30 trials per N", () => {
  // The documented run puts its agents on the printed profile (what the room arm means).
  const results = readResults(join(ROOT, "eval", "results")).filter((r) => r.profile === PRINTED_PROFILE);
  expect(results).toHaveLength(SCENARIOS.length * ARMS.length);
  expect(results.every((r) => !r.quick)).toBe(true);
  expect(results.flatMap(checkMetrics)).toEqual([]);
  expect(checkCollisions(results)).toEqual([]);
});

test("S3's no-claims collisions are exactly the collisions of the agents' seeded first picks", () => {
  // Replays, without roomd, the draws runContention makes for a first-pick trial: the trial's stream (scenario S3,
  // label pick-<n>-<t>, as runScenario names it), its "work" fork, then one fork per agent whose shuffle gives the
  // agent's first try. roomd refuses nothing without claims, so every first try is a start.
  const r = readResults(join(ROOT, "eval", "results")).find(
    (x) => x.scenario === "S3" && x.arm === "room-no-claims",
  );
  const rows = (r?.extra.collisions ?? []) as { n: number; trials: number; collided: number }[];
  const titles = Array.from({ length: 16 }, (_, i) => i);
  const replayed = rows.map(({ n, trials }) => {
    let collided = 0;
    for (let t = 0; t < trials; t++) {
      const stream = random(r?.seed ?? 1, `S3/pick-${n}-${t}`);
      stream.fork("work");
      const picks = Array.from({ length: n }, (_, i) => shuffled(stream.fork(`agent-${i}`), titles)[0]);
      if (new Set(picks).size < n) collided++;
    }
    return { n, trials, collided };
  });
  expect(replayed).toEqual(rows.map(({ n, trials, collided }) => ({ n, trials, collided })));
});

test("docs/profiles.md's canonical sessions are what the harness measures now (run `bun run docs`)", async () => {
  const file = readFileSync(join(ROOT, "docs", "profiles.md"), "utf8");
  const table = file.slice(file.indexOf(SESSIONS_BEGIN), file.indexOf(SESSIONS_END) + SESSIONS_END.length);
  expect(table).toBe(renderSessionTable(await measureSessions()));
});
