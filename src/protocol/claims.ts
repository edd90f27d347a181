/**
 * File claims (claim_files, release_files, list_claims, check_files): the records and the rules every driver
 * applies to the room's live claims. The SQL bodies call these functions; the Redis claim script repeats the
 * conflict and limit rule in Lua (store/redis/lua-claims.ts G.decide, which lua-rooms.test.ts runs beside
 * fileClaimConflicts on generated cases) and the rest is computed here from the live claims it returns.
 *
 * - A claim is one normalised path or glob (paths.ts) held by one agent until its expiry. Claims of different
 *   agents never overlap while live: claim_files is all or nothing, and any overlap with another agent's live
 *   claim is a conflict (an answer, not an error). Claims of one agent may overlap each other.
 * - Claiming a path you hold renews it (new TTL; the reason is replaced when one is given).
 * - The holder's calls renew its live claims like leases (expiry = now + the claim's TTL); a claim whose expiry
 *   is not after now has run out: reads ignore it and the next claim write records `files_claim_expired`.
 * - Lists are in UTF-8 byte order of the path, the one order SQLite, Lua and TS can all compute.
 */
import { RoomError } from "./errors.ts";
import { isPattern, patternsOverlap } from "./paths.ts";

/** A live claim. */
export interface FileClaim {
  /** The claimed path or glob, normalised. */
  path: string;
  heldBy: string;
  expiresAt: string;
  claimedAt: string;
  reason?: string;
}

export interface ClaimConflict {
  /** The requested path. */
  path: string;
  heldBy: string;
  /** The other agent's claim that overlaps it. */
  pattern: string;
  expiresAt: string;
}

export interface ClaimResult {
  claimed: { path: string; expiresAt: string }[];
  conflicts: ClaimConflict[];
}

export type FileState = "free" | "mine" | "held";

export interface FileCheck {
  path: string;
  state: FileState;
  /** For held: the agent holding it. */
  heldBy?: string;
  /** For held and mine: the claim covering it. */
  pattern?: string;
}

/** What leave_room released; the lists are sorted (tasks in plan order, the rest in byte order). */
export interface LeaveResult {
  agentId: string;
  roomExists: boolean;
  released: { tasks: string[]; paths: string[]; locks: string[] };
}

export const claimErrors = {
  limit: (max: number) =>
    new RoomError(
      "limit",
      `Claim limit reached: a room holds at most ${max} live file claims; release some, or claim a directory with "dir/**"`,
    ),
};

const encoder = new TextEncoder();

/** UTF-8 byte order (= code point order): what SQLite's BINARY collation and Lua's byte comparison give. */
export function byteOrder(a: string, b: string): number {
  if (a === b) return 0;
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const d = (x[i] as number) - (y[i] as number);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** patternsOverlap, with two concrete paths settled by equality first (the common case of a guard's check). */
export const overlaps = (a: string, b: string): boolean =>
  a === b || ((isPattern(a) || isPattern(b)) && patternsOverlap(a, b));

export const sortClaims = (claims: FileClaim[]): FileClaim[] =>
  claims.sort((a, b) => byteOrder(a.path, b.path));

/**
 * Every (requested path, other agent's live claim) pair that overlaps, sorted by path then pattern. `live` holds
 * live claims only.
 */
export function findConflicts(requested: readonly string[], agentId: string, live: readonly FileClaim[]) {
  const conflicts: ClaimConflict[] = [];
  for (const claim of live) {
    if (claim.heldBy === agentId) continue;
    for (const path of requested) {
      if (overlaps(path, claim.path)) {
        conflicts.push({ path, heldBy: claim.heldBy, pattern: claim.path, expiresAt: claim.expiresAt });
      }
    }
  }
  return sortConflicts(conflicts);
}

export const sortConflicts = (conflicts: ClaimConflict[]): ClaimConflict[] =>
  conflicts.sort((a, b) => byteOrder(a.path, b.path) || byteOrder(a.pattern, b.pattern));

/** The live claims that overlap `path` (for a concrete file: the claims covering it), in byte order. */
export function claimsOverlapping(path: string, live: readonly FileClaim[]): FileClaim[] {
  return sortClaims(live.filter((claim) => overlaps(path, claim.path)));
}

/**
 * check_files: per path, held (another agent's live claim overlaps it: the first in byte order is named), mine
 * (one of the caller's claims overlaps it — for a concrete file, covers it) or free.
 */
export function checkPaths(
  paths: readonly string[],
  agentId: string,
  live: readonly FileClaim[],
): FileCheck[] {
  return paths.map((path) => {
    const over = claimsOverlapping(path, live);
    const held = over.find((c) => c.heldBy !== agentId);
    if (held) return { path, state: "held", heldBy: held.heldBy, pattern: held.path };
    const mine = over[0];
    return mine ? { path, state: "mine", pattern: mine.path } : { path, state: "free" };
  });
}

/**
 * claim_files' refusals against the room's live claims (the caller's own included): the conflicts with other
 * agents' claims (a non-empty list refuses the whole claim, nothing changes), else the room's claim limit counting
 * only the paths the caller does not hold yet (claimErrors.limit). An empty list: the claim goes through.
 */
export function fileClaimConflicts(
  paths: readonly string[],
  agentId: string,
  live: readonly FileClaim[],
  maxClaims: number,
): ClaimConflict[] {
  const conflicts = findConflicts(paths, agentId, live);
  if (conflicts.length > 0) return conflicts;
  const held = new Set(live.filter((c) => c.heldBy === agentId).map((c) => c.path));
  const fresh = paths.filter((p) => !held.has(p)).length;
  if (live.length + fresh > maxClaims) throw claimErrors.limit(maxClaims);
  return [];
}
