/**
 * One measured benchmark phase: a load run with the roomd processes' CPU time and the store's round trips read
 * before and after it, so each is divided by the calls of that phase alone.
 */
import { cpus } from "node:os";
import { type LoadOptions, type LoadResult, runLoad } from "./load.ts";
import { type PgCost, pgCost } from "./pg-probe.ts";
import { cpuMs, machineBusyMs, type RedisCost, redisCost } from "./probes.ts";
import { type BenchTarget, rssMb } from "./server.ts";

/** What a phase measures: the processes serving it, and the store behind them when it is Redis. */
export type Measured = Pick<BenchTarget, "servers" | "redis" | "front" | "postgres">;

export interface PhaseResult extends LoadResult {
  /** roomd CPU time (user + sys, all processes summed) per 1,000 calls, in ms. */
  cpuMsPer1000: number;
  /** Each process's share of the calls' CPU (ms per 1,000 calls of the whole phase). */
  cpuMsPer1000ByProcess: number[];
  /**
   * Store round trips per call, counted at the store: commands sent to Redis (INFO commandstats) for `redis`, REST
   * requests at the front for `upstash`, statements executed for `postgres` (each one round trip, BEGIN and
   * COMMIT included); undefined for SQLite (in-process, no round trips).
   */
  tripsPerCall?: number;
  /** What the phase cost the PostgreSQL server (postgres store). */
  postgres?: PgCost;
  /** What the phase cost the redis-server (redis and upstash stores). */
  redis?: RedisCost;
  /** Largest resident size among the roomd processes after the phase, in MB. */
  rssMb: number;
  /**
   * Share of the machine's CPU (all cores, over the phase) used by processes that are not part of the bench:
   * busy time minus roomd, this process (load generator and Upstash front) and redis-server. Near 0 is a clean run.
   */
  otherCpuPercent: number;
}

/**
 * Waits (at most `maxMs`) until the machine's CPU outside the bench stays under `percent` for half a second:
 * other work on a shared machine inflates every number a phase reports. Returns the last sample.
 */
export async function waitForQuiet(target: Measured, percent = 10, maxMs = 10_000): Promise<number> {
  assertAlive(target);
  const pids = target.servers.map((s) => s.proc.pid);
  const deadline = Date.now() + maxMs;
  for (;;) {
    const own = () => pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
    const [busy0, own0, self0, redis0] = [machineBusyMs(), own(), process.cpuUsage(), await redisMs(target)];
    const started = performance.now();
    await Bun.sleep(500);
    const self = process.cpuUsage(self0);
    const spent = [own() - own0, (self.user + self.system) / 1000, (await redisMs(target)) - redis0];
    const other = otherPercent(machineBusyMs() - busy0, (performance.now() - started) * cpus().length, spent);
    if (other < percent || Date.now() > deadline) return other;
  }
}

/** Throws with the process's output if a roomd process of the target has exited. */
function assertAlive(target: Measured): void {
  for (const server of target.servers) {
    if (server.proc.exitCode !== null || server.proc.signalCode !== null) {
      const how = server.proc.signalCode ?? `code ${server.proc.exitCode}`;
      throw new Error(`roomd pid ${server.proc.pid} exited (${how}): ${server.output().slice(-2000)}`);
    }
  }
}

/** CPU ms so far of the store's server (redis-server, or PostgreSQL's processes). */
async function redisMs(target: Measured): Promise<number> {
  if (target.postgres) return (await target.postgres.probe.snapshot()).cpuMs;
  return ((await target.redis?.probe.snapshot())?.cpuSeconds ?? 0) * 1000;
}

/** Runs `load` against the target and measures it; `load.url` defaults to every process of the target. */
export async function measuredPhase(
  target: Measured,
  load: Omit<LoadOptions, "url"> & { url?: LoadOptions["url"] },
): Promise<PhaseResult> {
  await waitForQuiet(target);
  const pids = target.servers.map((s) => s.proc.pid);
  const cpuBefore = pids.map(cpuMs);
  const busyBefore = machineBusyMs();
  const selfBefore = process.cpuUsage();
  const frontBefore = target.front?.requests ?? 0;
  const redisBefore = await target.redis?.probe.snapshot();
  const pgBefore = await target.postgres?.probe.snapshot();
  const result = await runLoad({ ...load, url: load.url ?? target.servers.map((s) => s.url) });
  assertAlive(target);
  const redisAfter = await target.redis?.probe.snapshot();
  const pgAfter = await target.postgres?.probe.snapshot();
  const postgres = pgBefore && pgAfter ? pgCost(pgBefore, pgAfter, result.calls) : undefined;
  const frontAfter = target.front?.requests ?? 0;
  const roomdMs = pids.map((pid, i) => cpuMs(pid) - (cpuBefore[i] ?? 0));
  const self = process.cpuUsage(selfBefore);
  const busyMs = machineBusyMs() - busyBefore;
  const cpuByProcess = roomdMs.map((ms) => (ms * 1000) / result.calls);
  const redis = redisBefore && redisAfter ? redisCost(redisBefore, redisAfter, result.calls) : undefined;
  const tripsPerCall = target.front
    ? (frontAfter - frontBefore) / result.calls
    : target.redis
      ? redis?.roundTripsPerCall
      : postgres?.statementsPerCall;
  return {
    ...result,
    cpuMsPer1000: cpuByProcess.reduce((a, b) => a + b, 0),
    cpuMsPer1000ByProcess: cpuByProcess,
    ...(tripsPerCall === undefined ? {} : { tripsPerCall }),
    ...(redis ? { redis } : {}),
    ...(postgres ? { postgres } : {}),
    rssMb: Math.max(...pids.map(rssMb)),
    otherCpuPercent: otherPercent(busyMs, result.seconds * 1000 * cpus().length, [
      ...roomdMs,
      (self.user + self.system) / 1000,
      redis?.processCpuMs ?? postgres?.processCpuMs ?? 0,
    ]),
  };
}

/** Busy time not accounted for by `ownMs`, as a percentage of the machine's capacity over the same span. */
export function otherPercent(busyMs: number, capacityMs: number, ownMs: number[]): number {
  const own = ownMs.reduce((a, b) => a + b, 0);
  return Math.max(0, (100 * (busyMs - own)) / capacityMs);
}

type Prepare = () => Promise<Parameters<typeof measuredPhase>[1]>;

/**
 * Runs a phase up to `tries` times and keeps the run `better` prefers, stopping early once `enough` says the kept run
 * will do. `prepare` builds each try's load (e.g. on freshly seeded rooms).
 */
async function keptPhase(
  target: Measured,
  prepare: Prepare,
  tries: number,
  better: (run: PhaseResult, kept: PhaseResult) => boolean,
  enough: (kept: PhaseResult) => boolean,
): Promise<PhaseResult> {
  let kept: PhaseResult | undefined;
  for (let i = 0; i < tries; i++) {
    const run = await measuredPhase(target, await prepare());
    if (!kept || better(run, kept)) kept = run;
    if (enough(kept)) break;
  }
  return kept as PhaseResult;
}

/**
 * Runs a phase up to `tries` times while other work on the machine took more than `percent` of it, and keeps the
 * cleanest run.
 */
export const cleanestPhase = (
  target: Measured,
  prepare: Prepare,
  tries = 2,
  percent = 10,
): Promise<PhaseResult> =>
  keptPhase(
    target,
    prepare,
    tries,
    (run, kept) => run.otherCpuPercent < kept.otherCpuPercent,
    (kept) => kept.otherCpuPercent < percent,
  );

/**
 * Runs a phase `tries` times, every time, and keeps the run of lowest CPU per call. On a machine whose speed drifts
 * (a fixed JSON loop took 101 and 222 ms within an hour here), the slow runs are slowed by the machine, not by the
 * code: the lowest of several is the least disturbed, and a floor and a workload both kept this way are compared at
 * the machine's own best.
 */
export const lowestPhase = (target: Measured, prepare: Prepare, tries = 3): Promise<PhaseResult> =>
  keptPhase(
    target,
    prepare,
    tries,
    (run, kept) => run.cpuMsPer1000 < kept.cpuMsPer1000,
    () => false,
  );
