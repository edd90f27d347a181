/**
 * Rooms' rules every store applies, as pure functions: when a room has expired, who may claim one, what a kept
 * idempotency result answers, and when an agent's call brings it online. The SQL stores call these inside their
 * transaction (store/sql/rooms.ts, room-tx.ts); the Redis scripts carry the same rules in Lua (store/redis/
 * lua-prelude.ts), held to the same answers by the conformance suite.
 */
import { errors } from "./errors.ts";
import { LIMITS } from "./limits.ts";

/**
 * Expired when the room's lifetime (`ttlMs`, ROOM_TTL_DAYS; 0: for ever) has fully elapsed since its last use
 * (like a Redis key whose PX ran out).
 */
export const roomExpired = (lastActivity: number, now: number, ttlMs: number): boolean =>
  ttlMs > 0 && now - lastActivity >= ttlMs;

/** The same rule as a bound: a room is live at time t when its last activity is above this. */
export const liveAfter = (t: number, ttlMs: number): number =>
  ttlMs > 0 ? t - ttlMs : Number.MIN_SAFE_INTEGER;

/**
 * Refuses claiming an unowned room: for a caller that may not claim one (an invite: denied; its team's rooms need
 * not be counted), and for a team that already owns `owned` live rooms, its `limit` (roomLimit).
 */
export function checkRoomClaim(mayClaim: boolean | undefined, owned: number, limit: number): void {
  if (mayClaim === false) throw errors.denied();
  if (owned >= limit) throw errors.roomLimit(limit);
}

/**
 * Whether a write with an idempotency key answers with the result kept for it: kept less than
 * LIMITS.idempotencyKeepMs ago (an older one is forgotten: the key is free again); the same key with other
 * arguments (another fingerprint) is refused.
 */
export function replaysKept(
  kept: { fingerprint: string; at: number } | null,
  idempotency: { key: string; fingerprint: string },
  now: number,
): boolean {
  if (!kept || now - kept.at >= LIMITS.idempotencyKeepMs) return false;
  if (kept.fingerprint !== idempotency.fingerprint) throw errors.idempotencyMismatch(idempotency.key);
  return true;
}

/**
 * Whether an agent seen at t comes online (a presence signal for watchers): new to the room, back from
 * leave_room, or offline until now (not seen for LIMITS.presenceOnlineMs).
 */
export const comesOnline = (before: { lastSeen: number; leftAt: number | null } | null, t: number): boolean =>
  !before || before.leftAt !== null || t - before.lastSeen >= LIMITS.presenceOnlineMs;
