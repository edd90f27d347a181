/**
 * Keys with a lifetime and a scope (docs/security.md#key-lifetime-and-scopes): the rules every store and every layer
 * applies to a dynamic key's expiry, its recorded use, its rotation and its scope — written once here.
 */
import { ACCESS_DENIED, RoomError } from "./errors.ts";
import type { Principal } from "./principal.ts";

/** lastUsedAt is coarse: a lookup writes it only when it is missing or at least this old. */
export const KEY_USE_STEP_MS = 60_000;

/** How long a rotated key keeps working when the rotation names no grace (seconds). */
export const DEFAULT_ROTATION_GRACE_S = 3600;

/** Longest lifetime a key may be given (expiresIn, seconds): ten years. */
export const MAX_KEY_LIFETIME_S = 10 * 366 * 24 * 3600;

/** Highest agent budget a key may carry (agentRateLimitPerMinute), as AGENT_RATE_LIMIT_PER_MINUTE's. */
export const MAX_KEY_AGENT_RATE = 1_000_000;

/** Most rooms one key's scope may name (the default ROOMS_PER_TEAM). */
export const MAX_SCOPE_ROOMS = 100;

/** True when a lookup at `now` should record the use: never recorded, or recorded at least a minute ago. */
export const useDue = (lastUsedMs: number | undefined, now: number): boolean =>
  lastUsedMs === undefined || lastUsedMs <= now - KEY_USE_STEP_MS;

/** True while a key with this expiry (ms; undefined: never) still works at `now`. */
export const keyLive = (expiresMs: number | undefined, now: number): boolean =>
  expiresMs === undefined || expiresMs > now;

/** The old key's new end on rotation: now + grace, never later than the end it already had. */
export const graceEnd = (expiresMs: number | undefined, now: number, graceS: number): number =>
  Math.min(expiresMs ?? Number.POSITIVE_INFINITY, now + graceS * 1000);

/**
 * A successor's expiry (ms; undefined: never): `expiresIn` seconds from now when given, else the old key's own
 * lifetime (its expiresAt − createdAt) from now, so rotating a key never turns it into one that never expires.
 */
export function successorExpiry(
  old: { createdAt: string; expiresAt?: string },
  now: number,
  expiresIn?: number,
): number | undefined {
  if (expiresIn !== undefined) return now + expiresIn * 1000;
  if (old.expiresAt === undefined) return undefined;
  return now + Math.max(0, Date.parse(old.expiresAt) - Date.parse(old.createdAt));
}

/** A key's scope as stored with it: some rooms only, and/or reads only. Absent fields do not narrow. */
export interface KeyScope {
  /** 1..MAX_SCOPE_ROOMS room ids: every other room reads as missing. */
  rooms?: string[];
  /** Only read tools and GET room routes. */
  readOnly?: true;
  /** Not a narrowing, kept in the same column: the key's own agent budget (KeyRecord.agentRateLimitPerMinute). */
  agentRateLimitPerMinute?: number;
}

/** True when the principal may reach `roomId` at all: an invite's room, a scoped key's rooms, else any. */
export const reachesRoom = (principal: Principal, roomId: string): boolean =>
  (principal.allowedRoomId === undefined || principal.allowedRoomId === roomId) &&
  (principal.rooms === undefined || principal.rooms.includes(roomId));

/** The rooms a principal is narrowed to (an invite's one room, a scoped key's), or undefined for the team's all. */
export function roomsOf(principal: Principal): readonly string[] | undefined {
  if (principal.allowedRoomId !== undefined) return [principal.allowedRoomId];
  return principal.rooms;
}

/** The room a call names when it names none: an invite's, or the one room of a key scoped to one room. */
export const defaultRoom = (principal: Principal): string | undefined =>
  principal.allowedRoomId ?? (principal.rooms?.length === 1 ? principal.rooms[0] : undefined);

/** A key narrowed by a scope (rooms or readOnly): of the admin API it may use only GET /admin/me. */
export const isScoped = (principal: Principal): boolean =>
  principal.rooms !== undefined || principal.readOnly === true;

export const keyLifeErrors = {
  /**
   * A write tool or route called with a read-only key, or with the token of a grant its person made read-only; said
   * before any argument is checked, naming what is read-only and how to get writes.
   */
  readOnly: (what: string, kind?: Principal["kind"]) =>
    new RoomError(
      "forbidden",
      kind === "oauth"
        ? `This connection is read-only (its person granted reads only): ${what} writes, so it is refused; for writes, connect again without "Read only" checked`
        : `This key is read-only: ${what} writes, so it is refused; use a key without readOnly for writes`,
    ),
  /** Any admin route but GET /admin/me with a scoped key. */
  scopedAdmin: () =>
    new RoomError(
      "forbidden",
      "This key is scoped (rooms or readOnly): of the admin API it may use only GET /admin/me",
    ),
  /** A second rotation of a key: the first one won. */
  rotated: (keyId: string, successor: string) =>
    new RoomError(
      "conflict",
      `Key ${keyId} was already rotated (its successor is ${successor}); rotate that one`,
    ),
  /** Another room than the scope's: exactly as a missing room reads. */
  outOfScope: () => new RoomError("denied", ACCESS_DENIED),
};
