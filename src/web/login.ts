/**
 * Signing in and out (docs/web.md). `GET /login` shows the form (and, with ROOM_SUMMARY=public, a form to open a room
 * by id); through the trusted proxy it signs the person in without one. `POST /login` takes a person's key (agents'
 * keys are refused), always opens a new session (an id the browser brought is never reused: no fixation) and sets
 * the `roomd_session` cookie. `POST /logout` deletes the session from the store, so every process forgets it.
 *
 * The form is protected like every state-changing request of a page: a same-origin Origin and an X-CSRF-Token — here
 * derived from a short-lived random `roomd_login` cookie the form page set (there is no session yet).
 */
import type { Context } from "hono";
import { Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { html } from "hono/html";
import { z } from "zod";
import {
  csrfMatches,
  csrfToken,
  isSessionId,
  newSessionId,
  SESSION_COOKIE,
  type SignIn,
} from "../access/sessions.ts";
import { checkBearer, clientAddress, tooManyFailures } from "../http/auth.ts";
import { parseBody } from "../http/errors.ts";
import { CSRF_HEADER, csrfRefusal } from "../http/session-auth.ts";
import { isRoomId } from "../protocol/ids.ts";
import type { Principal } from "../protocol/principal.ts";
import { assets } from "./assets.ts";
import { page, pageHeaders } from "./layout.ts";
import type { WebDeps } from "./shared.ts";
import { homeOf, safeNext, signedIn } from "./shared.ts";

/** The sign-in form's one-time cookie (its CSRF token is derived from it). */
const LOGIN_COOKIE = "roomd_login";
const LOGIN_COOKIE_SECONDS = 3600;

const loginBody = z.strictObject({
  key: z.string().min(1).max(512),
  next: z.string().max(200).optional(),
});

/** Secure when the request came over https, or always with COOKIE_SECURE=true (behind a TLS proxy). */
export const secureCookie = (c: Context, deps: WebDeps) =>
  deps.config.cookieSecure || new URL(c.req.url).protocol === "https:";

export function setSessionCookie(c: Context, deps: WebDeps, id: string): void {
  // No Max-Age: the browser keeps it for its session; the store ends it after 12 h without use.
  setCookie(c, SESSION_COOKIE, id, {
    httpOnly: true,
    sameSite: "Strict",
    path: "/",
    secure: secureCookie(c, deps),
  });
}

/** The person the trusted proxy vouches for on this request, if it is one of the proxy's. */
async function proxied(c: Context, deps: WebDeps): Promise<Principal | null> {
  if (!deps.proxy || c.req.header(deps.proxy.header) === undefined) return null;
  const checked = await checkBearer(c, { ...deps, sessions: null }, "meta");
  return "principal" in checked && checked.principal.kind === "proxy" ? checked.principal : null;
}

export function loginRoutes(deps: WebDeps): Hono {
  const app = new Hono();

  /** The sign-in page, or (signed in already, or through the proxy) on to where the person was going. */
  const showLogin = async (c: Context) => {
    // The "watch a room" form works without script too: /login?room=<id> goes to the room.
    const room = c.req.query("room");
    if (room !== undefined && isRoomId(room)) return c.redirect(`/room/${room}`, 303);
    const next = safeNext(c.req.query("next"));
    const current = await signedIn(c, deps);
    if (current) return c.redirect(next ?? current.home, 303);
    const person = await proxied(c, deps);
    if (person) {
      const opened = await deps.sessions.signInProxied(person);
      if (opened.ok) {
        setSessionCookie(c, deps, opened.id);
        return c.redirect(next ?? "/dashboard", 303);
      }
    }
    const nonce = newSessionId();
    setCookie(c, LOGIN_COOKIE, nonce, {
      httpOnly: true,
      sameSite: "Strict",
      path: "/login",
      maxAge: LOGIN_COOKIE_SECONDS,
      secure: secureCookie(c, deps),
    });
    pageHeaders(c);
    const isPublic = deps.config.roomSummary === "public";
    return c.html(
      page({
        title: "Sign in",
        assets: await assets(),
        script: "login",
        csrf: csrfToken(nonce),
        data: next ? { next } : {},
        body: html`<section class="card narrow" aria-labelledby="signin-title">
  <h1 id="signin-title">Sign in</h1>
  <p>Paste a person's roomd key: the first-run key in <code>data/operator.key</code>, a key made with
  <code>{"kind":"human"}</code>, or a person's invite. Agents' keys cannot sign in.</p>
  <form id="login-form" method="post" action="/login">
    <label for="key">Your key</label>
    <input id="key" name="key" type="password" autocomplete="current-password" required spellcheck="false">
    <button type="submit">Sign in</button>
    <p id="login-error" class="error" role="alert" hidden></p>
  </form>
</section>
${
  isPublic
    ? html`<section class="card narrow" aria-labelledby="open-title">
  <h2 id="open-title">Watch a room</h2>
  <p>Rooms are public on this server: open one by its id to watch it (without payloads).</p>
  <form id="open-room" method="get" action="/login">
    <label for="room-id">Room id</label>
    <input id="room-id" name="room" required pattern="[a-z0-9][a-z0-9_\\-]{1,63}" spellcheck="false"
      autocomplete="off" title="2-64 chars of a-z, 0-9, _ and -">
    <button type="submit">Open</button>
  </form>
</section>`
    : ""
}`,
      }),
    );
  };
  app.get("/", showLogin);
  app.get("/login", showLogin);

  app.post("/login", async (c) => {
    const nonce = getCookie(c, LOGIN_COOKIE);
    if (c.req.header("origin") === undefined)
      return c.json({ error: "Sign-in requests need an Origin header" }, 403);
    if (nonce === undefined || !csrfMatches(nonce, c.req.header(CSRF_HEADER)))
      return c.json({ error: "Missing or wrong X-CSRF-Token (reload the sign-in page)" }, 403);
    const address = clientAddress(c);
    if (deps.failures.blocked(address)) return tooManyFailures(c);
    const body = await parseBody(c, loginBody);
    const result: SignIn = await deps.sessions.signIn(body.key);
    if (!result.ok) {
      if (result.status === 401) deps.failures.note(address);
      return c.json({ error: result.error }, result.status);
    }
    // A session the browser brought (someone else's, or planted) ends here; the new one has a fresh id.
    const before = getCookie(c, SESSION_COOKIE);
    if (before !== undefined && isSessionId(before)) await deps.sessions.signOut(before);
    deleteCookie(c, LOGIN_COOKIE, { path: "/login" });
    setSessionCookie(c, deps, result.id);
    const { principal } = result;
    const home = homeOf(principal);
    return c.json({
      ok: true,
      humanId: principal.humanId,
      teamId: principal.teamId,
      next: safeNext(body.next) ?? home,
    });
  });

  app.post("/logout", async (c) => {
    const id = getCookie(c, SESSION_COOKIE);
    if (id !== undefined) {
      const refused = csrfRefusal(c, id);
      if (refused) return refused;
      await deps.sessions.signOut(id);
    }
    deleteCookie(c, SESSION_COOKIE, { path: "/", secure: secureCookie(c, deps) });
    return c.json({ ok: true });
  });

  return app;
}
