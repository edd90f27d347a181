/** Advisory locks with fencing tokens; the `plan` lock also guards plan writes. */
import { errors } from "../../protocol/errors.ts";
import { PLAN_LOCK } from "../../protocol/limits.ts";
import type { LockInfo, LockState, Release } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import type { RoomScope } from "../types.ts";
import type { SqlParts } from "./rooms.ts";
import { isLive, type LockRow, toLockInfo } from "./rows.ts";
import type { Op } from "./run.ts";

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
      const row = yield* get.get(roomId, PLAN_LOCK);
      if (isLive(row, now()) && row.holder !== agentId) {
        throw errors.planLocked(row.holder, iso(row.expires_at));
      }
    },
    *acquireLock(scope: RoomScope, resource: string, agentId: string, ttlMs: number): Op<LockState> {
      const room = yield* rooms.check(scope);
      const t = now();
      const row = room ? yield* get.get(scope.roomId, resource) : null;
      if (isLive(row, t) && row.holder !== agentId) {
        // Held by another: report the real holder and change nothing (not even the room's activity).
        return {
          acquired: false,
          resource,
          holder: row.holder,
          expiresAt: iso(row.expires_at),
          fence: row.fence,
        };
      }
      yield* rooms.claim(scope);
      // Renewal keeps the fence; taking a free, expired or released resource is a change of hands.
      const fence = isLive(row, t) ? row.fence : (row?.fence ?? 0) + 1;
      const expiresAt = t + ttlMs;
      yield* put.run(scope.roomId, resource, agentId, expiresAt, fence);
      changes.signal(scope.roomId, "locks");
      return { acquired: true, resource, holder: agentId, expiresAt: iso(expiresAt), fence };
    },
    /** Compare-and-delete inside one transaction; releasing nothing writes (and claims) nothing. */
    *releaseLock(scope: RoomScope, resource: string, agentId: string): Op<Release> {
      const room = yield* rooms.check(scope);
      const row = room ? yield* get.get(scope.roomId, resource) : null;
      if (!isLive(row, now())) return { released: false };
      if (row.holder !== agentId)
        return { released: false, holder: row.holder, expiresAt: iso(row.expires_at) };
      yield* rooms.claim(scope);
      yield* put.run(scope.roomId, resource, null, row.expires_at, row.fence);
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
