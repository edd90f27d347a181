/**
 * A Standard Webhooks receiver's verifier, written from the Standard Webhooks specification alone (not from roomd's
 * signer) so that tests of signing and delivery check roomd against the standard rather than against itself. It
 * uses WebCrypto where roomd uses node:crypto, and parses everything itself:
 * - the secret is `whsec_` + base64; the key is the decoded bytes after the prefix;
 * - the signed content is `<webhook-id>.<webhook-timestamp>.<raw body>`, HMAC-SHA256, base64;
 * - `webhook-signature` is a space-separated list of `<version>,<signature>`; only `v1` entries count, and one
 *   match is enough;
 * - `webhook-timestamp` is integer unix seconds and must lie within the tolerance of now (replay protection);
 * - signatures are compared in constant time.
 */

/** Why verification failed; tests assert on the reason, so a wrong rejection cannot pass for a right one. */
export type VerifyFailure =
  | "missing_headers"
  | "bad_secret"
  | "bad_timestamp"
  | "timestamp_too_old"
  | "timestamp_too_new"
  | "no_matching_signature";

export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailure };

export interface VerifyInput {
  secret: string;
  /** Header names in any case. */
  headers: Record<string, string> | Headers;
  /** The raw body exactly as received. */
  body: string;
  /** Receiver's clock, ms since epoch. */
  nowMs?: number;
  /** Accepted distance between webhook-timestamp and now, in seconds (5 minutes, as the reference libraries). */
  toleranceSeconds?: number;
}

function header(headers: VerifyInput["headers"], name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

function decodeBase64(text: string): Uint8Array<ArrayBuffer> | null {
  if (text.length === 0 || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return null;
  const binary = atob(text);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** Constant-time equality: the loop always runs over the whole expected value. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i % Math.max(b.length, 1)] ?? 0);
  return diff === 0;
}

/** Verifies one delivery the way a Standard Webhooks receiver would. */
export async function verifyStandardWebhook(input: VerifyInput): Promise<VerifyResult> {
  const id = header(input.headers, "webhook-id");
  const timestamp = header(input.headers, "webhook-timestamp");
  const signatures = header(input.headers, "webhook-signature");
  if (!id || !timestamp || !signatures) return { ok: false, reason: "missing_headers" };

  const rawSecret = input.secret.startsWith("whsec_") ? input.secret.slice("whsec_".length) : input.secret;
  const key = decodeBase64(rawSecret);
  if (!key) return { ok: false, reason: "bad_secret" };

  if (!/^\d+$/.test(timestamp)) return { ok: false, reason: "bad_timestamp" };
  const nowSeconds = Math.floor((input.nowMs ?? Date.now()) / 1000);
  const tolerance = input.toleranceSeconds ?? 300;
  const sent = Number(timestamp);
  if (nowSeconds - sent > tolerance) return { ok: false, reason: "timestamp_too_old" };
  if (sent - nowSeconds > tolerance) return { ok: false, reason: "timestamp_too_new" };

  const cryptoKey = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const content = new TextEncoder().encode(`${id}.${timestamp}.${input.body}`);
  const expected = new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, content));
  for (const entry of signatures.split(" ")) {
    const comma = entry.indexOf(",");
    if (comma < 0 || entry.slice(0, comma) !== "v1") continue;
    const given = decodeBase64(entry.slice(comma + 1));
    if (given && constantTimeEqual(expected, given)) return { ok: true };
  }
  return { ok: false, reason: "no_matching_signature" };
}
