/**
 * File claims (protocol/claims.ts) and the AgentRoom peer state: one row per claimed path, expiring lazily (reads
 * skip expired rows; the next claim write records them).
 */
import {
  type ClaimResult,
  checkPaths,
  claimsOverlapping,
  type FileCheck,
  type FileClaim,
  fileClaimConflicts,
  sortClaims,
} from "../../protocol/claims.ts";
import { LIMITS } from "../../protocol/limits.ts";
import { BROADCAST, type Presence, type RoomEvent } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import type { ClaimFilter, FilesClaim, NewBroadcast, RoomScope, RoomStateView } from "../types.ts";
import type { Events } from "./events.ts";
import type { SqlParts } from "./rooms.ts";
import { type ClaimRow, toClaim } from "./rows.ts";
import type { Op } from "./run.ts";

export function createClaims(
  { sql, now, rooms, changes }: SqlParts,
  events: Events,
  presence: (roomId: string) => Op<Presence[]>,
) {
  const live = sql.query<ClaimRow, [string, number]>(
    `SELECT path, agent_id, expires_at, claimed_at, reason FROM claims
     WHERE room_id = ? AND expires_at > ? ORDER BY path`,
  );
  const due = sql.query<ClaimRow, [string, number]>(
    `SELECT path, agent_id, expires_at, claimed_at, reason FROM claims
     WHERE room_id = ? AND expires_at <= ? ORDER BY expires_at, path`,
  );
  const drop = sql.query<unknown, [string, string]>("DELETE FROM claims WHERE room_id = ? AND path = ?");
  const mine = sql.query<ClaimRow & { rowid: number }, [string, string, number]>(
    `SELECT rowid, path, agent_id, expires_at, claimed_at, reason FROM claims
     WHERE room_id = ? AND agent_id = ? AND expires_at > ? ORDER BY rowid`,
  );
  // A renewal keeps the row (and so claimed_at and the first-claim order); a reason given replaces the old one.
  const upsert = sql.query<unknown, [string, string, string, number, number, number, string | null]>(
    `INSERT INTO claims (room_id, path, agent_id, expires_at, ttl_ms, claimed_at, reason)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
     ON CONFLICT (room_id, path) DO UPDATE SET expires_at = excluded.expires_at, ttl_ms = excluded.ttl_ms,
       reason = coalesce(excluded.reason, claims.reason)`,
  );
  const head = sql.query<{ event_seq: number }, [string]>("SELECT event_seq FROM rooms WHERE room_id = ?");
  const setStatus = sql.query<unknown, [string, string, number, string]>(
    `INSERT INTO presence (room_id, agent_id, last_seen, status_text) VALUES (?1, ?2, ?3, ?4)
     ON CONFLICT (room_id, agent_id) DO UPDATE SET last_seen = excluded.last_seen, status_text = excluded.status_text,
       left_at = NULL`,
  );

  function* liveClaims(roomId: string): Op<FileClaim[]> {
    return (yield* live.all(roomId, now())).map(toClaim);
  }

  /** Records every claim of the room that ran out: deleted, `files_claim_expired` each (oldest first). */
  function* recordExpired(roomId: string): Op<void> {
    const rows = yield* due.all(roomId, now());
    for (const row of rows) {
      yield* drop.run(roomId, row.path);
      yield* events.append(roomId, {
        type: "files_claim_expired",
        from: "system",
        to: BROADCAST,
        payload: { path: row.path, heldBy: row.agent_id, expiredAt: iso(row.expires_at) },
      });
    }
    if (rows.length > 0) changes.signal(roomId, "claims");
  }

  return {
    recordExpired,
    /** The agent's live claims end (leave_room); returns their paths in byte order. Call after recordExpired. */
    *releaseAll(roomId: string, agentId: string): Op<string[]> {
      const rows = yield* mine.all(roomId, agentId, now());
      for (const row of rows) yield* drop.run(roomId, row.path);
      return sortClaims(rows.map(toClaim)).map((c) => c.path);
    },
    *claimFiles(scope: RoomScope, input: FilesClaim): Op<ClaimResult> {
      const room = yield* rooms.check(scope);
      const current = room ? yield* liveClaims(room.room_id) : [];
      const conflicts = fileClaimConflicts(input.paths, input.agentId, current, LIMITS.claimsPerRoom);
      if (conflicts.length > 0) return { claimed: [], conflicts };
      yield* rooms.claim(scope);
      yield* recordExpired(scope.roomId);
      const t = now();
      const expires = t + input.ttlMs;
      for (const path of input.paths) {
        yield* upsert.run(scope.roomId, path, input.agentId, expires, input.ttlMs, t, input.reason ?? null);
      }
      yield* events.append(scope.roomId, {
        type: "files_claimed",
        from: input.agentId,
        to: BROADCAST,
        payload: {
          paths: input.paths,
          expiresAt: iso(expires),
          ...(input.reason === undefined ? {} : { reason: input.reason }),
        },
      });
      changes.signal(scope.roomId, "claims");
      return { claimed: input.paths.map((path) => ({ path, expiresAt: iso(expires) })), conflicts: [] };
    },
    *releaseFiles(scope: RoomScope, agentId: string, paths?: string[]): Op<{ released: string[] }> {
      const room = yield* rooms.check(scope);
      if (!room) return { released: [] };
      const named = paths === undefined ? null : new Set(paths);
      const target = sortClaims(
        (yield* mine.all(room.room_id, agentId, now()))
          .map(toClaim)
          .filter((c) => named === null || named.has(c.path)),
      ).map((c) => c.path);
      if (target.length === 0) return { released: [] };
      yield* rooms.claim(scope);
      yield* recordExpired(room.room_id);
      for (const path of target) yield* drop.run(room.room_id, path);
      yield* events.append(room.room_id, {
        type: "files_released",
        from: agentId,
        to: BROADCAST,
        payload: { paths: target },
      });
      changes.signal(room.room_id, "claims");
      return { released: target };
    },
    *listClaims(scope: RoomScope, filter: ClaimFilter): Op<FileClaim[]> {
      const room = yield* rooms.read(scope);
      if (!room) return [];
      const claims = (yield* liveClaims(room.room_id)).filter(
        (c) => filter.agentId === undefined || c.heldBy === filter.agentId,
      );
      return filter.path === undefined ? sortClaims(claims) : claimsOverlapping(filter.path, claims);
    },
    *checkFiles(scope: RoomScope, agentId: string, paths: string[]): Op<FileCheck[]> {
      const room = yield* rooms.read(scope);
      return checkPaths(paths, agentId, room ? sortClaims(yield* liveClaims(room.room_id)) : []);
    },
    *roomState(scope: RoomScope): Op<RoomStateView> {
      const room = yield* rooms.read(scope);
      if (!room) return { claims: [], presence: [], lastSeq: 0 };
      return {
        claims: sortClaims(yield* liveClaims(room.room_id)),
        presence: yield* presence(room.room_id),
        lastSeq: (yield* head.get(room.room_id))?.event_seq ?? 0,
      };
    },
    *broadcast(scope: RoomScope, input: NewBroadcast): Op<RoomEvent> {
      yield* rooms.check(scope);
      yield* rooms.claim(scope);
      const payload = {
        message: input.message,
        ...(input.status === undefined ? {} : { status: input.status }),
      };
      const event = yield* events.append(scope.roomId, {
        type: "broadcast",
        from: input.agentId,
        to: BROADCAST,
        payload,
      });
      if (input.status !== undefined) {
        yield* setStatus.run(scope.roomId, input.agentId, now(), input.status);
        changes.signal(scope.roomId, "presence");
      }
      return event;
    },
  };
}

export type Claims = ReturnType<typeof createClaims>;
