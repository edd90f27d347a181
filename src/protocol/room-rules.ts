/**
 * Rules of a room's shared records, as pure functions every driver applies inside its atomic step: how many file
 * claims a room holds, who may delete an event, context versions and who hears of a context change, and what
 * acquiring or releasing a lock does. The Redis scripts carry the same rules in Lua (store/redis/lua-claims.ts,
 * lua-events.ts, lua-context.ts, lua-room.ts), and store/redis/lua-rooms.test.ts runs both on the same generated
 * cases and requires the same answers.
 */
import { type ClaimConflict, claimErrors, type FileClaim, findConflicts } from "./claims.ts";
import { errors } from "./errors.ts";
import { isPersonName } from "./principal.ts";
import { BROADCAST } from "./records.ts";
import { toolErrors } from "./tool-errors.ts";

/**
 * claim_files of `requested` by `agentId` against the room's live claims: the conflicts with other agents' claims
 * (sorted; the claim then changes nothing), or none — refused when the room would then hold more than `max` live
 * claims (the caller's own claims renewed count once).
 */
export function claimFilesDecision(
  requested: readonly string[],
  agentId: string,
  live: readonly FileClaim[],
  max: number,
): ClaimConflict[] {
  const conflicts = findConflicts(requested, agentId, live);
  if (conflicts.length > 0) return conflicts;
  const held = new Set(live.filter((c) => c.heldBy === agentId).map((c) => c.path));
  const fresh = requested.filter((p) => !held.has(p)).length;
  if (live.length + fresh > max) throw claimErrors.limit(max);
  return [];
}

/**
 * Refuses deleting an event roomd appended (only events agents posted can be deleted), a person's event by anyone
 * but that person, and — when `onlyAuthor` is given — an event someone else sent.
 */
export function checkEventDeletion(
  event: { id: string; type: string; from: string },
  posted: boolean,
  by: string,
  onlyAuthor: string | undefined,
): void {
  if (!posted) throw toolErrors.roomdEvent(event.id, event.type);
  if (isPersonName(event.from) && by !== event.from) throw toolErrors.personsEvent(event.id, event.from);
  if (onlyAuthor !== undefined && event.from !== onlyAuthor) throw toolErrors.notAuthor(event.id, event.from);
}

/** Refuses a change of a context entry that expected another version than its current one. */
export function checkContextVersion(
  entry: { id: string; version: string; author: string },
  expectedVersion: string | undefined,
): void {
  if (expectedVersion !== undefined && expectedVersion !== entry.version) {
    throw errors.contextVersionConflict(entry);
  }
}

/** The version after "1.N": "1.<N + 1>" (the minor number counts updates: 1.9 → 1.10, not a decimal). */
export const nextContextVersion = (version: string): string =>
  `1.${Number(version.slice(version.indexOf(".") + 1)) + 1}`;

/** Context events go to the single consumer, or to everyone when there are several; none when there is none. */
export const contextAddressee = (consumers: readonly string[]): string | null =>
  consumers.length === 0 ? null : consumers.length === 1 ? (consumers[0] ?? BROADCAST) : BROADCAST;

/** A lock as a store keeps it: its holder and its expiry (ms). */
export interface HeldLock {
  holder: string;
  expiresAt: number;
}

/**
 * What acquire_lock does at `now`: "held" (another agent's live lock: refused, nothing changes), "renew" (the
 * caller's own live lock: its fence kept) or "take" (free, expired or released: a change of hands, the fence
 * grows).
 */
export function lockAcquisition(
  lock: HeldLock | null,
  agentId: string,
  now: number,
): "held" | "renew" | "take" {
  if (lock !== null && lock.expiresAt > now) return lock.holder === agentId ? "renew" : "held";
  return "take";
}

/** What release_lock does at `now`: "free" (no live lock), "held" (another agent's) or "release". */
export function lockRelease(
  lock: HeldLock | null,
  agentId: string,
  now: number,
): "free" | "held" | "release" {
  if (lock === null || lock.expiresAt <= now) return "free";
  return lock.holder === agentId ? "release" : "held";
}
