/**
 * Room rows: ownership (first writing team), expiry (ROOM_TTL after last_activity), the room limit, the per-room
 * counters and purging. Every operation goes through read() or check()+claim(), so ownership is enforced in one
 * place.
 */
import type { Database } from "bun:sqlite";
import { errors } from "../../protocol/errors.ts";
import { LIMITS } from "../../protocol/limits.ts";
import type { TaskStatus } from "../../protocol/records.ts";
import type { Clock } from "../../protocol/time.ts";
import type { StoreLimits } from "../access-types.ts";
import type { RoomScope } from "../types.ts";
import type { SqliteFeed } from "./feed.ts";
import { invitePrefix, type Rate } from "./rate.ts";
import { isExpired, liveAfter, READ_TOUCH_AFTER_MS, type RoomRow } from "./rows.ts";
import { ROOM_TABLES } from "./schema.ts";

export type { RoomRow };

type Counter = "task_n" | "ctx_n" | "ctx_seq" | "event_seq";

export function createRooms(
  db: Database,
  now: Clock,
  limits: StoreLimits,
  rate: Rate,
  changes: Pick<SqliteFeed, "appended">,
) {
  // How long an idle room lives (ROOM_TTL_DAYS; 0: for ever, as with ARCHIVE_DIR, where the archiver removes it).
  const ttlMs = limits.roomTtlMs ?? LIMITS.roomTtlMs;
  const select = db.query<RoomRow, [string]>("SELECT * FROM rooms WHERE room_id = ?");
  // check() ran first in the same transaction, so an existing row is the team's own live room.
  const refresh = db.query<RoomRow, [number, string, string]>(
    "UPDATE rooms SET last_activity = ?1 WHERE room_id = ?2 AND owner = ?3 RETURNING *",
  );
  const insert = db.query<RoomRow, [string, string, number]>(
    "INSERT INTO rooms (room_id, owner, created_at, last_activity) VALUES (?1, ?2, ?3, ?3) RETURNING *",
  );
  const ownedCount = db.query<{ c: number }, [string, number]>(
    "SELECT count(*) AS c FROM rooms WHERE owner = ? AND last_activity > ?",
  );
  const touch = db.query<unknown, [number, string, number]>(
    "UPDATE rooms SET last_activity = ?1 WHERE room_id = ?2 AND last_activity < ?3",
  );
  const counters = {
    task_n: db.query<{ v: number }, [string]>(
      "UPDATE rooms SET task_n = task_n + 1 WHERE room_id = ? RETURNING task_n AS v",
    ),
    ctx_n: db.query<{ v: number }, [string]>(
      "UPDATE rooms SET ctx_n = ctx_n + 1 WHERE room_id = ? RETURNING ctx_n AS v",
    ),
    ctx_seq: db.query<{ v: number }, [string]>(
      "UPDATE rooms SET ctx_seq = ctx_seq + 1 WHERE room_id = ? RETURNING ctx_seq AS v",
    ),
    event_seq: db.query<{ v: number }, [string]>(
      "UPDATE rooms SET event_seq = event_seq + 1 WHERE room_id = ? RETURNING event_seq AS v",
    ),
  };
  const statusCounts = db.query<unknown, [string, number, number, number, number]>(
    `UPDATE rooms SET n_pending = n_pending + ?2, n_in_progress = n_in_progress + ?3, n_done = n_done + ?4,
     n_blocked = n_blocked + ?5 WHERE room_id = ?1`,
  );
  const contextCount = db.query<unknown, [string, number]>(
    "UPDATE rooms SET n_contexts = n_contexts + ?2 WHERE room_id = ?1",
  );
  const planTouched = db.query<unknown, [number, string]>(
    "UPDATE rooms SET plan_created_at = coalesce(plan_created_at, ?1), plan_updated_at = ?1 WHERE room_id = ?2",
  );
  const purgeStmts = ROOM_TABLES.map((table) => db.query(`DELETE FROM ${table} WHERE room_id = ?`));
  const expiredIds = db.query<{ room_id: string }, [number]>(
    "SELECT room_id FROM rooms WHERE last_activity <= ? LIMIT 200",
  );

  let pendingTouch: string | null = null;

  /** Deletes every row of the room, its invites and its invites' rate windows. */
  function purge(roomId: string): void {
    for (const stmt of purgeStmts) stmt.run(roomId);
    // The room's log is gone: seq 0 tells its watchers to drop what they know of it.
    changes.appended(roomId, 0);
    rate.dropPrefix(invitePrefix(roomId));
  }

  /** True when the team already owns roomsPerTeam live rooms, so it may claim no other. */
  function atLimit(teamId: string): boolean {
    return (ownedCount.get(teamId, liveAfter(now(), ttlMs))?.c ?? 0) >= limits.roomsPerTeam;
  }

  /** Throws denied for another team's live room; null when the room is absent or expired. */
  function visible(scope: RoomScope, room: RoomRow | null): RoomRow | null {
    if (!room || isExpired(room, now(), ttlMs)) return null;
    if (room.owner !== scope.teamId) throw errors.denied();
    return room;
  }

  return {
    /** For read operations: the live room of this team, or null (read as empty). Never writes. */
    read(scope: RoomScope): RoomRow | null {
      const room = visible(scope, select.get(scope.roomId));
      pendingTouch =
        room && !scope.observe && now() - room.last_activity > READ_TOUCH_AFTER_MS ? room.room_id : null;
      return room;
    },
    /** Best-effort refresh after a read committed; a busy or failed touch must not fail the read. */
    flushReadTouch(): void {
      const roomId = pendingTouch;
      pendingTouch = null;
      if (!roomId) return;
      const t = now();
      try {
        touch.run(t, roomId, t - READ_TOUCH_AFTER_MS);
      } catch {
        // The read already succeeded; the next use refreshes the room.
      }
    },
    /**
     * For write operations, first step: throws denied for another team's room; purges an expired room (inside
     * the caller's transaction, so a later failure restores it). Returns the live room or null; claims nothing.
     */
    check(scope: RoomScope): RoomRow | null {
      const raw = select.get(scope.roomId);
      if (raw && isExpired(raw, now(), ttlMs)) {
        purge(scope.roomId);
        return null;
      }
      return visible(scope, raw);
    },
    /**
     * Sets last_activity = now, claiming the room for the scope's team when unowned. Call only when writing, after
     * check(). A claim is refused with denied when scope.mayClaim is false (invites never claim) and with
     * roomLimit when the team owns roomsPerTeam live rooms; BEGIN IMMEDIATE makes the count exact.
     */
    claim(scope: RoomScope): RoomRow {
      const t = now();
      const own = refresh.get(t, scope.roomId, scope.teamId);
      if (own) return own;
      if (scope.mayClaim === false) throw errors.denied();
      if (atLimit(scope.teamId)) throw errors.roomLimit(limits.roomsPerTeam);
      const room = insert.get(scope.roomId, scope.teamId, t);
      if (!room) throw new Error(`rooms: claim of ${scope.roomId} returned no row`);
      return room;
    },
    atLimit,
    /** The live room (any owner) or null; never writes. For the operator and public views. */
    live(roomId: string): RoomRow | null {
      const room = select.get(roomId);
      return room && !isExpired(room, now(), ttlMs) ? room : null;
    },
    /** The team's live room; throws denied when it is unowned, expired or another team's. Never writes. */
    owned(scope: { roomId: string; teamId: string }): RoomRow {
      const room = select.get(scope.roomId);
      if (!room || isExpired(room, now(), ttlMs) || room.owner !== scope.teamId) throw errors.denied();
      return room;
    },
    purge,
    /** Increments one per-room counter and returns its new value (the room must be claimed). */
    next(roomId: string, counter: Counter): number {
      const row = counters[counter].get(roomId);
      if (!row) throw new Error(`rooms: counter ${counter} of ${roomId} missing`);
      return row.v;
    },
    /** Keeps the task counts by status: one task left `from` (if any) and entered `to` (if any). */
    taskMoved(roomId: string, from: TaskStatus | null, to: TaskStatus | null): void {
      const delta = (s: TaskStatus) => (s === to ? 1 : 0) - (s === from ? 1 : 0);
      statusCounts.run(roomId, delta("pending"), delta("in_progress"), delta("done"), delta("blocked"));
    },
    /** Keeps the context entry count. */
    contextsChanged(roomId: string, by: number): void {
      contextCount.run(roomId, by);
    },
    /** Records a plan change at time t (sets created_at on the first). */
    planChanged(roomId: string, t: number): void {
      planTouched.run(t, roomId);
    },
    /** A room is live at time t when its last_activity is above this (SQL's form of isExpired). */
    liveAfter: (t: number): number => liveAfter(t, ttlMs),
    /** Whether the room's lifetime has run out at time t. */
    isExpired: (room: { last_activity: number }, t: number): boolean => isExpired(room, t, ttlMs),
    /** Deletes up to 200 expired rooms with all their rows; returns how many (call inside a write tx). */
    sweepBatch(): number {
      if (ttlMs === 0) return 0;
      const ids = expiredIds.all(now() - ttlMs);
      for (const { room_id } of ids) purge(room_id);
      return ids.length;
    },
  };
}

export type Rooms = ReturnType<typeof createRooms>;

/** What every operation module needs: the connection, the clock, the room gate and the change feed. */
export interface StoreParts {
  db: Database;
  now: Clock;
  rooms: Rooms;
  /** Queue the room's changes (log head, signals) inside the write; reported once it commits. */
  changes: Pick<SqliteFeed, "appended" | "signal">;
}
