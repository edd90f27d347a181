/**
 * People's web sessions (docs/web.md): signing in with a person's key (or through the trusted proxy), the principal
 * of a session on each request, and signing out. A session id is 256 random bits, shown only to the browser (in
 * its cookie) and kept in the store only as its SHA-256 digest. Its CSRF token is derived from the id, so it is
 * not stored either: whoever can compute it already holds the cookie. Each request admits the session's credential
 * again, so a revoked key or invite ends its sessions at once, and charges the team's rate window as a bearer would.
 */

import type { Principal } from "../protocol/principal.ts";
import { iso } from "../protocol/time.ts";
import type { SessionCredential, StoredSession } from "../store/session-types.ts";
import type { RoomStore } from "../store/types.ts";
import { sameDigest, sha256 } from "./digest.ts";
import type { Admission, Bucket, Gate } from "./gate.ts";
import { roomOfInvite, teamOfKey } from "./secrets.ts";

/** The cookie holding the session id. */
export const SESSION_COOKIE = "roomd_session";
/** A session ends this long after its last use (sliding). */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** 32 random bytes, base64url (43 chars). */
export const newSessionId = (): string =>
  Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");

/** A session id has exactly the shape newSessionId makes; anything else is refused without store work. */
export const isSessionId = (value: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(value);

/** The only form in which a session id reaches the store. */
export const sessionDigest = (id: string): string => sha256(id).toString("hex");

/** The session's CSRF token: derived from its id, so it is never stored and differs from the stored digest. */
export const csrfToken = (id: string): string => sha256(`roomd-csrf:${id}`).toString("base64url");

/** True when `given` is the session's CSRF token (constant time). */
export function csrfMatches(id: string, given: string | undefined): boolean {
  if (given === undefined || given.length > 100) return false;
  return sameDigest(sha256(csrfToken(id)), sha256(given));
}

export type SignIn =
  | { ok: true; id: string; session: StoredSession; principal: Principal }
  | { ok: false; status: 401 | 403 | 429 | 503; error: string };

export interface Sessions {
  /** Signs a person in with a key or a person's invite; agents' keys are refused. */
  signIn(secret: string): Promise<SignIn>;
  /** Signs in the person the trusted proxy vouched for (TRUSTED_PROXY_*). */
  signInProxied(principal: Principal): Promise<SignIn>;
  /**
   * The principal of a session id, its credential admitted again (one unit of `bucket`). null: no such live
   * session (unknown, ended, signed out, or its key or invite revoked — then it is deleted). A session opened
   * through the trusted proxy counts only on a request the proxy vouches for the same person (`proxied`): its
   * cookie alone, sent around the proxy, is nothing.
   */
  admit(
    id: string,
    bucket: Bucket,
    proxied?: { teamId: string; humanId: string } | null,
  ): Promise<{ session: StoredSession; admission: Admission } | null>;
  /** The live session of an id without admitting its credential (no rate charge), or null. */
  peek(id: string): Promise<StoredSession | null>;
  signOut(id: string): Promise<void>;
}

/** This is an agent's key: the refusal every sign-in form shows. */
export const AGENT_KEY_REFUSED = "This is an agent key; sign in with a person's key";

export function createSessions(deps: { store: RoomStore; gate: Gate; now: () => number }): Sessions {
  const { store, gate } = deps;

  async function open(principal: Principal, credential: SessionCredential): Promise<SignIn> {
    const humanId = principal.humanId as string;
    const id = newSessionId();
    const session = await store.createSession(
      sessionDigest(id),
      { teamId: principal.teamId, humanId, credential, createdAt: iso(deps.now()) },
      SESSION_TTL_MS,
    );
    return { ok: true, id, session, principal };
  }

  return {
    async signIn(secret) {
      const admission = await gate(secret, "meta");
      if (!admission.ok) {
        if (admission.status === 429) return { ok: false, status: 429, error: "Rate limit exceeded" };
        if (admission.status === 503)
          return { ok: false, status: 503, error: "Store unavailable, retry shortly" };
        return { ok: false, status: 401, error: "Unknown or revoked key" };
      }
      const { principal } = admission;
      if (principal.humanId === undefined) return { ok: false, status: 403, error: AGENT_KEY_REFUSED };
      const digest = sha256(secret).toString("hex");
      const credential: SessionCredential =
        principal.kind === "invite"
          ? { kind: "invite", digest, roomId: roomOfInvite(secret) as string }
          : principal.keyId !== undefined && teamOfKey(secret) !== null
            ? { kind: "key", digest }
            : { kind: "env", digest };
      return open(principal, credential);
    },

    signInProxied: (principal) => open(principal, { kind: "proxy" }),

    async admit(id, bucket, proxied) {
      if (!isSessionId(id)) return null;
      const digest = sessionDigest(id);
      const session = await store.touchSession(digest, SESSION_TTL_MS);
      if (!session) return null;
      if (
        session.credential.kind === "proxy" &&
        (proxied?.teamId !== session.teamId || proxied?.humanId !== session.humanId)
      ) {
        return null;
      }
      const admission = await gate.credential(session.credential, session.teamId, session.humanId, bucket);
      if (!admission.ok && admission.status === 401) {
        // The key or invite it was opened with is gone: so is the session.
        await store.deleteSession(digest);
        return null;
      }
      if (admission.ok && admission.principal.humanId !== session.humanId) {
        await store.deleteSession(digest);
        return null;
      }
      return { session, admission };
    },

    peek: (id) =>
      isSessionId(id) ? store.touchSession(sessionDigest(id), SESSION_TTL_MS) : Promise.resolve(null),

    async signOut(id) {
      if (isSessionId(id)) await store.deleteSession(sessionDigest(id));
    },
  };
}
