/**
 * The token endpoint (OAuth 2.1 section 3.2) and revocation (RFC 7009), both form-encoded and open to any origin
 * (public clients; no cookie is read). A code or refresh token names its team, so each request is one store
 * operation (plus the revocation below when a check fails). Every check that fails after the store spent the code or
 * refresh token revokes the grant: whoever presented it did not hold the client's PKCE verifier, redirect or id.
 */
import { type Context, Hono } from "hono";
import { sha256 } from "../../access/digest.ts";
import { newOAuthSecret, type OAuthSecretKind, teamOfOAuth } from "../../access/oauth-secrets.ts";
import { iso } from "../../protocol/time.ts";
import type { OAuthGrantRecord } from "../../store/oauth-types.ts";
import { clientAddress, tooManyFailures } from "../auth.ts";
import type { OAuthDeps } from "./deps.ts";
import { ACCESS_TTL_MS, pkceMatches, REFRESH_TTL_MS } from "./grants.ts";
import { issuerOf, OAUTH_SCOPES, resourceOf } from "./urls.ts";

/** An OAuth error answer (RFC 6749 section 5.2), never cached. */
export function oauthError(
  c: Context,
  error: string,
  description: string,
  status: 400 | 401 = 400,
): Response {
  c.header("Cache-Control", "no-store");
  return c.json({ error, error_description: description }, status);
}

/** The form of a POST, or null when it is not form-encoded (or not a form of single strings). */
async function formOf(c: Context): Promise<Record<string, string> | null> {
  const type = c.req.header("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) return null;
  try {
    const body = await c.req.parseBody();
    const form: Record<string, string> = {};
    for (const [name, value] of Object.entries(body)) {
      if (typeof value !== "string") return null;
      form[name] = value;
    }
    return form;
  } catch {
    return null;
  }
}

const digestOf = (secret: string) => sha256(secret).toString("hex");

export function tokenRoutes(deps: OAuthDeps): Hono {
  const app = new Hono();

  app.post("/oauth/token", async (c) => {
    const address = clientAddress(c);
    if (deps.failures.blocked(address)) return tooManyFailures(c);
    const form = await formOf(c);
    if (!form) return oauthError(c, "invalid_request", "send application/x-www-form-urlencoded");
    const grantType = form.grant_type;
    const kind: OAuthSecretKind | null =
      grantType === "authorization_code" ? "code" : grantType === "refresh_token" ? "refresh" : null;
    if (kind === null)
      return oauthError(c, "unsupported_grant_type", "grant_type is authorization_code or refresh_token");
    const presented = kind === "code" ? form.code : form.refresh_token;
    if (!presented)
      return oauthError(
        c,
        "invalid_request",
        kind === "code" ? "code is required" : "refresh_token is required",
      );
    if (!form.client_id) return oauthError(c, "invalid_request", "client_id is required");
    const resource = resourceOf(issuerOf(c, deps.settings));
    if (form.resource !== undefined && form.resource !== resource)
      return oauthError(c, "invalid_target", `resource must be ${resource}`);
    const teamId = teamOfOAuth(kind, presented);
    const refused = () => {
      deps.failures.note(address);
      return oauthError(
        c,
        "invalid_grant",
        `the ${kind === "code" ? "code" : "refresh token"} is unknown, expired, revoked or already used`,
      );
    };
    if (teamId === null) return refused();
    const t = deps.now();
    const access = newOAuthSecret("access", teamId);
    const refresh = newOAuthSecret("refresh", teamId);
    const result = await deps.store.exchangeOAuthGrant(teamId, {
      presented: { kind, digest: digestOf(presented) },
      accessDigest: digestOf(access),
      accessExpiresAt: iso(t + ACCESS_TTL_MS),
      refreshDigest: digestOf(refresh),
      refreshExpiresAt: iso(t + REFRESH_TTL_MS),
    });
    if (result.status !== "ok") return refused();
    const { grant } = result;
    const problem = mismatch(grant, form, kind, resource);
    if (problem) {
      await deps.store.revokeOAuthGrant(teamId, { grantId: grant.grantId });
      deps.failures.note(address);
      return oauthError(c, "invalid_grant", problem);
    }
    c.header("Cache-Control", "no-store");
    c.header("Pragma", "no-cache");
    return c.json({
      access_token: access,
      token_type: "Bearer",
      expires_in: Math.floor(ACCESS_TTL_MS / 1000),
      refresh_token: refresh,
      scope: OAUTH_SCOPES.join(" "),
    });
  });

  app.post("/oauth/revoke", async (c) => {
    const form = await formOf(c);
    if (!form?.token) return oauthError(c, "invalid_request", "token is required (form-encoded)");
    // RFC 7009 section 2.2: an unknown or already revoked token is answered as a revoked one.
    const token = form.token;
    const teamId = teamOfOAuth("access", token) ?? teamOfOAuth("refresh", token);
    if (teamId !== null) await deps.store.revokeOAuthGrant(teamId, { digest: digestOf(token) });
    c.header("Cache-Control", "no-store");
    return c.body(null, 200);
  });

  return app;
}

/** Why the grant may not be handed to this request (the client's id, redirect, PKCE verifier, resource), or null. */
function mismatch(
  grant: OAuthGrantRecord & { codeChallenge: string },
  form: Record<string, string>,
  kind: OAuthSecretKind,
  resource: string,
): string | null {
  if (grant.clientId !== form.client_id) return "the code or token was issued to another client";
  if (grant.resource !== resource) return "the grant is for another resource";
  if (kind !== "code") return null;
  if (form.redirect_uri !== grant.redirectUri) return "redirect_uri differs from the authorization request's";
  if (!pkceMatches(form.code_verifier, grant.codeChallenge))
    return "code_verifier is missing or does not match";
  return null;
}
