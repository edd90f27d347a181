/**
 * Invites of a room, stored by digest only. An invite works while it is unexpired and its issuing team still owns
 * the (live) room; invites never claim a room.
 */

import { errors } from "../../protocol/errors.ts";
import type { InviteRecord, NewInvite, RateDecision, RateRequest } from "../access-types.ts";
import { inviteBucket, invitePrefix, type Rate } from "./rate.ts";
import type { StoreParts } from "./rooms.ts";
import { INVITE_COLUMNS, type InviteRow, toInvite, toMs } from "./rows.ts";

type RoomTeam = { roomId: string; teamId: string };

export function createInvites({ db, now, rooms }: StoreParts, rate: Rate) {
  const insert = db.query<
    InviteRow,
    [string, string, string, string, number, number, string | null, string, string | null]
  >(
    `INSERT INTO invites (room_id, token_id, team_id, digest, created_at, expires_at, agent_id, hint, human_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${INVITE_COLUMNS}`,
  );
  const forgetExpired = db.query<unknown, [string, number]>(
    "DELETE FROM invites WHERE room_id = ? AND expires_at <= ?",
  );
  const countLive = db.query<{ c: number }, [string, number]>(
    "SELECT count(*) AS c FROM invites WHERE room_id = ? AND expires_at > ?",
  );
  const byDigest = db.query<InviteRow, [string, string]>(
    `SELECT ${INVITE_COLUMNS} FROM invites WHERE room_id = ? AND digest = ?`,
  );
  const live = db.query<InviteRow, [string, number]>(
    `SELECT ${INVITE_COLUMNS} FROM invites WHERE room_id = ? AND expires_at > ? ORDER BY created_at, rowid`,
  );
  const remove = db.query<{ expires_at: number }, [string, string]>(
    "DELETE FROM invites WHERE room_id = ? AND token_id = ? RETURNING expires_at",
  );

  const pruneBatch = db.query<unknown, [number, number]>(
    "DELETE FROM invites WHERE rowid IN (SELECT rowid FROM invites WHERE expires_at <= ? LIMIT ?)",
  );

  return {
    /** Deletes up to 500 expired invites of live rooms (the sweep); returns how many (call inside a write tx). */
    pruneBatch(): number {
      return pruneBatch.run(now(), 500).changes;
    },
    createInvite(invite: NewInvite, maxInvites: number): InviteRecord {
      rooms.owned(invite);
      const t = now();
      // Expired invites can never work again; dropping them here keeps the table from growing between sweeps.
      forgetExpired.run(invite.roomId, t);
      if ((countLive.get(invite.roomId, t)?.c ?? 0) >= maxInvites) throw errors.inviteLimit(maxInvites);
      const row = insert.get(
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
    resolveInvite(
      roomId: string,
      digest: string,
      request?: RateRequest,
    ): { invite: InviteRecord | null; rate?: RateDecision } {
      const row = byDigest.get(roomId, digest);
      if (!row || row.expires_at <= now() || rooms.live(roomId)?.owner !== row.team_id)
        return { invite: null };
      const invite = toInvite(row);
      if (!request) return { invite };
      return { invite, rate: rate.charge(inviteBucket(roomId, row.token_id, request.bucket), request) };
    },
    listInvites(scope: RoomTeam): InviteRecord[] {
      rooms.owned(scope);
      return live.all(scope.roomId, now()).map(toInvite);
    },
    deleteInvite(scope: RoomTeam, tokenId: string): boolean {
      rooms.owned(scope);
      const removed = remove.get(scope.roomId, tokenId);
      if (!removed) return false;
      rate.dropPrefix(invitePrefix(scope.roomId, tokenId));
      // An expired invite is gone as far as listInvites is concerned: deleting it reports "no such invite".
      return removed.expires_at > now();
    },
  };
}
