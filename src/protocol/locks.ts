/**
 * Advisory locks with fencing tokens, as every store decides them: a resource is held while its holder is set and
 * its expiry is ahead; its fence only grows; a live plan lock keeps other agents from writing the plan. The SQL
 * stores call these inside their transaction (store/sql/locks.ts); the Redis scripts carry the same rules in Lua
 * (store/redis/lua-room.ts, lua-plan.ts), and store/redis/lua-rooms.test.ts and lua-plan.test.ts run both on the
 * same generated cases and require the same answers.
 */
import { errors } from "./errors.ts";
import type { LockState, Release } from "./records.ts";
import { iso } from "./time.ts";

/** A resource's lock as a store keeps it: its holder (null once released), its expiry (ms) and its fence. */
export interface LockHold {
  holder: string | null;
  expiresAt: number;
  fence: number;
}

/** What says whether a lock is held: its holder (null once released) and its expiry (ms). */
export type LockHolding = Pick<LockHold, "holder" | "expiresAt">;

/** A lock whose holder is set and whose expiry is still ahead at `now`. */
export const isHeld = <L extends LockHolding>(lock: L | null, now: number): lock is L & { holder: string } =>
  lock !== null && lock.holder !== null && lock.expiresAt > now;

/** Refuses a plan write while another agent holds a live plan lock (errors.planLocked); writes nothing. */
export function checkPlanLock(lock: LockHolding | null, agentId: string | undefined, now: number): void {
  if (isHeld(lock, now) && lock.holder !== agentId) throw errors.planLocked(lock.holder, iso(lock.expiresAt));
}

/**
 * acquire_lock against the resource's current lock: refused while another agent holds it (the real holder is
 * reported; nothing changes, not even the room's activity), else granted with the fence to keep — the holder's
 * renewal keeps it, a change of hands (a free, expired or released resource) raises it by one.
 */
export function lockAcquisition(
  resource: string,
  current: LockHold | null,
  agentId: string,
  now: number,
): { refused: LockState } | { fence: number } {
  if (isHeld(current, now)) {
    if (current.holder !== agentId) {
      const { holder, expiresAt, fence } = current;
      return { refused: { acquired: false, resource, holder, expiresAt: iso(expiresAt), fence } };
    }
    return { fence: current.fence };
  }
  return { fence: (current?.fence ?? 0) + 1 };
}

/**
 * release_lock against the resource's current lock: what it answers when nothing changes (no live lock, or
 * another agent's), or null when the caller holds it and it is released (the lock keeps its fence).
 */
export function lockRefusedRelease(current: LockHold | null, agentId: string, now: number): Release | null {
  if (!isHeld(current, now)) return { released: false };
  if (current.holder !== agentId)
    return { released: false, holder: current.holder, expiresAt: iso(current.expiresAt) };
  return null;
}
