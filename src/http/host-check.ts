/**
 * A request whose Host header is not a host (with an optional port) is refused with 400 before anything else
 * runs. Bun builds the request's URL from that header, so `Host: a b`, `a@b`, `[::1` or `127.0.0.1:99999` give a
 * URL nothing can parse: every later step that reads it (the Origin check, the MCP transport, the pages' own
 * origin) would fail on it.
 */
import type { Context, MiddlewareHandler } from "hono";

/** RFC 3986 host: an IP literal in brackets, or a name / IPv4 of unreserved, sub-delims and %XX escapes. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*)(?::(\d{0,5}))?$/;

/** True for a Host header value that names a host and, if given, a port in 0–65535. */
export function isHostHeader(value: string): boolean {
  const match = HOST.exec(value);
  if (!match) return false;
  const port = match[1];
  return port === undefined || port === "" || Number(port) <= 65_535;
}

/**
 * Whether a request with this Host header has a URL that parses: the header's grammar, then the URL parser's own
 * rules for hosts (it refuses some the grammar allows: `1.2.3.256`, bad punycode such as `xn--a`). Only the host
 * can make Bun's URL unparseable (a path or query is escaped, never refused).
 */
function hostVerdict(host: string): boolean {
  return isHostHeader(host) && URL.canParse(`http://${host}/`);
}

export function hostCheck(): MiddlewareHandler {
  // Clients send a handful of Host values: each is judged once (~2 µs), then looked up.
  const verdicts = new Map<string, boolean>();
  return async (c, next) => {
    const host = c.req.header("host");
    let ok: boolean;
    if (host === undefined) ok = URL.canParse(c.req.url);
    else {
      const known = verdicts.get(host);
      ok = known ?? hostVerdict(host);
      if (known === undefined) {
        // A client sending ever new values only ever fills the cache.
        if (verdicts.size >= 64) verdicts.clear();
        verdicts.set(host, ok);
      }
    }
    if (!ok) return c.json({ error: "Bad Request: malformed Host header" }, 400);
    return next();
  };
}

/**
 * The answer to a request no route or middleware matched at all, not even the ones every path matches: Bun gave it a
 * URL without scheme and host (a Host header it could not use, with a path it kept as is), so Hono read its path as
 * "" and called the not-found handler directly, before the request id or the Host check ran. It is refused as the
 * Host check refuses, with an id of its own.
 */
export function unroutable(c: Context): Response | undefined {
  if (c.get("requestId") !== undefined) return undefined;
  c.header("X-Request-Id", crypto.randomUUID().slice(0, 8));
  return c.json({ error: "Bad Request: malformed Host header" }, 400);
}
