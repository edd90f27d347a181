/**
 * The authorization endpoint (OAuth 2.1 section 4.1; docs/security.md#oauth). GET checks the request — the client
 * and its exact redirect URI first (a bad one is shown as a page, never redirected to), then code + PKCE S256 and
 * the resource (RFC 8707: this roomd's `/mcp`), refused by a redirect with `error` — and shows the consent page
 * to the person signed in (roomd's own sign-in: a person's key or the trusted proxy; sign-in goes through /login and
 * comes back here, the request kept meanwhile in a short-lived cookie). POST is the consent form: the same session,
 * same-origin with the session's CSRF token, every parameter checked again; it stores the grant and redirects with
 * `code`, `state` and `iss` (RFC 9207). The rooms offered and accepted are the team's rooms the person's own sign-in
 * reaches (a person on a scoped key cannot give a client more), and a person signed in read-only gives only reads.
 */
import { type Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { sha256 } from "../access/digest.ts";
import { newGrantId, newOAuthSecret } from "../access/oauth-secrets.ts";
import { csrfMatches } from "../access/sessions.ts";
import { resolveClient } from "../http/oauth/clients.ts";
import type { OAuthDeps } from "../http/oauth/deps.ts";
import { CHALLENGE, CODE_TTL_MS } from "../http/oauth/grants.ts";
import { issuerOf, resourceOf } from "../http/oauth/urls.ts";
import { agentIdSchema, isRoomId } from "../protocol/ids.ts";
import { MAX_SCOPE_ROOMS, reachesRoom } from "../protocol/key-life.ts";
import type { Principal } from "../protocol/principal.ts";
import { iso } from "../protocol/time.ts";
import { assets } from "./assets.ts";
import { messagePage, PAGE_CSP, pageHeaders } from "./layout.ts";
import { secureCookie } from "./login.ts";
import { type ConsentRequest, consentPage, PARAMS, type Params } from "./oauth-consent.ts";
import { signedIn, type WebDeps } from "./shared.ts";

/** The pending authorization request while the person signs in (its query string; checked again on return). */
const PENDING_COOKIE = "roomd_oauth";
const PENDING_SECONDS = 600;
const PENDING_MAX = 3800;
type Checked =
  | ({ ok: true } & ConsentRequest)
  /** No trustworthy redirect: shown as a page. */
  | { ok: false; page: string }
  /** Refused by redirecting to the client with `error`. */
  | { ok: false; redirect: string };

function paramsOf(source: (name: string) => string | undefined): Params {
  const params: Params = {};
  for (const name of PARAMS) {
    const value = source(name);
    if (value !== undefined && value.length <= 2048) params[name] = value;
  }
  return params;
}

/** The client's redirect URI with the answer's parameters (iss always, state when the request had one). */
function answer(redirectUri: string, values: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(values))
    if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

async function check(c: Context, deps: OAuthPageDeps, params: Params): Promise<Checked> {
  const found = await resolveClient(params.client_id);
  if (!found.ok) return { ok: false, page: found.error };
  const { client } = found;
  const redirectUri = params.redirect_uri;
  if (redirectUri === undefined || !client.redirectUris.includes(redirectUri))
    return { ok: false, page: "redirect_uri is missing or is not one the client registered (exact match)" };
  const iss = issuerOf(c, deps.settings);
  const refuse = (error: string, description: string): Checked => ({
    ok: false,
    redirect: answer(redirectUri, { error, error_description: description, state: params.state, iss }),
  });
  if (params.response_type !== "code")
    return refuse("unsupported_response_type", "response_type must be code");
  if (params.code_challenge_method !== "S256" || !CHALLENGE.test(params.code_challenge ?? ""))
    return refuse("invalid_request", "PKCE is required: code_challenge with code_challenge_method S256");
  const resource = resourceOf(iss);
  if (params.resource !== resource) return refuse("invalid_target", `resource must be ${resource}`);
  return { ok: true, client, redirectUri, params };
}

/** The form-action of the consent page must allow the redirect that follows its submission. */
function consentHeaders(c: Context, redirectUri: string): void {
  pageHeaders(c);
  const origin = new URL(redirectUri).origin;
  c.header("Content-Security-Policy", PAGE_CSP.replace("form-action 'self'", `form-action 'self' ${origin}`));
  // A plain form's POST carries its Origin only under a policy that sends one (layout.ts PageOptions.referrer).
  c.header("Referrer-Policy", "same-origin");
}

/** The rooms a person may hand to a client: their team's rooms that their own sign-in reaches. */
async function roomsFor(deps: OAuthPageDeps, principal: Principal): Promise<string[]> {
  return (await deps.store.listRooms(principal.teamId))
    .map((r) => r.roomId)
    .filter((roomId) => reachesRoom(principal, roomId));
}

/** The pages need the web deps (sessions, the proxy) besides the OAuth ones. */
export type OAuthPageDeps = OAuthDeps & WebDeps;

export function authorizeRoutes(deps: OAuthPageDeps): Hono {
  const app = new Hono();

  const problemPage = async (c: Context, text: string, status: 400 | 403 = 400) => {
    pageHeaders(c);
    return c.html(messagePage(await assets(), "Cannot connect", text), status);
  };

  // Anyone may ask, and a metadata document client costs a fetch: the public per-address budget first.
  app.use("/oauth/authorize", async (c, next) => {
    const limited = deps.publicGate(c);
    if (limited) return limited;
    await next();
  });

  app.get("/oauth/authorize", async (c) => {
    const query = new URL(c.req.url).search;
    const pending = query === "" ? getCookie(c, PENDING_COOKIE) : undefined;
    const search = new URLSearchParams(pending ?? query);
    const params = paramsOf((name) => search.get(name) ?? undefined);
    const checked = await check(c, deps, params);
    if (!checked.ok)
      return "page" in checked ? problemPage(c, checked.page) : c.redirect(checked.redirect, 302);
    const person = await signedIn(c, deps);
    if (!person) {
      const pendingValue = search.toString();
      // Browsers drop a cookie over 4 KB: then the request cannot wait across the sign-in.
      if (pendingValue.length > PENDING_MAX)
        return problemPage(
          c,
          "This request is too long to keep while you sign in: sign in at /login first, then start again from the client",
        );
      setCookie(c, PENDING_COOKIE, pendingValue, {
        httpOnly: true,
        sameSite: "Lax",
        path: "/oauth",
        maxAge: PENDING_SECONDS,
        secure: secureCookie(c, deps),
      });
      return c.redirect("/login?next=/oauth/authorize", 303);
    }
    if (pending !== undefined) deleteCookie(c, PENDING_COOKIE, { path: "/oauth" });
    if (person.principal.kind === "invite")
      return problemPage(c, "Sign in with a person's key to connect a client (an invite cannot)", 403);
    const rooms = await roomsFor(deps, person.principal);
    consentHeaders(c, checked.redirectUri);
    return c.html(consentPage(person, checked, rooms, await assets()));
  });

  app.post("/oauth/authorize", async (c) => {
    const person = await signedIn(c, deps);
    if (!person) return problemPage(c, "Your session ended; start the connection again from the client", 403);
    const body = await c.req.parseBody({ all: true }).catch(() => ({}) as Record<string, unknown>);
    const field = (name: string) => {
      const value = (body as Record<string, unknown>)[name];
      return typeof value === "string" && value.length <= 2048 ? value : undefined;
    };
    /** A field that may repeat (the rooms' checkboxes): every value, or null when one is not a short string. */
    const fields = (name: string): string[] | null => {
      const value = (body as Record<string, unknown>)[name];
      const all = value === undefined ? [] : Array.isArray(value) ? value : [value];
      return all.every((v) => typeof v === "string" && v.length <= 2048) ? (all as string[]) : null;
    };
    if (c.req.header("origin") === undefined || !csrfMatches(person.id, field("csrf")))
      return problemPage(c, "The form is stale or came from another site; start again from the client", 403);
    if (person.principal.kind === "invite")
      return problemPage(c, "Sign in with a person's key to connect a client (an invite cannot)", 403);
    const checked = await check(c, deps, paramsOf(field));
    if (!checked.ok)
      return "page" in checked ? problemPage(c, checked.page) : c.redirect(checked.redirect, 303);
    const iss = issuerOf(c, deps.settings);
    const { params, redirectUri } = checked;
    if (field("decision") !== "allow")
      return c.redirect(answer(redirectUri, { error: "access_denied", state: params.state, iss }), 303);
    const picked = fields("room");
    const agent = agentIdSchema.safeParse(field("agent") ?? "");
    const rooms = await roomsFor(deps, person.principal);
    // Kept in the order the page lists them, each once: the first is the grant's roomId.
    const chosen = rooms.filter((roomId) => picked?.includes(roomId));
    const roomsOk =
      picked !== null &&
      picked.length > 0 &&
      picked.every((roomId) => isRoomId(roomId) && rooms.includes(roomId)) &&
      chosen.length <= MAX_SCOPE_ROOMS;
    const readOnlyField = field("readOnly");
    const readOnlyOk = readOnlyField === undefined || readOnlyField === "on";
    if (!roomsOk || !agent.success || !readOnlyOk) {
      consentHeaders(c, redirectUri);
      const problem = !roomsOk
        ? `Pick one or more (at most ${MAX_SCOPE_ROOMS}) of your team's rooms`
        : !readOnlyOk
          ? "Read only is a checkbox: on or absent"
          : `Agent id ${agent.success ? "" : agent.error.issues[0]?.message}`;
      return c.html(consentPage(person, checked, rooms, await assets(), problem), 400);
    }
    const { principal } = person;
    const readOnly = readOnlyField === "on" || principal.readOnly === true;
    const t = deps.now();
    const code = newOAuthSecret("code", principal.teamId);
    await deps.store.createOAuthGrant({
      grantId: newGrantId(principal.teamId),
      teamId: principal.teamId,
      humanId: person.session.humanId,
      // A stored key's person: the grant dies with that key (env keys and the proxy's people have none).
      ...(person.session.credential.kind === "key" && principal.keyId !== undefined
        ? { keyId: principal.keyId }
        : {}),
      clientId: checked.client.clientId,
      clientName: checked.client.name,
      redirectUri,
      resource: resourceOf(iss),
      roomId: chosen[0] as string,
      ...(chosen.length > 1 ? { rooms: chosen } : {}),
      ...(readOnly ? { readOnly: true as const } : {}),
      agentId: agent.data,
      createdAt: iso(t),
      expiresAt: iso(t + CODE_TTL_MS),
      codeDigest: sha256(code).toString("hex"),
      codeChallenge: params.code_challenge as string,
    });
    return c.redirect(answer(redirectUri, { code, state: params.state, iss }), 303);
  });

  return app;
}
