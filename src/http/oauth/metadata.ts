/**
 * OAuth 2.1 for MCP clients (docs/security.md#oauth; OAUTH=off removes every route here): the protected resource
 * metadata (RFC 9728) of `/mcp`, the authorization server metadata (RFC 8414), dynamic registration (RFC 7591), the
 * token endpoint and revocation (RFC 7009). The authorization endpoint and its consent page are pages
 * (src/web/oauth-authorize.ts). The metadata, the
 * registration, the token endpoint and revocation are read by clients of any origin and carry no cookie: they answer
 * CORS and are open to every Origin (app.ts).
 */
import { Hono } from "hono";
import { cors } from "hono/cors";
import { register } from "./clients.ts";
import type { OAuthDeps } from "./deps.ts";
import { oauthError, tokenRoutes } from "./token.ts";
import { issuerOf, OAUTH_OPEN_ROUTES, OAUTH_SCOPES, resourceOf } from "./urls.ts";

/** The OAuth routes but the authorization endpoint (a page: src/web/oauth-authorize.ts). */
export function oauthApiRoutes(deps: OAuthDeps): Hono {
  const app = new Hono();
  const open = cors({
    origin: "*",
    allowMethods: ["GET", "POST", "OPTIONS"],
    allowHeaders: ["content-type", "authorization", "mcp-protocol-version"],
    maxAge: 600,
  });
  for (const path of OAUTH_OPEN_ROUTES) app.use(path, open);

  const protectedResource = (issuer: string) => ({
    resource: resourceOf(issuer),
    authorization_servers: [issuer],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "roomd",
  });
  app.get("/.well-known/oauth-protected-resource", (c) =>
    c.json(protectedResource(issuerOf(c, deps.settings))),
  );
  app.get("/.well-known/oauth-protected-resource/mcp", (c) =>
    c.json(protectedResource(issuerOf(c, deps.settings))),
  );
  app.get("/.well-known/oauth-authorization-server", (c) => {
    const issuer = issuerOf(c, deps.settings);
    return c.json({
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      registration_endpoint: `${issuer}/oauth/register`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      scopes_supported: [...OAUTH_SCOPES],
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      revocation_endpoint_auth_methods_supported: ["none"],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      protected_resources: [resourceOf(issuer)],
    });
  });

  app.post("/oauth/register", async (c) => {
    const limited = deps.publicGate(c);
    if (limited) return limited;
    const body = await c.req.json().catch(() => null);
    const result = register(body, deps.now());
    if (!result.ok) return oauthError(c, result.error, result.description);
    c.header("Cache-Control", "no-store");
    return c.json(result.answer, 201);
  });

  app.route("/", tokenRoutes(deps));
  return app;
}
