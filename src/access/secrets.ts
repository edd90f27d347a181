/**
 * Formats of the secrets roomd issues. A dynamic key names its team and an invite names its room, so the store
 * finds the record in one slot with one round trip; anything not of these shapes is refused without store work.
 * Ids are not secret.
 */
import { isRoomId, TEAM_ID } from "../protocol/ids.ts";
import { newSecret, sha256 } from "./digest.ts";

const RANDOM_LEN = 43; // 32 random bytes, base64url
const ALNUM = "0123456789abcdefghijklmnopqrstuvwxyz";

/** `k_<teamId>_<8>`, `i_<8>`: short random ids in [0-9a-z]. */
export function shortId(length = 8): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (b) => ALNUM[b % ALNUM.length]).join("");
}

export const newKeyId = (teamId: string) => `k_${teamId}_${shortId()}`;
export const newTokenId = () => `i_${shortId()}`;

/** A dynamic key's secret: `rk_<teamId>_<random>`. */
export const newKeySecret = (teamId: string) => newSecret(`rk_${teamId}`);
/** An invite token: `ri_<roomId>_<random>`. */
export const newInviteToken = (roomId: string) => newSecret(`ri_${roomId}`);

/** The team named by a dynamic key's secret, or null when it is not of that shape. */
export function teamOfKey(secret: string): string | null {
  const team = /^rk_([a-z0-9-]{3,32})_[A-Za-z0-9_-]+$/.exec(secret)?.[1];
  return team !== undefined && TEAM_ID.test(team) && secret.length - team.length - 4 === RANDOM_LEN
    ? team
    : null;
}

/** The room named by an invite token, or null when it is not of that shape. */
export function roomOfInvite(token: string): string | null {
  if (!token.startsWith("ri_") || token.length < 3 + 2 + 1 + RANDOM_LEN) return null;
  const roomId = token.slice(3, -(RANDOM_LEN + 1));
  return token[token.length - RANDOM_LEN - 1] === "_" && isRoomId(roomId) ? roomId : null;
}

/** Lowercase hex SHA-256: the only form in which a secret reaches the store. */
export const digestHex = (secret: string) => sha256(secret).toString("hex");

/** "****" and the last 4 chars: enough to tell keys apart in a list, useless to an attacker. */
export const hintOf = (secret: string) => `****${secret.slice(-4)}`;
