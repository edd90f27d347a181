/**
 * The lifetimes and checks of roomd's authorization server (docs/security.md#oauth): codes live a minute and are
 * spent on first use, access tokens an hour, refresh tokens thirty days from their last rotation. PKCE is S256 only.
 */
import { sameDigest, sha256 } from "../../access/digest.ts";

export const CODE_TTL_MS = 60_000;
export const ACCESS_TTL_MS = 60 * 60 * 1000;
export const REFRESH_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** RFC 7636 section 4.1: 43-128 chars of the unreserved set. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** An S256 challenge: base64url of 32 bytes. */
export const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** True when `verifier` is well formed and its S256 transform is `challenge` (constant time). */
export function pkceMatches(verifier: string | undefined, challenge: string): boolean {
  if (verifier === undefined || !VERIFIER.test(verifier)) return false;
  const transformed = sha256(verifier).toString("base64url");
  return sameDigest(sha256(transformed), sha256(challenge));
}
