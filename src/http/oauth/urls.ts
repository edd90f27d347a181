/**
 * The URLs OAuth names (docs/security.md#oauth): the issuer (this roomd's public origin, OAUTH_ISSUER or the request's
 * own scheme and Host), the one protected resource `<issuer>/mcp` every token is bound to (RFC 8707), and the
 * metadata documents' addresses (RFC 9728, RFC 8414).
 */
import type { Context } from "hono";
import { ownOrigin } from "../origin.ts";

export interface OAuthSettings {
  /** OAUTH_ISSUER, when set: the origin every URL below is built on. */
  issuer?: string;
}

/** The issuer: OAUTH_ISSUER, or the origin this request was addressed to. */
export function issuerOf(c: Context, settings: OAuthSettings): string {
  return settings.issuer ?? (ownOrigin(c.req.raw)?.origin as string);
}

/** The protected resource: `<issuer>/mcp`. */
export const resourceOf = (issuer: string): string => `${issuer}/mcp`;

/** RFC 9728 section 3.1: the well-known path inserted before the resource's path. */
export const resourceMetadataUrl = (issuer: string): string =>
  `${issuer}/.well-known/oauth-protected-resource/mcp`;

/** The scopes roomd grants: `rooms` (act as an agent in the chosen room) — one scope, the consent picks the rest. */
export const OAUTH_SCOPES = ["rooms"] as const;

/** OAUTH_ISSUER, when set, is the origin every URL is built on. */
export const oauthSettings = (config: { oauthIssuer?: string }): OAuthSettings =>
  config.oauthIssuer ? { issuer: config.oauthIssuer } : {};

/** Paths any Origin may reach (app.ts's Origin check): read by browser-based clients, no cookie involved. */
export const OAUTH_OPEN_ROUTES = [
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/mcp",
  "/.well-known/oauth-authorization-server",
  "/oauth/register",
  "/oauth/token",
  "/oauth/revoke",
] as const;
