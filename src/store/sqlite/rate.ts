/**
 * Sliding-window rate limiting: one rate_hits row per admitted request, counted over the last windowMs inside
 * the caller's write transaction (BEGIN IMMEDIATE serialises every limiter of the file, so counts are exact).
 */
import type { Database } from "bun:sqlite";
import type { Clock } from "../../protocol/time.ts";
import type { RateDecision, RateRequest } from "../access-types.ts";

/** Hits older than this are pruned by the sweep; every window in use is shorter. */
export const RATE_HITS_KEEP_MS = 60 * 60 * 1000;

/** How many old hits one prune statement deletes, so the sweep never holds the write lock for long. */
const PRUNE_BATCH = 5000;

export const teamBucket = (teamId: string, bucket: RateRequest["bucket"]) => `team:${teamId}:${bucket}`;
export const inviteBucket = (roomId: string, tokenId: string, bucket: RateRequest["bucket"]) =>
  `invite:${roomId}:${tokenId}:${bucket}`;
/** Prefix of every bucket of a room's invites, or of one invite when tokenId is given. */
export const invitePrefix = (roomId: string, tokenId?: string) =>
  tokenId === undefined ? `invite:${roomId}:` : `invite:${roomId}:${tokenId}:`;

/** [prefix, upper) bounds every string starting with `prefix` (which ends with ":"); an index range, unlike LIKE. */
export const prefixRange = (prefix: string): [string, string] => [prefix, `${prefix.slice(0, -1)};`];

export function createRate(db: Database, now: Clock) {
  const forget = db.query<unknown, [string, number]>("DELETE FROM rate_hits WHERE bucket = ? AND at <= ?");
  const window = db.query<{ c: number; oldest: number | null }, [string]>(
    "SELECT count(*) AS c, min(at) AS oldest FROM rate_hits WHERE bucket = ?",
  );
  const hit = db.query<unknown, [string, number]>("INSERT INTO rate_hits (bucket, at) VALUES (?, ?)");
  const dropRange = db.query<unknown, [string, string]>(
    "DELETE FROM rate_hits WHERE bucket >= ? AND bucket < ?",
  );
  // rowid order is admission order, so the oldest hits come first and the subquery stops early.
  const pruneBatch = db.query<unknown, [number, number]>(
    "DELETE FROM rate_hits WHERE rowid IN (SELECT rowid FROM rate_hits WHERE at <= ? LIMIT ?)",
  );

  /** Charges one request to `bucket` (call inside a write transaction). A refused request is not recorded. */
  function charge(bucket: string, rate: RateRequest): RateDecision {
    const t = now();
    forget.run(bucket, t - rate.windowMs);
    const { c: count, oldest } = window.get(bucket) ?? { c: 0, oldest: null };
    // The window has room again when its oldest hit leaves it; never report 0 while it is full.
    const resetFrom = (first: number) => Math.max(1, first + rate.windowMs - t);
    if (count >= rate.limit) {
      return { allowed: false, limit: rate.limit, remaining: 0, resetMs: resetFrom(oldest ?? t) };
    }
    hit.run(bucket, t);
    const remaining = rate.limit - count - 1;
    return {
      allowed: true,
      limit: rate.limit,
      remaining,
      resetMs: remaining > 0 ? 0 : resetFrom(oldest ?? t),
    };
  }

  return {
    charge,
    /** Forgets every bucket starting with prefix (a deleted room's or invite's windows). */
    dropPrefix(prefix: string): void {
      dropRange.run(...prefixRange(prefix));
    },
    /** Deletes up to PRUNE_BATCH hits older than RATE_HITS_KEEP_MS; returns how many (call inside a write tx). */
    pruneBatch(): number {
      return pruneBatch.run(now() - RATE_HITS_KEEP_MS, PRUNE_BATCH).changes;
    },
  };
}

export type Rate = ReturnType<typeof createRate>;
