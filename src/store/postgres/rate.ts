/**
 * Sliding-window rate limiting, as the SQLite driver's (src/store/sqlite/rate.ts): one rate_hits row per admitted
 * request and a kept count per bucket. A charge is one statement, the function roomd_rate_charge (schema.ts),
 * which locks the bucket's rate_counts row, so concurrent charges of one bucket from any number of processes are
 * exact. Every request of a team is charged to one bucket: a charge made of several statements, each a round
 * trip under that lock, would cap a team at a few hundred requests a second.
 */
import type { Clock } from "../../protocol/time.ts";
import type { RateDecision, RateRequest } from "../access-types.ts";
import { prefixRange, RATE_HITS_KEEP_MS } from "../rate-buckets.ts";
import type { Pg } from "./db.ts";

export { inviteBucket, invitePrefix, teamBucket } from "../rate-buckets.ts";

const PRUNE_BATCH = 200;

/** What roomd_rate_charge returns (and roomd_rate_charge_pair, with `shown`). */
export interface ChargeRow {
  allowed: boolean;
  remaining: number;
  reset_ms: number;
  /** roomd_rate_charge_pair: the window the answer describes, "team" or "agent". */
  shown?: string | null;
}

export function createRate(pg: Pg, now: Clock) {
  const charged = pg.query<ChargeRow, [string, number, number, number]>(
    "SELECT allowed, remaining, reset_ms FROM roomd_rate_charge(?, ?, ?, ?)",
  );
  const dropHits = pg.query<unknown, [string, string]>(
    "DELETE FROM rate_hits WHERE bucket >= ? AND bucket < ?",
  );
  const dropCounts = pg.query<unknown, [string, string]>(
    "DELETE FROM rate_counts WHERE bucket >= ? AND bucket < ?",
  );
  const idle = pg.query<{ bucket: string }, [number, number]>(
    "SELECT bucket FROM rate_counts WHERE last_at <= ? LIMIT ?",
  );
  // Locks the count row and checks it is still idle: a charge in between keeps its window.
  const dropIdleCount = pg.query<{ bucket: string }, [string, number]>(
    "DELETE FROM rate_counts WHERE bucket = ? AND last_at <= ? RETURNING bucket",
  );
  const dropBucketHits = pg.query<unknown, [string]>("DELETE FROM rate_hits WHERE bucket = ?");

  /**
   * Charges one request to `bucket`: one statement, in the caller's transaction when there is one, else a
   * transaction of its own.
   */
  async function charge(bucket: string, rate: RateRequest): Promise<RateDecision> {
    const row = await charged.get(bucket, now(), rate.windowMs, rate.limit);
    if (!row) throw new Error("rate: roomd_rate_charge returned no row");
    return decision(row, rate);
  }

  const chargedPair = pg.query<ChargeRow, [string, string | null, number, number, number, number]>(
    "SELECT allowed, remaining, reset_ms, shown FROM roomd_rate_charge_pair(?, ?, ?, ?, ?, ?)",
  );

  /**
   * Charges one request to the team's `bucket` and, when `agent` is given, to the agent's bucket too, both or
   * neither (protocol/rate-pair.ts): one statement, roomd_rate_charge_pair (schema.ts V4).
   */
  async function chargePair(
    bucket: string,
    agent: string | undefined,
    rate: RateRequest,
  ): Promise<RateDecision> {
    if (agent === undefined || !rate.agent) return charge(bucket, rate);
    const row = await chargedPair.get(bucket, agent, now(), rate.windowMs, rate.limit, rate.agent.limit);
    if (!row) throw new Error("rate: roomd_rate_charge_pair returned no row");
    return decision(row, rate);
  }

  /** The decision from roomd_rate_charge's (or _pair's) columns (also when a caller's statement joined it). */
  function decision(row: ChargeRow, rate: RateRequest): RateDecision {
    if (typeof row.allowed !== "boolean") throw new Error("rate: the charge did not run");
    const agent = row.shown === "agent" && rate.agent !== undefined;
    const limit = agent ? (rate.agent?.limit as number) : rate.limit;
    const spent = row.allowed || !row.shown || !rate.agent ? {} : { spent: row.shown as "team" | "agent" };
    return {
      allowed: row.allowed,
      ...spent,
      limit,
      remaining: Number(row.remaining),
      resetMs: Number(row.reset_ms),
    };
  }

  return {
    charge,
    chargePair,
    decision,
    /** Forgets every bucket starting with prefix (a deleted room's or invite's windows). */
    async dropPrefix(prefix: string): Promise<void> {
      await dropHits.run(...prefixRange(prefix));
      await dropCounts.run(...prefixRange(prefix));
    },
    /** Drops up to PRUNE_BATCH whole buckets idle for RATE_HITS_KEEP_MS (inside a write); returns how many. */
    async pruneBatch(): Promise<number> {
      const before = now() - RATE_HITS_KEEP_MS;
      const buckets = await idle.all(before, PRUNE_BATCH);
      for (const { bucket } of buckets) {
        if (await dropIdleCount.get(bucket, before)) await dropBucketHits.run(bucket);
      }
      return buckets.length;
    },
  };
}

export type Rate = ReturnType<typeof createRate>;
