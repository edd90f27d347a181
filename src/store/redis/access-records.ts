/** Turns stored key and invite JSON (which carries the digest, and for invites expiresMs) into contract records. */
import type { InviteRecord, KeyRecord, NewInvite, NewKey } from "../access-types.ts";

/**
 * A key as the team scripts answer it: the stored JSON (with its digest, its expiry also as ms so Lua compares
 * numbers) and, spliced in from the key_used hash, its last use in ms.
 */
export type StoredKey = NewKey & { expiresMs?: number; usedMs?: number };

/** The digest never leaves the driver: records are rebuilt field by field, optional fields only when set. */
export function toKeyRecord(stored: StoredKey): KeyRecord {
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
  if (stored.expiresAt !== undefined) key.expiresAt = stored.expiresAt;
  if (stored.usedMs !== undefined) key.lastUsedAt = new Date(stored.usedMs).toISOString();
  if (stored.rooms !== undefined) key.rooms = stored.rooms;
  if (stored.readOnly === true) key.readOnly = true;
  if (stored.agentRateLimitPerMinute !== undefined)
    key.agentRateLimitPerMinute = stored.agentRateLimitPerMinute;
  if (stored.rotatedTo !== undefined) key.rotatedTo = stored.rotatedTo;
  return key;
}

/** A stored key as moving reads it: the record with its digest (migrate copies it with createKey). */
export const toNewKey = (stored: StoredKey): NewKey => ({ ...toKeyRecord(stored), digest: stored.digest });

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

/**
 * A key as stored in the team's keys hash: without lastUsedAt (the key_used hash keeps it, createKey's `used`) and
 * with its expiry also as ms.
 */
export function storedKey(key: NewKey): string {
  const { lastUsedAt: _used, ...record } = toKeyRecord(key);
  if (key.expiresAt === undefined) return JSON.stringify({ ...record, digest: key.digest });
  const expiresMs = Date.parse(key.expiresAt);
  if (Number.isNaN(expiresMs)) throw new Error(`key expiresAt is not an ISO date: ${key.expiresAt}`);
  return JSON.stringify({ ...record, digest: key.digest, expiresMs });
}

/** A key's last use as createKey's `used` argument (ms), or undefined. */
export function usedMs(key: NewKey): number | undefined {
  if (key.lastUsedAt === undefined) return undefined;
  const ms = Date.parse(key.lastUsedAt);
  if (Number.isNaN(ms)) throw new Error(`key lastUsedAt is not an ISO date: ${key.lastUsedAt}`);
  return ms;
}

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
