/** Turns stored key and invite JSON (which carries the digest, and for invites expiresMs) into contract records. */
import type { InviteRecord, KeyRecord, NewInvite, NewKey } from "../access-types.ts";

/** The digest never leaves the driver: records are rebuilt field by field, optional fields only when set. */
export function toKeyRecord(stored: NewKey): KeyRecord {
  const key: KeyRecord = {
    keyId: stored.keyId,
    teamId: stored.teamId,
    kind: stored.kind,
    createdAt: stored.createdAt,
    hint: stored.hint,
  };
  if (stored.note !== undefined) key.note = stored.note;
  if (stored.boundAgentId !== undefined) key.boundAgentId = stored.boundAgentId;
  if (stored.humanId !== undefined) key.humanId = stored.humanId;
  return key;
}

export function toInviteRecord(stored: NewInvite): InviteRecord {
  const invite: InviteRecord = {
    tokenId: stored.tokenId,
    roomId: stored.roomId,
    teamId: stored.teamId,
    createdAt: stored.createdAt,
    expiresAt: stored.expiresAt,
    hint: stored.hint,
  };
  if (stored.agentId !== undefined) invite.agentId = stored.agentId;
  if (stored.humanId !== undefined) invite.humanId = stored.humanId;
  return invite;
}

/** A key as stored in the team's keys hash. */
export const storedKey = (key: NewKey): string => JSON.stringify({ ...toKeyRecord(key), digest: key.digest });

/** An invite as stored in the room's invites hash: expiry also as ms, so Lua compares numbers. */
export function storedInvite(invite: NewInvite): string {
  const expiresMs = Date.parse(invite.expiresAt);
  if (Number.isNaN(expiresMs)) throw new Error(`invite expiresAt is not an ISO date: ${invite.expiresAt}`);
  return JSON.stringify({ ...toInviteRecord(invite), digest: invite.digest, expiresMs });
}

/** As stored: the record with its creation number (scripts splice in "n"; absent on older records). */
export type Numbered<R> = R & { n?: number };

/** Creation order: createdAt (ISO strings compare chronologically), then the store's creation number. */
export const byCreation = <R extends { createdAt: string }>(a: Numbered<R>, b: Numbered<R>): number =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : (a.n ?? 0) - (b.n ?? 0);
