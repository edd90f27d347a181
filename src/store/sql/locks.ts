/** Advisory locks with fencing tokens; the `plan` lock also guards plan writes. */
import { PLAN_LOCK } from "../../protocol/limits.ts";
import { checkPlanLock, type LockHold, lockAcquisition, lockRefusedRelease } from "../../protocol/locks.ts";
import type { LockInfo, LockState, Release } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import type { RoomScope } from "../types.ts";
import type { SqlParts } from "./rooms.ts";
import { type LockRow, toLockInfo } from "./rows.ts";
import type { Op } from "./run.ts";

/** A lock row as the rules read it. */
const holdOf = (row: LockRow | null): LockHold | null =>
  row && { holder: row.holder, expiresAt: row.expires_at, fence: row.fence };

export function createLocks({ sql, now, rooms, changes }: SqlParts) {
  const get = sql.query<LockRow, [string, string]>(
    "SELECT resource, holder, expires_at, fence FROM locks WHERE room_id = ? AND resource = ?",
  );
  // Keeps the row (and so the fence) across releases and expiries: the fence of a resource only grows.
  const put = sql.query<unknown, [string, string, string | null, number, number]>(
    `INSERT INTO locks (room_id, resource, holder, expires_at, fence) VALUES (?1, ?2, ?3, ?4, ?5)
     ON CONFLICT (room_id, resource) DO UPDATE
     SET holder = excluded.holder, expires_at = excluded.expires_at, fence = excluded.fence`,
  );
  const live = sql.query<LockRow & { holder: string }, [string, number]>(
    `SELECT resource, holder, expires_at, fence FROM locks
     WHERE room_id = ? AND holder IS NOT NULL AND expires_at > ? ORDER BY resource`,
  );

  return {
    /** Throws errors.planLocked when someone other than agentId holds a live `plan` lock. Writes nothing. */
    *assertPlanWritable(roomId: string, agentId: string | undefined): Op<void> {
      checkPlanLock(holdOf(yield* get.get(roomId, PLAN_LOCK)), agentId, now());
    },
    *acquireLock(scope: RoomScope, resource: string, agentId: string, ttlMs: number): Op<LockState> {
      const room = yield* rooms.check(scope);
      const t = now();
      const current = holdOf(room ? yield* get.get(scope.roomId, resource) : null);
      const outcome = lockAcquisition(resource, current, agentId, t);
      if ("refused" in outcome) return outcome.refused;
      yield* rooms.claim(scope);
      const { fence } = outcome;
      const expiresAt = t + ttlMs;
      yield* put.run(scope.roomId, resource, agentId, expiresAt, fence);
      changes.signal(scope.roomId, "locks");
      return { acquired: true, resource, holder: agentId, expiresAt: iso(expiresAt), fence };
    },
    /** Compare-and-delete inside one transaction; releasing nothing writes (and claims) nothing. */
    *releaseLock(scope: RoomScope, resource: string, agentId: string): Op<Release> {
      const room = yield* rooms.check(scope);
      const lock = holdOf(room ? yield* get.get(scope.roomId, resource) : null);
      const refused = lockRefusedRelease(lock, agentId, now());
      if (refused || !lock) return refused ?? { released: false };
      yield* rooms.claim(scope);
      yield* put.run(scope.roomId, resource, null, lock.expiresAt, lock.fence);
      changes.signal(scope.roomId, "locks");
      return { released: true };
    },
    *listLocks(scope: RoomScope): Op<LockInfo[]> {
      const room = yield* rooms.read(scope);
      return room ? (yield* live.all(room.room_id, now())).map(toLockInfo) : [];
    },
  };
}

export type Locks = ReturnType<typeof createLocks>;
