/**
 * Invites of a room, stored by digest only, as the SQLite driver's (src/store/sqlite/invites.ts). An invite works
 * while it is unexpired and its issuing team still owns the (live) room; invites never claim a room. Writes run
 * under the room's lock (index.ts), so the live-invite count is exact across processes.
 */

import { errors } from "../../protocol/errors.ts";
import type { InviteRecord, NewInvite, RateDecision, RateRequest } from "../access-types.ts";
import { invitePrefix, type Rate } from "./rate.ts";
import type { StoreParts } from "./rooms.ts";
import { INVITE_COLUMNS, type InviteRow, toInvite, toMs } from "./rows.ts";

type RoomTeam = { roomId: string; teamId: string };

/** Expired invites deleted per sweep step. */
const PRUNE_BATCH = 500;

export function createInvites({ pg, now, rooms }: StoreParts, rate: Rate) {
  const insert = pg.query<
    InviteRow,
    [string, string, string, string, number, number, string | null, string, string | null]
  >(
    `INSERT INTO invites (room_id, token_id, team_id, digest, created_at, expires_at, agent_id, hint, human_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${INVITE_COLUMNS}`,
  );
  const forgetExpired = pg.query<unknown, [string, number]>(
    "DELETE FROM invites WHERE room_id = ? AND expires_at <= ?",
  );
  const countLive = pg.query<{ c: number }, [string, number]>(
    "SELECT count(*) AS c FROM invites WHERE room_id = ? AND expires_at > ?",
  );
  const byDigest = pg.query<InviteRow, [string, string]>(
    `SELECT ${INVITE_COLUMNS} FROM invites WHERE room_id = ? AND digest = ?`,
  );
  const live = pg.query<InviteRow, [string, number]>(
    `SELECT ${INVITE_COLUMNS} FROM invites WHERE room_id = ? AND expires_at > ? ORDER BY created_at, rowid`,
  );
  const remove = pg.query<{ expires_at: number }, [string, string]>(
    "DELETE FROM invites WHERE room_id = ? AND token_id = ? RETURNING expires_at",
  );
  // The checks of resolveInvite and the charge in one statement: the charge (rate.ts) runs once for a valid
  // invite, never without one (a LEFT JOIN LATERAL runs its right side for each row of its left side only). The
  // bucket is rate-buckets.ts inviteBucket: invitePrefix(roomId) + tokenId + ":" + bucket.
  const byDigestCharged = pg.query<
    InviteRow & { allowed: boolean; remaining: number; reset_ms: number },
    [
      {
        room: string;
        digest: string;
        now: number;
        live: number;
        prefix: string;
        kind: string;
        window: number;
        limit: number;
      },
    ]
  >(
    `WITH i AS (
       SELECT i.room_id, i.token_id, i.team_id, i.created_at, i.expires_at, i.agent_id, i.hint, i.human_id
       FROM invites i JOIN rooms r ON r.room_id = i.room_id
       WHERE i.room_id = $room AND i.digest = $digest AND i.expires_at > $now AND r.owner = i.team_id
         AND r.last_activity > $live)
     SELECT i.*, c.allowed, c.remaining, c.reset_ms FROM i
     LEFT JOIN LATERAL roomd_rate_charge($prefix || i.token_id || ':' || $kind, $now, $window, $limit) c ON true`,
  );
  const pruneBatch = pg.query<unknown, [number, number]>(
    `DELETE FROM invites WHERE (room_id, token_id) IN
     (SELECT room_id, token_id FROM invites WHERE expires_at <= ? LIMIT ?)`,
  );

  return {
    /** Deletes up to PRUNE_BATCH expired invites (the sweep); returns how many (call inside a write). */
    async pruneBatch(): Promise<number> {
      return (await pruneBatch.run(now(), PRUNE_BATCH)).changes;
    },
    async createInvite(invite: NewInvite, maxInvites: number): Promise<InviteRecord> {
      await rooms.owned(invite);
      const t = now();
      // Expired invites can never work again; dropping them here keeps the table from growing between sweeps.
      await forgetExpired.run(invite.roomId, t);
      if (((await countLive.get(invite.roomId, t))?.c ?? 0) >= maxInvites)
        throw errors.inviteLimit(maxInvites);
      const row = await insert.get(
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
    async resolveInvite(roomId: string, digest: string): Promise<{ invite: InviteRecord | null }> {
      const row = await byDigest.get(roomId, digest);
      if (!row || row.expires_at <= now() || (await rooms.live(roomId))?.owner !== row.team_id)
        return { invite: null };
      return { invite: toInvite(row) };
    },
    /** resolveInvite with a charge, as one statement (a transaction of its own: call it outside one). */
    async resolveInviteCharged(
      roomId: string,
      digest: string,
      request: RateRequest,
    ): Promise<{ invite: InviteRecord | null; rate?: RateDecision }> {
      const t = now();
      const row = await byDigestCharged.get({
        room: roomId,
        digest,
        now: t,
        live: rooms.liveAfter(t),
        prefix: invitePrefix(roomId),
        kind: request.bucket,
        window: request.windowMs,
        limit: request.limit,
      });
      if (!row) return { invite: null };
      return { invite: toInvite(row), rate: rate.decision(row, request) };
    },
    async listInvites(scope: RoomTeam): Promise<InviteRecord[]> {
      await rooms.owned(scope);
      return (await live.all(scope.roomId, now())).map(toInvite);
    },
    async deleteInvite(scope: RoomTeam, tokenId: string): Promise<boolean> {
      await rooms.owned(scope);
      const removed = await remove.get(scope.roomId, tokenId);
      if (!removed) return false;
      await rate.dropPrefix(invitePrefix(scope.roomId, tokenId));
      // An expired invite is gone as far as listInvites is concerned: deleting it reports "no such invite".
      return removed.expires_at > now();
    },
  };
}
