/**
 * Sliding-window rate limiting, as the SQLite driver's (src/store/sqlite/rate.ts): one rate_hits row per admitted
 * request and a kept count per bucket, inside the caller's write transaction, which holds the bucket's advisory
 * lock (`rate:<bucket>`), so concurrent charges of one bucket from any number of processes are exact.
 */
import type { Clock } from "../../protocol/time.ts";
import type { RateDecision, RateRequest } from "../access-types.ts";
import { prefixRange, RATE_HITS_KEEP_MS } from "../rate-buckets.ts";
import type { Pg } from "./db.ts";

export { inviteBucket, invitePrefix, teamBucket } from "../rate-buckets.ts";

const PRUNE_BATCH = 200;

export function createRate(pg: Pg, now: Clock) {
  const forget = pg.query<unknown, [string, number]>("DELETE FROM rate_hits WHERE bucket = ? AND at <= ?");
  const counted = pg.query<{ n: number }, [string]>("SELECT n FROM rate_counts WHERE bucket = ?");
  const oldest = pg.query<{ at: number }, [string]>(
    "SELECT at FROM rate_hits WHERE bucket = ? ORDER BY at LIMIT 1",
  );
  const hit = pg.query<unknown, [string, number]>("INSERT INTO rate_hits (bucket, at) VALUES (?, ?)");
  const setCount = pg.query<unknown, [string, number, number]>(
    `INSERT INTO rate_counts (bucket, n, last_at) VALUES (?1, ?2, ?3)
     ON CONFLICT (bucket) DO UPDATE SET n = excluded.n, last_at = greatest(rate_counts.last_at, excluded.last_at)`,
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
  const dropBucketHits = pg.query<unknown, [string]>("DELETE FROM rate_hits WHERE bucket = ?");
  const dropBucketCount = pg.query<unknown, [string]>("DELETE FROM rate_counts WHERE bucket = ?");

  /** Charges one request to `bucket` (inside a write transaction; takes the bucket's lock). */
  async function charge(bucket: string, rate: RateRequest): Promise<RateDecision> {
    await pg.lock(`rate:${bucket}`);
    const t = now();
    const expired = (await forget.run(bucket, t - rate.windowMs)).changes;
    const row = await counted.get(bucket);
    const count = (row?.n ?? 0) - expired;
    const resetMs = async () => Math.max(1, ((await oldest.get(bucket))?.at ?? t) + rate.windowMs - t);
    if (count >= rate.limit) {
      await setCount.run(bucket, count, t - rate.windowMs);
      return { allowed: false, limit: rate.limit, remaining: 0, resetMs: await resetMs() };
    }
    await hit.run(bucket, t);
    await setCount.run(bucket, count + 1, t);
    const remaining = rate.limit - count - 1;
    return { allowed: true, limit: rate.limit, remaining, resetMs: remaining > 0 ? 0 : await resetMs() };
  }

  return {
    charge,
    /** Forgets every bucket starting with prefix (a deleted room's or invite's windows). */
    async dropPrefix(prefix: string): Promise<void> {
      await dropHits.run(...prefixRange(prefix));
      await dropCounts.run(...prefixRange(prefix));
    },
    /** Drops up to PRUNE_BATCH whole buckets idle for RATE_HITS_KEEP_MS; returns how many. */
    async pruneBatch(): Promise<number> {
      const buckets = await idle.all(now() - RATE_HITS_KEEP_MS, PRUNE_BATCH);
      for (const { bucket } of buckets) {
        await pg.lock(`rate:${bucket}`);
        await dropBucketHits.run(bucket);
        await dropBucketCount.run(bucket);
      }
      return buckets.length;
    },
  };
}

export type Rate = ReturnType<typeof createRate>;
