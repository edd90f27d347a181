/**
 * The sessions half of the store contract: people signed in to the web pages (docs/web.md). A session is kept under
 * the SHA-256 digest of its id (lowercase hex), never the id itself, so nothing read from the store can be replayed
 * as a cookie. Sessions live outside every room and team: on Redis each is one key in a slot of its own,
 * `session:{<digest>}`. Every operation is one atomic step (one SQLite transaction, one Lua script).
 */

/**
 * How the person proved who they are, re-checked on every request (so revoking the key or the invite ends its
 * sessions at once). Digests are SHA-256 of the key, lowercase hex, like the key records themselves.
 */
export type SessionCredential =
  /** An operator or team key of the environment. */
  | { kind: "env"; digest: string }
  /** A dynamic key of the session's team (a person's key, or the first-run key). */
  | { kind: "key"; digest: string }
  /** A person's invite to one room. */
  | { kind: "invite"; digest: string; roomId: string }
  /** The trusted authenticating proxy vouched for the person (TRUSTED_PROXY_*). */
  | { kind: "proxy" };

export interface SessionRecord {
  teamId: string;
  /** The person signed in (sessions are people's only). */
  humanId: string;
  credential: SessionCredential;
  /** ISO time of the sign-in. */
  createdAt: string;
}

export interface StoredSession extends SessionRecord {
  /** ISO time at which the session ends unless it is used before. */
  expiresAt: string;
}

/** A session's expiry is moved at most this often (ms), so a busy page does not write on every request. */
export const SESSION_RENEW_EVERY_MS = 60_000;

export interface SessionStore {
  /**
   * Stores a session under `digest`, ending `ttlMs` from now. A session already stored under that digest is
   * replaced (ids are 256 random bits: this happens only to a caller reusing a digest on purpose).
   */
  createSession(digest: string, record: SessionRecord, ttlMs: number): Promise<StoredSession>;
  /**
   * The live session stored under `digest`, with its end slid to now + `ttlMs` — moved only when it was last moved
   * SESSION_RENEW_EVERY_MS ago or more, so a session in use lives at least ttlMs - SESSION_RENEW_EVERY_MS past its
   * last use. null for an unknown digest or a session past its end (which is then deleted).
   */
  touchSession(digest: string, ttlMs: number): Promise<StoredSession | null>;
  /** Deletes the session; false when there was none (or it had ended). Every process sees it gone at once. */
  deleteSession(digest: string): Promise<boolean>;
}
