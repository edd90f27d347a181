/**
 * Room rows: ownership (first writing team), expiry (ROOM_TTL after last_activity), the room limit, the per-room
 * counters and purging. Every operation goes through read() or check()+claim(), so ownership is enforced in one
 * place. A write runs alone on its room (SQLite: the file's write lock; PostgreSQL: the room's advisory lock), and a
 * claim also holds the team's records (Dialect.lockTeam), so the room count it checks is exact across processes.
 */
import { errors } from "../../protocol/errors.ts";
import { LIMITS } from "../../protocol/limits.ts";
import type { TaskStatus } from "../../protocol/records.ts";
import { checkRoomClaim, liveAfter, roomExpired } from "../../protocol/room-rules.ts";
import type { StoreLimits } from "../access-types.ts";
import { invitePrefix } from "../rate-buckets.ts";
import type { RoomScope } from "../types.ts";
import type { SqlBase } from "./parts.ts";
import type { RoomRow } from "./rows.ts";
import type { Op } from "./run.ts";

export type { RoomRow };

type Counter = "task_n" | "ctx_n" | "ctx_seq" | "event_seq";

/** Rooms expired by the time of a sweep, listed at most this many at a time. */
const EXPIRED_BATCH = 200;

/**
 * Reads refresh last_activity only when it is older than this, and outside their transaction, so a read stays a
 * read: at most one small UPDATE per room per minute, whatever the room's size.
 */
const READ_TOUCH_AFTER_MS = 60_000;

export function createRooms({ sql, now, changes, dialect }: SqlBase, limits: StoreLimits) {
  // How long an idle room lives (ROOM_TTL_DAYS; 0: for ever, as with ARCHIVE_DIR, where the archiver removes it).
  const ttlMs = limits.roomTtlMs ?? LIMITS.roomTtlMs;
  const isExpired = (room: { last_activity: number }, t: number) => roomExpired(room.last_activity, t, ttlMs);
  const select = sql.query<RoomRow, [string]>("SELECT * FROM rooms WHERE room_id = ?");
  // check() ran first in the same transaction, so an existing row is the team's own live room.
  const refresh = sql.query<RoomRow, [number, string, string]>(
    "UPDATE rooms SET last_activity = ?1 WHERE room_id = ?2 AND owner = ?3 RETURNING *",
  );
  // A new room starts a run of plan revisions of its own (task-cache.ts): a plan kept of an earlier room of the same
  // id is never taken for this one's.
  const insert = sql.query<RoomRow, [string, string, number, string]>(
    "INSERT INTO rooms (room_id, owner, created_at, last_activity, plan_base) VALUES (?1, ?2, ?3, ?3, ?4) RETURNING *",
  );
  const ownedCount = sql.query<{ c: number }, [string, number]>(
    "SELECT count(*) AS c FROM rooms WHERE owner = ? AND last_activity > ?",
  );
  const touch = sql.query<unknown, [number, string, number]>(
    "UPDATE rooms SET last_activity = ?1 WHERE room_id = ?2 AND last_activity < ?3",
  );
  const counters = {
    task_n: sql.query<{ v: number }, [string]>(
      "UPDATE rooms SET task_n = task_n + 1 WHERE room_id = ? RETURNING task_n AS v",
    ),
    ctx_n: sql.query<{ v: number }, [string]>(
      "UPDATE rooms SET ctx_n = ctx_n + 1 WHERE room_id = ? RETURNING ctx_n AS v",
    ),
    ctx_seq: sql.query<{ v: number }, [string]>(
      "UPDATE rooms SET ctx_seq = ctx_seq + 1 WHERE room_id = ? RETURNING ctx_seq AS v",
    ),
    event_seq: sql.query<{ v: number }, [string]>(
      "UPDATE rooms SET event_seq = event_seq + 1 WHERE room_id = ? RETURNING event_seq AS v",
    ),
  };
  const statusCounts = sql.query<unknown, [string, number, number, number, number]>(
    `UPDATE rooms SET n_pending = n_pending + ?2, n_in_progress = n_in_progress + ?3, n_done = n_done + ?4,
     n_blocked = n_blocked + ?5 WHERE room_id = ?1`,
  );
  const contextCount = sql.query<unknown, [string, number]>(
    "UPDATE rooms SET n_contexts = n_contexts + ?2 WHERE room_id = ?1",
  );
  const planTouched = sql.query<unknown, [number, string]>(
    "UPDATE rooms SET plan_created_at = coalesce(plan_created_at, ?1), plan_updated_at = ?1 WHERE room_id = ?2",
  );
  const purgeStmts = dialect.roomTables.map((table) => sql.query(`DELETE FROM ${table} WHERE room_id = ?`));
  const expiredIds = sql.query<{ room_id: string }, [number, number]>(
    "SELECT room_id FROM rooms WHERE last_activity <= ? LIMIT ?",
  );

  /** Rooms a read found idle for over READ_TOUCH_AFTER_MS: refreshed after the read, outside it (touchAfterRead). */
  const pendingTouch = new Set<string>();

  /** Deletes every row of the room, its invites and its invites' rate windows (inside a write). */
  function* purge(roomId: string): Op<void> {
    for (const stmt of purgeStmts) yield* stmt.run(roomId);
    // The room's log is gone: seq 0 tells its watchers to drop what they know of it.
    changes.appended(roomId, 0);
    yield* dialect.dropRateWindows(invitePrefix(roomId));
  }

  /** How many live rooms the team owns, holding its records still (Dialect.lockTeam) so the count stays exact. */
  function* ownedLive(teamId: string): Op<number> {
    yield* dialect.lockTeam(teamId);
    return (yield* ownedCount.get(teamId, liveAfter(now(), ttlMs)))?.c ?? 0;
  }

  /** Throws denied for another team's live room; null when the room is absent or expired. */
  function visible(scope: RoomScope, room: RoomRow | null): RoomRow | null {
    if (!room || isExpired(room, now())) return null;
    if (room.owner !== scope.teamId) throw errors.denied();
    return room;
  }

  return {
    /** For read operations: the live room of this team, or null (read as empty). Never writes. */
    *read(scope: RoomScope): Op<RoomRow | null> {
      const room = visible(scope, yield* select.get(scope.roomId));
      if (room && !scope.observe && now() - room.last_activity > READ_TOUCH_AFTER_MS)
        pendingTouch.add(room.room_id);
      return room;
    },
    /** The rooms reads found due for a refresh since the last call (each driver refreshes them after the read). */
    takeTouches(): string[] {
      if (pendingTouch.size === 0) return [];
      const ids = [...pendingTouch];
      pendingTouch.clear();
      return ids;
    },
    /** Refreshes last_activity of a room a read found idle (touchAfterRead), unless a write did meanwhile. */
    *touch(roomId: string): Op<void> {
      const t = now();
      yield* touch.run(t, roomId, t - READ_TOUCH_AFTER_MS);
    },
    /**
     * For write operations, first step: throws denied for another team's room; purges an expired room (inside
     * the caller's transaction, so a later failure restores it). Returns the live room or null; claims nothing.
     */
    *check(scope: RoomScope): Op<RoomRow | null> {
      const raw = yield* select.get(scope.roomId);
      if (raw && isExpired(raw, now())) {
        yield* purge(scope.roomId);
        return null;
      }
      return visible(scope, raw);
    },
    /**
     * Sets last_activity = now, claiming the room for the scope's team when unowned. Call only when writing, after
     * check(). A claim is refused with denied when scope.mayClaim is false (invites never claim) and with
     * roomLimit when the team owns roomsPerTeam live rooms.
     */
    *claim(scope: RoomScope): Op<RoomRow> {
      const t = now();
      const own = yield* refresh.get(t, scope.roomId, scope.teamId);
      if (own) return own;
      const owned = scope.mayClaim === false ? 0 : yield* ownedLive(scope.teamId);
      checkRoomClaim(scope.mayClaim, owned, limits.roomsPerTeam);
      const room = yield* insert.get(scope.roomId, scope.teamId, t, crypto.randomUUID());
      if (!room) throw new Error(`rooms: claim of ${scope.roomId} returned no row`);
      return room;
    },
    /** The live room (any owner) or null; never writes. For the operator and public views. */
    *live(roomId: string): Op<RoomRow | null> {
      const room = yield* select.get(roomId);
      return room && !isExpired(room, now()) ? room : null;
    },
    /** The team's live room; throws denied when it is unowned, expired or another team's. Never writes. */
    *owned(scope: { roomId: string; teamId: string }): Op<RoomRow> {
      const room = yield* select.get(scope.roomId);
      if (!room || isExpired(room, now()) || room.owner !== scope.teamId) throw errors.denied();
      return room;
    },
    purge,
    /** Increments one per-room counter and returns its new value (the room must be claimed). */
    *next(roomId: string, counter: Counter): Op<number> {
      const row = yield* counters[counter].get(roomId);
      if (!row) throw new Error(`rooms: counter ${counter} of ${roomId} missing`);
      return row.v;
    },
    /** Keeps the task counts by status: one task left `from` (if any) and entered `to` (if any). */
    *taskMoved(roomId: string, from: TaskStatus | null, to: TaskStatus | null): Op<void> {
      const delta = (s: TaskStatus) => (s === to ? 1 : 0) - (s === from ? 1 : 0);
      yield* statusCounts.run(
        roomId,
        delta("pending"),
        delta("in_progress"),
        delta("done"),
        delta("blocked"),
      );
    },
    /** Keeps the context entry count. */
    *contextsChanged(roomId: string, by: number): Op<void> {
      yield* contextCount.run(roomId, by);
    },
    /** Records a plan change at time t (sets created_at on the first). */
    *planChanged(roomId: string, t: number): Op<void> {
      yield* planTouched.run(t, roomId);
    },
    /** A room is live at time t when its last_activity is above this (SQL's form of isExpired). */
    liveAfter: (t: number): number => liveAfter(t, ttlMs),
    /** Whether the room's lifetime has run out at time t. */
    isExpired,
    /** Ids of up to EXPIRED_BATCH expired rooms (none when rooms live for ever), for the sweep to purge. */
    *expired(): Op<string[]> {
      if (ttlMs === 0) return [];
      return (yield* expiredIds.all(now() - ttlMs, EXPIRED_BATCH)).map((r) => r.room_id);
    },
  };
}

export type Rooms = ReturnType<typeof createRooms>;

/** What every operation body needs: its driver's parts and the room gate. */
export interface SqlParts extends SqlBase {
  rooms: Rooms;
}
