/**
 * Sliding-window rate limiting: one rate_hits row per admitted request, inside the caller's write transaction
 * (BEGIN IMMEDIATE serialises every limiter of the file, so decisions are exact). The window's size is kept in
 * rate_counts and reduced by the hits that fall out of the window as they are deleted, so a charge never counts
 * rows: each hit is inserted once and deleted once, whatever the limit (a count(*) per request grew with it).
 */
import type { Database } from "bun:sqlite";
import { refusingWindow, shownWindow } from "../../protocol/rate-pair.ts";
import type { Clock } from "../../protocol/time.ts";
import type { RateDecision, RateRequest } from "../access-types.ts";
import { prefixRange, RATE_HITS_KEEP_MS } from "../rate-buckets.ts";

export { inviteBucket, invitePrefix, prefixRange, RATE_HITS_KEEP_MS, teamBucket } from "../rate-buckets.ts";

/** How many idle buckets one prune statement drops, so the sweep never holds the write lock for long. */
const PRUNE_BATCH = 200;

export function createRate(db: Database, now: Clock) {
  const forget = db.query<unknown, [string, number]>("DELETE FROM rate_hits WHERE bucket = ? AND at <= ?");
  const counted = db.query<{ n: number }, [string]>("SELECT n FROM rate_counts WHERE bucket = ?");
  const oldest = db.query<{ at: number }, [string]>(
    "SELECT at FROM rate_hits WHERE bucket = ? ORDER BY at LIMIT 1",
  );
  const hit = db.query<unknown, [string, number]>("INSERT INTO rate_hits (bucket, at) VALUES (?, ?)");
  const setCount = db.query<unknown, [string, number, number]>(
    `INSERT INTO rate_counts (bucket, n, last_at) VALUES (?1, ?2, ?3)
     ON CONFLICT (bucket) DO UPDATE SET n = excluded.n, last_at = max(last_at, excluded.last_at)`,
  );
  const dropHits = db.query<unknown, [string, string]>(
    "DELETE FROM rate_hits WHERE bucket >= ? AND bucket < ?",
  );
  const dropCounts = db.query<unknown, [string, string]>(
    "DELETE FROM rate_counts WHERE bucket >= ? AND bucket < ?",
  );
  const idle = db.query<{ bucket: string }, [number, number]>(
    "SELECT bucket FROM rate_counts WHERE last_at <= ? LIMIT ?",
  );
  const dropBucketHits = db.query<unknown, [string]>("DELETE FROM rate_hits WHERE bucket = ?");
  const dropBucketCount = db.query<unknown, [string]>("DELETE FROM rate_counts WHERE bucket = ?");

  /** The window of `bucket` as it stands now (expired hits forgotten), and how to answer for it. */
  function measure(bucket: string, rate: RateRequest, limit: number, t: number) {
    const expired = forget.run(bucket, t - rate.windowMs).changes;
    const row = counted.get(bucket);
    // Hits and their count are written together, so a bucket without a count row has no hits either.
    const count = (row?.n ?? 0) - expired;
    // The window has room again when its oldest hit leaves it; never report 0 while it is full.
    const resetMs = () => Math.max(1, (oldest.get(bucket)?.at ?? t) + rate.windowMs - t);
    return {
      count,
      limit,
      /** Keeps the count without this request (refused), recording that the window was looked at. */
      refuse(): RateDecision {
        setCount.run(bucket, count, t - rate.windowMs);
        return { allowed: false, limit, remaining: 0, resetMs: resetMs() };
      },
      admit(): RateDecision {
        hit.run(bucket, t);
        setCount.run(bucket, count + 1, t);
        const remaining = limit - count - 1;
        return { allowed: true, limit, remaining, resetMs: remaining > 0 ? 0 : resetMs() };
      },
    };
  }

  /** Charges one request to `bucket` (call inside a write transaction). A refused request is not recorded. */
  function charge(bucket: string, rate: RateRequest): RateDecision {
    const window = measure(bucket, rate, rate.limit, now());
    return window.count >= rate.limit ? window.refuse() : window.admit();
  }

  /**
   * Charges one request to the team's `bucket` and, when `agent` is given, to the agent's bucket too, both or
   * neither (protocol/rate-pair.ts; call inside a write transaction).
   */
  function chargePair(bucket: string, agent: string | undefined, rate: RateRequest): RateDecision {
    if (agent === undefined || !rate.agent) return charge(bucket, rate);
    const t = now();
    const team = measure(bucket, rate, rate.limit, t);
    const own = measure(agent, rate, rate.agent.limit, t);
    const refusing = refusingWindow(team, own);
    if (refusing !== null) {
      const [teamDecision, agentDecision] = [team.refuse(), own.refuse()];
      return { ...(refusing === "team" ? teamDecision : agentDecision), spent: refusing };
    }
    const shown = shownWindow(team, own);
    const [teamDecision, agentDecision] = [team.admit(), own.admit()];
    return shown === "team" ? teamDecision : agentDecision;
  }

  return {
    charge,
    chargePair,
    /** Forgets every bucket starting with prefix (a deleted room's or invite's windows). */
    dropPrefix(prefix: string): void {
      dropHits.run(...prefixRange(prefix));
      dropCounts.run(...prefixRange(prefix));
    },
    /**
     * Drops up to PRUNE_BATCH whole buckets idle for RATE_HITS_KEEP_MS; returns how many (call inside a write
     * tx). Whole buckets only: removing some hits of a live bucket behind charge()'s back would skew its count.
     */
    pruneBatch(): number {
      const buckets = idle.all(now() - RATE_HITS_KEEP_MS, PRUNE_BATCH);
      for (const { bucket } of buckets) {
        dropBucketHits.run(bucket);
        dropBucketCount.run(bucket);
      }
      return buckets.length;
    },
  };
}

export type Rate = ReturnType<typeof createRate>;
