/**
 * Answers serialised once, spliced into the SDK's response: a lone tools/list answers a per-process marker in
 * place of the tools and the cached listing bytes replace it; a lone tools/call answered as JSON with an answer of
 * SPLICE_FROM bytes or more answers markers in place of its text content and structuredContent, replaced by the
 * call path's one serialisation. The SDK still checks the request and frames the reply.
 */
import type { Catalog } from "./catalog.ts";
import type { Profile } from "./tool.ts";

/** Per process: the value the listing handler answers in place of the tools, replaced by their cached bytes. */
export const LISTING_MARKER = `roomd-tools-listing-${crypto.randomUUID()}`;
export const LISTING_QUOTED = JSON.stringify(LISTING_MARKER);
const encoder = new TextEncoder();

/** Each catalog's tools/list arrays, serialised once per profile (~116 KB for `full`: ~250 µs to stringify). */
const serialised = new WeakMap<Catalog, Map<string, Uint8Array>>();
export function listingBytes(catalog: Catalog, profile: Profile, readOnly = false): Uint8Array {
  let byProfile = serialised.get(catalog);
  if (!byProfile) {
    byProfile = new Map();
    serialised.set(catalog, byProfile);
  }
  const id = readOnly ? `${profile} read` : profile;
  let bytes = byProfile.get(id);
  if (!bytes) {
    bytes = encoder.encode(JSON.stringify(catalog.listing(profile, readOnly)));
    byProfile.set(id, bytes);
  }
  return bytes;
}

/** True for a body that is one request (not a batch) of `method`. */
export function lone(body: unknown, method: string): boolean {
  return (
    typeof body === "object" &&
    body !== null &&
    !Array.isArray(body) &&
    (body as { method?: unknown }).method === method
  );
}

/** Per process: what a tool call's handler answers in place of its text content and its structuredContent. */
export const TEXT_VALUE = `roomd-result-text-${crypto.randomUUID()}`;
export const STRUCTURED_VALUE = `roomd-result-structured-${crypto.randomUUID()}`;
export const TEXT_MARKER = JSON.stringify(TEXT_VALUE);
export const STRUCTURED_MARKER = JSON.stringify(STRUCTURED_VALUE);

/**
 * Answers at least this long are spliced into the response: below it, serialising the answer again inside the
 * response costs less than reading the response back (~5 µs).
 */
export const SPLICE_FROM = 2048;

/**
 * The SDK's answer (JSON or SSE framing, whatever it decided) with each quoted marker replaced (its first
 * occurrence) by its piece: the transport still checks the request and frames the reply; only the serialising of
 * what the pieces hold is skipped.
 */
export async function spliced(
  response: Response,
  piecesOf: () => [string, string | Uint8Array][],
): Promise<Response> {
  if (response.status !== 200 || !response.body) return response;
  // The pieces are known once the body is read (the handler has run by then).
  const text = await response.text();
  const pieces = piecesOf();
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  const found = pieces
    .map(([marker, piece]) => ({ at: text.indexOf(marker), length: marker.length, piece }))
    .filter((p) => p.at >= 0)
    .sort((a, b) => a.at - b.at);
  if (found.length === 0) return new Response(text, init);
  const parts: (string | Uint8Array)[] = [];
  let from = 0;
  for (const { at, length, piece } of found) {
    parts.push(text.slice(from, at), piece);
    from = at + length;
  }
  parts.push(text.slice(from));
  const strings = parts.every((part) => typeof part === "string");
  return new Response(strings ? parts.join("") : new Blob(parts), init);
}
