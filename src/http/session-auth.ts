/**
 * The web session half of authentication (docs/web.md): a `roomd_session` cookie authenticates a request that
 * carries no bearer as the session's person, and a browser's state-changing request must prove it comes from
 * roomd's own page — a same-origin `Origin` (the Origin check has already refused foreign ones) and the session's
 * `X-CSRF-Token` — or it is refused with 403 before any store work. Bearer requests carry no cookie and are not
 * concerned.
 */
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import type { Admission, Bucket } from "../access/gate.ts";
import { csrfMatches, SESSION_COOKIE, type Sessions } from "../access/sessions.ts";
import type { Principal } from "../protocol/principal.ts";

/** Methods that change nothing: no CSRF proof needed. */
const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

export const CSRF_HEADER = "x-csrf-token";

export const isSafeMethod = (c: Context) => SAFE.has(c.req.method);

/** The session id the browser sent, if any. */
export const sessionIdOf = (c: Context): string | undefined => getCookie(c, SESSION_COOKIE);

/** Why a state-changing request is refused, or null when it proves it comes from a page of this session. */
export function csrfRefusal(c: Context, sessionId: string): Response | null {
  if (isSafeMethod(c)) return null;
  if (c.req.header("origin") === undefined)
    return c.json({ error: "Requests made with a session need an Origin header" }, 403);
  if (!csrfMatches(sessionId, c.req.header(CSRF_HEADER)))
    return c.json({ error: "Missing or wrong X-CSRF-Token (reload the page)" }, 403);
  return null;
}

export type SessionAdmission = { admission: Admission } | { failure: Response; unknown?: boolean };

/** A request authenticated by its session cookie: CSRF first (no store work for a forged request), then the store. */
export async function admitSession(
  c: Context,
  sessions: Sessions,
  id: string,
  bucket: Bucket,
): Promise<SessionAdmission> {
  const refused = csrfRefusal(c, id);
  if (refused) return { failure: refused };
  const found = await sessions.admit(id, bucket);
  if (!found)
    return {
      failure: c.json({ error: "Session expired or signed out; sign in again at /login" }, 401),
      unknown: true,
    };
  return { admission: found.admission };
}

/**
 * A browser's state-changing request through the trusted proxy: the proxy's header says who it is, but a page of
 * another site could make the browser send it too, so it must carry the CSRF token of a session of the same person.
 * Requests without Origin (scripts, CLIs behind the proxy) are not browsers' and pass.
 */
export async function proxiedCsrfRefusal(
  c: Context,
  sessions: Sessions,
  principal: Principal,
): Promise<Response | null> {
  if (isSafeMethod(c) || c.req.header("origin") === undefined) return null;
  const id = sessionIdOf(c);
  const refusal = () => c.json({ error: "Missing or wrong X-CSRF-Token (reload the page)" }, 403);
  if (id === undefined) return refusal();
  const refused = csrfRefusal(c, id);
  if (refused) return refused;
  const session = await sessions.peek(id);
  if (!session || session.teamId !== principal.teamId || session.humanId !== principal.humanId)
    return refusal();
  return null;
}
