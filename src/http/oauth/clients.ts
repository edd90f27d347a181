/**
 * Who an OAuth client is (docs/security.md#oauth). Two kinds of client_id, both public clients (no secret, PKCE):
 *
 * - a Client ID Metadata Document: an https URL with a path, whose JSON document (fetched at authorization, at most
 *   CIMD_MAX_BYTES within CIMD_TIMEOUT_MS, from the one public address checked, no redirects) names the same client_id and
 *   lists its redirect_uris. The MCP authorization specification requires https here, so there is no http exception.
 * - dynamic registration (RFC 7591, POST /oauth/register): the client_id is the registration itself, `dcr_` and its
 *   metadata as base64url JSON. Registration is open to anyone (as the MCP specification expects), so a stored
 *   registration would vouch for nothing more than this self-describing id does; nothing is stored.
 *
 * A redirect URI is https, or http on a loopback address (native clients, RFC 8252 section 7.3); never a fragment.
 */

import { isLoopbackName } from "../origin.ts";
import { type DocumentFetch, fetchDocumentText } from "./fetch-document.ts";

export interface OAuthClient {
  clientId: string;
  /** The client's own name for itself: shown on the consent page as the client's claim, not as verified. */
  name: string;
  redirectUris: string[];
}

export type ClientResult = { ok: true; client: OAuthClient } | { ok: false; error: string };

export const CIMD_MAX_BYTES = 5 * 1024;
export const CIMD_TIMEOUT_MS = 5_000;
const MAX_REDIRECTS = 5;
const MAX_URI = 512;
const MAX_NAME = 100;
const DCR_PREFIX = "dcr_";
/** Longest registered client_id (see register). */
export const MAX_CLIENT_ID = 1500;

/** Why a redirect URI is refused, or null when it may be registered. */
export function redirectUriProblem(uri: unknown): string | null {
  if (typeof uri !== "string" || uri.length > MAX_URI || !URL.canParse(uri))
    return "redirect_uris must be absolute URLs (at most 512 chars)";
  const url = new URL(uri);
  if (url.hash !== "" || uri.includes("#")) return "a redirect URI has no fragment";
  if (url.username !== "" || url.password !== "") return "a redirect URI carries no credentials";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && isLoopbackName(url.hostname) && url.hostname !== "localhost.") return null;
  return "a redirect URI is https, or http on a loopback address (127.0.0.1, [::1], localhost)";
}

/** The client's name as roomd keeps it: printable, trimmed, at most MAX_NAME chars. */
function cleanName(name: unknown, fallback: string): string {
  const text = typeof name === "string" ? name.replace(/[\p{Cc}\p{Cf}]/gu, "").trim() : "";
  return (text || fallback).slice(0, MAX_NAME);
}

/** Checks client metadata (a registration or a metadata document): public client, code grant, valid redirects. */
export function checkMetadata(
  body: Record<string, unknown>,
): { ok: true; redirectUris: string[] } | { ok: false; error: string } {
  const uris = body.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECTS)
    return { ok: false, error: `redirect_uris: 1 to ${MAX_REDIRECTS} URLs required` };
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) return { ok: false, error: problem };
  }
  const method = body.token_endpoint_auth_method;
  if (method !== undefined && method !== "none")
    return { ok: false, error: "token_endpoint_auth_method: roomd's clients are public (none) and use PKCE" };
  const grants = body.grant_types;
  if (
    grants !== undefined &&
    (!Array.isArray(grants) || grants.some((g) => g !== "authorization_code" && g !== "refresh_token"))
  )
    return { ok: false, error: "grant_types: only authorization_code and refresh_token" };
  const types = body.response_types;
  if (types !== undefined && (!Array.isArray(types) || types.some((t) => t !== "code")))
    return { ok: false, error: "response_types: only code" };
  return { ok: true, redirectUris: uris as string[] };
}

/** RFC 7591: a registration's answer, or its refusal (`invalid_redirect_uri` / `invalid_client_metadata`). */
export function register(
  body: unknown,
  now: number,
): { ok: true; answer: Record<string, unknown> } | { ok: false; error: string; description: string } {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return { ok: false, error: "invalid_client_metadata", description: "the body is a JSON object" };
  const meta = body as Record<string, unknown>;
  const checked = checkMetadata(meta);
  if (!checked.ok) {
    const error =
      checked.error.startsWith("redirect") || checked.error.startsWith("a redirect")
        ? "invalid_redirect_uri"
        : "invalid_client_metadata";
    return { ok: false, error, description: checked.error };
  }
  const name = cleanName(meta.client_name, "an unnamed client");
  const clientId =
    DCR_PREFIX + Buffer.from(JSON.stringify({ n: name, r: checked.redirectUris })).toString("base64url");
  // The id travels in URLs and in the cookie that keeps an authorization request across sign-in (browsers keep at
  // most 4 KB per cookie): a registration that would make it longer is refused.
  if (clientId.length > MAX_CLIENT_ID)
    return {
      ok: false,
      error: "invalid_client_metadata",
      description: `the redirect URIs and name together are too long (the client_id would exceed ${MAX_CLIENT_ID} chars)`,
    };
  return {
    ok: true,
    answer: {
      client_id: clientId,
      client_id_issued_at: Math.floor(now / 1000),
      client_name: name,
      redirect_uris: checked.redirectUris,
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    },
  };
}

/** A registered client from its self-describing id, or null when it is not one. */
function fromRegistration(clientId: string): OAuthClient | null {
  if (!clientId.startsWith(DCR_PREFIX) || clientId.length > MAX_CLIENT_ID) return null;
  try {
    const meta = JSON.parse(Buffer.from(clientId.slice(DCR_PREFIX.length), "base64url").toString("utf8")) as {
      n?: unknown;
      r?: unknown;
    };
    const checked = checkMetadata({ redirect_uris: meta.r });
    if (!checked.ok || typeof meta.n !== "string") return null;
    return { clientId, name: cleanName(meta.n, "an unnamed client"), redirectUris: checked.redirectUris };
  } catch {
    return null;
  }
}

/** True for a client_id that is a Client ID Metadata Document's URL: https, a path, no fragment or credentials. */
export function isMetadataUrl(clientId: string): boolean {
  if (clientId.length > MAX_URI || !URL.canParse(clientId)) return false;
  const url = new URL(clientId);
  return (
    url.protocol === "https:" &&
    url.pathname !== "/" &&
    url.hash === "" &&
    !clientId.includes("#") &&
    url.username === "" &&
    url.password === ""
  );
}

/** Fetches a Client ID Metadata Document (fetch-document.ts: pinned, bounded, no redirects) and checks it. */
async function fetchDocument(clientId: string, options: Partial<DocumentFetch>): Promise<ClientResult> {
  const fetched = await fetchDocumentText(new URL(clientId), {
    timeoutMs: CIMD_TIMEOUT_MS,
    maxBytes: CIMD_MAX_BYTES,
    ...options,
  });
  return fetched.ok ? checkDocument(clientId, fetched.text) : fetched;
}

/** A fetched Client ID Metadata Document checked: JSON, the same client_id, valid metadata. */
export function checkDocument(clientId: string, text: string): ClientResult {
  if (new TextEncoder().encode(text).length > CIMD_MAX_BYTES)
    return { ok: false, error: "the client's metadata document is too large" };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { ok: false, error: "the client's metadata document is not JSON" };
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    return { ok: false, error: "the client's metadata document is not a JSON object" };
  const meta = doc as Record<string, unknown>;
  if (meta.client_id !== clientId)
    return { ok: false, error: "the client's metadata document names another client_id" };
  const checked = checkMetadata(meta);
  if (!checked.ok) return { ok: false, error: `the client's metadata document: ${checked.error}` };
  return {
    ok: true,
    client: {
      clientId,
      name: cleanName(meta.client_name, new URL(clientId).host),
      redirectUris: checked.redirectUris,
    },
  };
}

/** The client a client_id names (a registration, or a metadata document fetched now). */
export async function resolveClient(
  clientId: string | undefined,
  fetching: Partial<DocumentFetch> = {},
): Promise<ClientResult> {
  if (!clientId) return { ok: false, error: "client_id is required" };
  const registered = fromRegistration(clientId);
  if (registered) return { ok: true, client: registered };
  if (isMetadataUrl(clientId)) return fetchDocument(clientId, fetching);
  return {
    ok: false,
    error: "unknown client_id: register at /oauth/register or use a metadata document URL",
  };
}
