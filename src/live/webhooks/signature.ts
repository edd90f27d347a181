/**
 * Standard Webhooks signing (symmetric scheme, signature identifier `v1`). A secret is `whsec_` + base64 of random
 * bytes; the HMAC key is the base64-decoded part after the prefix. The signed content is
 * `<webhook-id>.<webhook-timestamp>.<body>` over the exact body bytes sent; the header value is `v1,<base64 MAC>`,
 * and several signatures (during a secret rotation) are space-separated.
 */
import { createHmac } from "node:crypto";
import pkg from "../../../package.json" with { type: "json" };

export const SECRET_PREFIX = "whsec_";
/** Random bytes in a new secret; Standard Webhooks asks for 24 to 64. */
export const SECRET_BYTES = 32;
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// The id and timestamp are concatenated with dots: neither may carry whitespace (header injection) nor `{`, which
// starts every body, so the signed string splits one way only.
const MESSAGE_ID = /^[A-Za-z0-9_.:-]{1,256}$/;

/** Random bytes source, injectable so tests can pin a secret. */
export type RandomBytes = (length: number) => Uint8Array;
const systemRandomBytes: RandomBytes = (length) => crypto.getRandomValues(new Uint8Array(length));

/** A new webhook secret, `whsec_<base64 of 32 random bytes>`: shown once at registration, then kept for signing. */
export function newWebhookSecret(randomBytes: RandomBytes = systemRandomBytes): string {
  return `${SECRET_PREFIX}${Buffer.from(randomBytes(SECRET_BYTES)).toString("base64")}`;
}

/** The HMAC key of a secret: the prefix (optional, as in Standard Webhooks) stripped, the rest strictly base64. */
export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (encoded === "" || !BASE64.test(encoded)) throw new TypeError("webhook secret is not whsec_ + base64");
  const key = Buffer.from(encoded, "base64");
  if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
    throw new TypeError(`webhook secret must hold ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes`);
  }
  return key;
}

/** What one signature covers. `timestamp` is unix seconds. */
export interface SignInput {
  secret: string;
  id: string;
  timestamp: number;
  body: string;
}

/** One `webhook-signature` entry: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
export function sign({ secret, id, timestamp, body }: SignInput): string {
  if (!MESSAGE_ID.test(id)) throw new TypeError("webhook id must be 1-256 chars of A-Z a-z 0-9 _ . : -");
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new TypeError("webhook timestamp must be whole unix seconds");
  }
  const mac = createHmac("sha256", secretKey(secret)).update(`${id}.${timestamp}.${body}`, "utf8");
  return `v1,${mac.digest("base64")}`;
}

/** Unix seconds of an epoch-milliseconds clock reading, as `webhook-timestamp` carries them. */
export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);

/** Inputs of webhookHeaders; `secret` may list several (old and new) while a secret is being rotated. */
export interface HeaderInput {
  secret: string | readonly string[];
  id: string;
  timestamp: number;
  body: string;
  /** roomd's version for `user-agent`; the package version by default. */
  version?: string;
}

/** Every header of a delivery: the three Standard Webhooks headers, content type and user agent. */
export function webhookHeaders(input: HeaderInput): Record<string, string> {
  const secrets = typeof input.secret === "string" ? [input.secret] : input.secret;
  if (secrets.length === 0) throw new TypeError("webhook needs at least one secret");
  const { id, timestamp, body } = input;
  return {
    "content-type": "application/json",
    "user-agent": `roomd/${input.version ?? pkg.version}`,
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": secrets.map((secret) => sign({ secret, id, timestamp, body })).join(" "),
  };
}
