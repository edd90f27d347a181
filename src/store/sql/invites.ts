/**
 * Invites of a room, stored by digest only. An invite works while it is unexpired and its issuing team still owns
 * the (live) room; invites never claim a room. Writes run alone on the room, so the live-invite count is exact
 * across processes. Charging a rate window with the lookup is each driver's own (its rate limiter).
 */
import { errors } from "../../protocol/errors.ts";
import type { InviteRecord, NewInvite } from "../access-types.ts";
import { invitePrefix } from "../rate-buckets.ts";
import type { SqlParts } from "./rooms.ts";
import { INVITE_COLUMNS, type InviteRow, toInvite, toMs } from "./rows.ts";
import type { Op } from "./run.ts";

type RoomTeam = { roomId: string; teamId: string };

/** Expired invites deleted per sweep step. */
const PRUNE_BATCH = 500;

export function createInvites({ sql, now, rooms, dialect }: SqlParts) {
  const insert = sql.query<
    InviteRow,
    [string, string, string, string, number, number, string | null, string, string | null]
  >(
    `INSERT INTO invites (room_id, token_id, team_id, digest, created_at, expires_at, agent_id, hint, human_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${INVITE_COLUMNS}`,
  );
  const forgetExpired = sql.query<unknown, [string, number]>(
    "DELETE FROM invites WHERE room_id = ? AND expires_at <= ?",
  );
  const countLive = sql.query<{ c: number }, [string, number]>(
    "SELECT count(*) AS c FROM invites WHERE room_id = ? AND expires_at > ?",
  );
  const byDigest = sql.query<InviteRow, [string, string]>(
    `SELECT ${INVITE_COLUMNS} FROM invites WHERE room_id = ? AND digest = ?`,
  );
  const live = sql.query<InviteRow, [string, number]>(
    `SELECT ${INVITE_COLUMNS} FROM invites WHERE room_id = ? AND expires_at > ? ORDER BY created_at, rowid`,
  );
  const remove = sql.query<{ expires_at: number }, [string, string]>(
    "DELETE FROM invites WHERE room_id = ? AND token_id = ? RETURNING expires_at",
  );
  const pruneBatch = sql.query<unknown, [number, number]>(
    `DELETE FROM invites WHERE (room_id, token_id) IN
     (SELECT room_id, token_id FROM invites WHERE expires_at <= ? LIMIT ?)`,
  );

  return {
    /** Deletes up to PRUNE_BATCH expired invites (the sweep); returns how many (inside a write). */
    *pruneBatch(): Op<number> {
      return (yield* pruneBatch.run(now(), PRUNE_BATCH)).changes;
    },
    *createInvite(invite: NewInvite, maxInvites: number): Op<InviteRecord> {
      yield* rooms.owned(invite);
      const t = now();
      // Expired invites can never work again; dropping them here keeps the table from growing between sweeps.
      yield* forgetExpired.run(invite.roomId, t);
      if (((yield* countLive.get(invite.roomId, t))?.c ?? 0) >= maxInvites)
        throw errors.inviteLimit(maxInvites);
      const row = yield* insert.get(
        invite.roomId,
        invite.tokenId,
        invite.teamId,
        invite.digest,
        toMs(invite.createdAt, "createdAt"),
        toMs(invite.expiresAt, "expiresAt"),
        invite.agentId ?? null,
        invite.hint,
        invite.humanId ?? null,
      );
      if (!row) throw new Error("invites: insert returned no row");
      return toInvite(row);
    },
    /** The invite, while it is unexpired and its team owns the live room; without a charge. */
    *resolveInvite(roomId: string, digest: string): Op<{ invite: InviteRecord | null }> {
      const row = yield* byDigest.get(roomId, digest);
      if (!row || row.expires_at <= now() || (yield* rooms.live(roomId))?.owner !== row.team_id)
        return { invite: null };
      return { invite: toInvite(row) };
    },
    *listInvites(scope: RoomTeam): Op<InviteRecord[]> {
      yield* rooms.owned(scope);
      return (yield* live.all(scope.roomId, now())).map(toInvite);
    },
    *deleteInvite(scope: RoomTeam, tokenId: string): Op<boolean> {
      yield* rooms.owned(scope);
      const removed = yield* remove.get(scope.roomId, tokenId);
      if (!removed) return false;
      yield* dialect.dropRateWindows(invitePrefix(scope.roomId, tokenId));
      // An expired invite is gone as far as listInvites is concerned: deleting it reports "no such invite".
      return removed.expires_at > now();
    },
  };
}

export type Invites = ReturnType<typeof createInvites>;
