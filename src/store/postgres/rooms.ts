/**
 * Room rows, as the SQLite driver's (src/store/sqlite/rooms.ts describes the rules): ownership by the first
 * writing team, expiry ROOM_TTL after last_activity, the room limit, the per-room counters, purging. Writes run
 * in a transaction holding the room's advisory lock (`room:<id>`, see roomLock); a claim also takes the team's
 * (`team:<id>`), so the room count it checks is exact across processes.
 */
import { errors } from "../../protocol/errors.ts";
import { LIMITS } from "../../protocol/limits.ts";
import type { TaskStatus } from "../../protocol/records.ts";
import type { Clock } from "../../protocol/time.ts";
import type { StoreLimits } from "../access-types.ts";
import { invitePrefix } from "../rate-buckets.ts";
import type { RoomScope, SignalKind } from "../types.ts";
import type { Pg } from "./db.ts";
import type { Rate } from "./rate.ts";
import { isExpired, liveAfter, READ_TOUCH_AFTER_MS, type RoomRow } from "./rows.ts";
import { ROOM_TABLES } from "./schema.ts";

export type { RoomRow };

type Counter = "task_n" | "ctx_n" | "ctx_seq" | "event_seq";

/** The advisory lock of a room's writes and of a team's records. */
export const roomLock = (roomId: string) => `room:${roomId}`;
export const teamLock = (teamId: string) => `team:${teamId}`;

export function createRooms(
  pg: Pg,
  now: Clock,
  limits: StoreLimits,
  rate: Rate,
  changes: { appended(roomId: string, seq: number): void },
) {
  // How long an idle room lives (ROOM_TTL_DAYS; 0: for ever, as with ARCHIVE_DIR, where the archiver removes it).
  const ttlMs = limits.roomTtlMs ?? LIMITS.roomTtlMs;
  const select = pg.query<RoomRow, [string]>("SELECT * FROM rooms WHERE room_id = ?");
  const refresh = pg.query<RoomRow, [number, string, string]>(
    "UPDATE rooms SET last_activity = ?1 WHERE room_id = ?2 AND owner = ?3 RETURNING *",
  );
  const insert = pg.query<RoomRow, [string, string, number]>(
    "INSERT INTO rooms (room_id, owner, created_at, last_activity) VALUES (?1, ?2, ?3, ?3) RETURNING *",
  );
  const ownedCount = pg.query<{ c: number }, [string, number]>(
    "SELECT count(*) AS c FROM rooms WHERE owner = ? AND last_activity > ?",
  );
  const touch = pg.query<unknown, [number, string, number]>(
    "UPDATE rooms SET last_activity = ?1 WHERE room_id = ?2 AND last_activity < ?3",
  );
  const counters = {
    task_n: pg.query<{ v: number }, [string]>(
      "UPDATE rooms SET task_n = task_n + 1 WHERE room_id = ? RETURNING task_n AS v",
    ),
    ctx_n: pg.query<{ v: number }, [string]>(
      "UPDATE rooms SET ctx_n = ctx_n + 1 WHERE room_id = ? RETURNING ctx_n AS v",
    ),
    ctx_seq: pg.query<{ v: number }, [string]>(
      "UPDATE rooms SET ctx_seq = ctx_seq + 1 WHERE room_id = ? RETURNING ctx_seq AS v",
    ),
    event_seq: pg.query<{ v: number }, [string]>(
      "UPDATE rooms SET event_seq = event_seq + 1 WHERE room_id = ? RETURNING event_seq AS v",
    ),
  };
  const statusCounts = pg.query<unknown, [string, number, number, number, number]>(
    `UPDATE rooms SET n_pending = n_pending + ?2, n_in_progress = n_in_progress + ?3, n_done = n_done + ?4,
     n_blocked = n_blocked + ?5 WHERE room_id = ?1`,
  );
  const contextCount = pg.query<unknown, [string, number]>(
    "UPDATE rooms SET n_contexts = n_contexts + ?2 WHERE room_id = ?1",
  );
  const planTouched = pg.query<unknown, [number, string]>(
    "UPDATE rooms SET plan_created_at = coalesce(plan_created_at, ?1), plan_updated_at = ?1 WHERE room_id = ?2",
  );
  const purgeStmts = ROOM_TABLES.map((table) => pg.query(`DELETE FROM ${table} WHERE room_id = ?`));
  const expiredIds = pg.query<{ room_id: string }, [number]>(
    "SELECT room_id FROM rooms WHERE last_activity <= ? LIMIT 200",
  );

  /** Deletes every row of the room, its invites and its invites' rate windows (inside a write). */
  async function purge(roomId: string): Promise<void> {
    for (const stmt of purgeStmts) await stmt.run(roomId);
    // The room's log is gone: seq 0 tells its watchers to drop what they know of it.
    changes.appended(roomId, 0);
    await rate.dropPrefix(invitePrefix(roomId));
  }

  /** True when the team already owns roomsPerTeam live rooms (inside a write: takes the team's lock). */
  async function atLimit(teamId: string): Promise<boolean> {
    if (pg.inWrite) await pg.lock(teamLock(teamId));
    return ((await ownedCount.get(teamId, liveAfter(now(), ttlMs)))?.c ?? 0) >= limits.roomsPerTeam;
  }

  function visible(scope: RoomScope, room: RoomRow | null): RoomRow | null {
    if (!room || isExpired(room, now(), ttlMs)) return null;
    if (room.owner !== scope.teamId) throw errors.denied();
    return room;
  }

  /** Rooms whose last_activity a read found more than a minute old: refreshed after reads, best effort. */
  const pendingTouch = new Set<string>();

  return {
    /** For reads: the live room of this team, or null (read as empty). Never writes. */
    async read(scope: RoomScope): Promise<RoomRow | null> {
      const room = visible(scope, await select.get(scope.roomId));
      if (room && !scope.observe && now() - room.last_activity > READ_TOUCH_AFTER_MS)
        pendingTouch.add(room.room_id);
      return room;
    },
    /** Best-effort refresh after a read; a failed touch must not fail the read. */
    async flushReadTouch(): Promise<void> {
      const ids = [...pendingTouch];
      pendingTouch.clear();
      for (const roomId of ids) {
        const t = now();
        try {
          await pg.write([roomLock(roomId)], () => touch.run(t, roomId, t - READ_TOUCH_AFTER_MS), "touch");
        } catch {
          // The read already succeeded; the next use refreshes the room.
        }
      }
    },
    /**
     * For writes, first step (the transaction holds the room's lock): throws denied for another team's room;
     * purges an expired room (a later failure rolls that back). Returns the live room or null; claims nothing.
     */
    async check(scope: RoomScope): Promise<RoomRow | null> {
      const raw = await select.get(scope.roomId);
      if (raw && isExpired(raw, now(), ttlMs)) {
        await purge(scope.roomId);
        return null;
      }
      return visible(scope, raw);
    },
    /** Sets last_activity = now, claiming the room for the scope's team when unowned (after check()). */
    async claim(scope: RoomScope): Promise<RoomRow> {
      const t = now();
      const own = await refresh.get(t, scope.roomId, scope.teamId);
      if (own) return own;
      if (scope.mayClaim === false) throw errors.denied();
      if (await atLimit(scope.teamId)) throw errors.roomLimit(limits.roomsPerTeam);
      const room = await insert.get(scope.roomId, scope.teamId, t);
      if (!room) throw new Error(`rooms: claim of ${scope.roomId} returned no row`);
      return room;
    },
    atLimit,
    /** The live room (any owner) or null; never writes. */
    async live(roomId: string): Promise<RoomRow | null> {
      const room = await select.get(roomId);
      return room && !isExpired(room, now(), ttlMs) ? room : null;
    },
    /** The team's live room; throws denied when it is unowned, expired or another team's. Never writes. */
    async owned(scope: { roomId: string; teamId: string }): Promise<RoomRow> {
      const room = await select.get(scope.roomId);
      if (!room || isExpired(room, now(), ttlMs) || room.owner !== scope.teamId) throw errors.denied();
      return room;
    },
    purge,
    /** Increments one per-room counter and returns its new value (the room must be claimed). */
    async next(roomId: string, counter: Counter): Promise<number> {
      const row = await counters[counter].get(roomId);
      if (!row) throw new Error(`rooms: counter ${counter} of ${roomId} missing`);
      return row.v;
    },
    /** Keeps the task counts by status: one task left `from` (if any) and entered `to` (if any). */
    async taskMoved(roomId: string, from: TaskStatus | null, to: TaskStatus | null): Promise<void> {
      const delta = (s: TaskStatus) => (s === to ? 1 : 0) - (s === from ? 1 : 0);
      await statusCounts.run(roomId, delta("pending"), delta("in_progress"), delta("done"), delta("blocked"));
    },
    async contextsChanged(roomId: string, by: number): Promise<void> {
      await contextCount.run(roomId, by);
    },
    async planChanged(roomId: string, t: number): Promise<void> {
      await planTouched.run(t, roomId);
    },
    /** A room is live at time t when its last_activity is above this (SQL's form of isExpired). */
    liveAfter: (t: number): number => liveAfter(t, ttlMs),
    /** Whether the room's lifetime has run out at time t. */
    isExpired: (room: { last_activity: number }, t: number): boolean => isExpired(room, t, ttlMs),
    /** Room ids of up to 200 expired rooms (each is purged in a write of its own, under its lock). */
    async expired(): Promise<string[]> {
      if (ttlMs === 0) return [];
      return (await expiredIds.all(now() - ttlMs)).map((r) => r.room_id);
    },
  };
}

export type Rooms = ReturnType<typeof createRooms>;

/** What every operation module needs: the connection, the clock, the room gate and the change feed. */
export interface StoreParts {
  pg: Pg;
  now: Clock;
  rooms: Rooms;
  /** Inside a write: the room's changes (log head, signals), published when it commits. */
  changes: { appended(roomId: string, seq: number): void; signal(roomId: string, kind: SignalKind): void };
}
