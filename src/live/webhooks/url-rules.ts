/**
 * The registration-time half of the SSRF guard: a webhook URL is refused when it is malformed, not https (unless
 * WEBHOOK_ALLOW_HTTP=true), carries credentials, or plainly names a private place — `localhost`, `*.localhost`,
 * or an IP literal in a refused range (unless WEBHOOK_ALLOW_PRIVATE=true). Names are not resolved here: DNS can
 * change after registration, so send time resolves and checks again (see pin.ts).
 *
 * The WHATWG URL parser canonicalises hosts first, so `http://2130706433`, `http://0x7f.1` and `http://0177.0.0.1`
 * all arrive here as `127.0.0.1`, and `[::ffff:127.0.0.1]` as `[::ffff:7f00:1]`.
 */
import { RoomError } from "../../protocol/errors.ts";
import { describeRange, isIpAddress, refusedRange } from "./address.ts";

/** Longest URL accepted, before and after normalisation. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** The switches of the guard; both default to false (config: WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE). */
export interface UrlFlags {
  /** Accept plain http as well as https. */
  allowHttp: boolean;
  /** Accept loopback, private, link-local and other refused addresses (on-premises and tests). */
  allowPrivate: boolean;
}

/** The rule a URL broke; stable names for tests and logs. */
export type UrlRule = "too_long" | "malformed" | "scheme" | "credentials" | "localhost" | "refused_address";

/** The normalised URL, or the rule it broke and a message for the registering client. */
export type UrlVerdict = { ok: true; url: URL } | { ok: false; rule: UrlRule; message: string };

const ALLOW_HTTP = "set WEBHOOK_ALLOW_HTTP=true to allow http";
const ALLOW_PRIVATE = "set WEBHOOK_ALLOW_PRIVATE=true to allow private addresses";

const refuse = (rule: UrlRule, message: string): UrlVerdict => ({ ok: false, rule, message });

/** `localhost`, `a.b.localhost` (RFC 6761 reserves the whole tree for loopback), with or without a final dot. */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.+$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/** A URL's host as an address or name, without IPv6 brackets: what a resolver or socket takes. */
export const bareHost = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, "$1");

/**
 * Judges a webhook URL without throwing: the normalised URL (fragment dropped) or the rule it broke, with a
 * message naming the rule and, where a flag would allow it, the flag. Used at registration and again at send time.
 */
export function inspectWebhookUrl(raw: string, flags: UrlFlags): UrlVerdict {
  const tooLong = `Webhook URL is too long (at most ${MAX_WEBHOOK_URL_LENGTH} characters)`;
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) return refuse("too_long", tooLong);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse(
      "malformed",
      "Webhook URL is malformed (expected an absolute URL such as https://host/path)",
    );
  }
  if (url.protocol !== "https:" && !(flags.allowHttp && url.protocol === "http:")) {
    return refuse(
      "scheme",
      flags.allowHttp ? "Webhook URL must use https or http" : `Webhook URL must use https (${ALLOW_HTTP})`,
    );
  }
  // Credentials in a URL end up in logs and admin listings; the signature is the authentication.
  if (url.username !== "" || url.password !== "") {
    return refuse("credentials", "Webhook URL must not contain a user name or password");
  }
  if (url.port === "0") return refuse("malformed", "Webhook URL is malformed (port 0)");
  if (!flags.allowPrivate) {
    const host = bareHost(url);
    if (isLocalhostName(host)) {
      return refuse("localhost", `Webhook URL must not point at localhost (${ALLOW_PRIVATE})`);
    }
    const range = isIpAddress(host) ? refusedRange(host) : null;
    if (range) {
      return refuse(
        "refused_address",
        `Webhook URL must not point at a ${describeRange(range)} address (${ALLOW_PRIVATE})`,
      );
    }
  }
  url.hash = ""; // never sent over HTTP; dropping it keeps stored URLs comparable
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) return refuse("too_long", tooLong);
  return { ok: true, url };
}

/**
 * Registration's check: the normalised URL, or a RoomError("invalid") (an HTTP 400 from the admin routes) whose
 * message names the rule.
 */
export function checkWebhookUrl(raw: string, flags: UrlFlags): string {
  const verdict = inspectWebhookUrl(raw, flags);
  if (!verdict.ok) throw new RoomError("invalid", verdict.message);
  return verdict.url.href;
}
