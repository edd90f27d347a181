/**
 * The Origin check the MCP transport spec asks for against DNS rebinding: a request that carries an `Origin`
 * header is served only when that origin is the server's own or one listed in ALLOWED_ORIGINS; anything else,
 * including `null`, is refused with 403 before any other work. Requests without `Origin` (CLIs, agents, curl) pass:
 * browsers send it on every cross-origin request and on every POST, so they are the clients it constrains.
 *
 * The server's own origin is the request's scheme with its `Host` header (X-Forwarded-* are not trusted). Bound
 * to a loopback address, a Host that is not a loopback name is not ours: that is what a rebinding page sends
 * (`Host: attacker.example:3000` with the matching `Origin`), so it is refused too.
 */
import type { MiddlewareHandler } from "hono";

export interface OriginPolicy {
  /** The address roomd binds (HOST). */
  host: string;
  /** Extra origins, already normalised to scheme://host[:port] (config.ts). */
  allowedOrigins: readonly string[];
  /** Paths any origin may reach (GET /health, for probes and status pages). */
  open: readonly string[];
}

/** 127.0.0.0/8, ::1 and localhost (including *.localhost, which browsers never resolve through DNS). */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return (
    name === "localhost" || name.endsWith(".localhost") || name === "::1" || /^127(\.\d{1,3}){3}$/.test(name)
  );
}

/** scheme://host[:port] as browsers write it, or undefined for `null` and anything unparseable. */
function normalise(origin: string): string | undefined {
  if (!URL.canParse(origin)) return undefined;
  const url = new URL(origin);
  return /^https?:$/.test(url.protocol) ? url.origin : undefined;
}

/** The origin this request was addressed to: its scheme and its Host header. */
export function ownOrigin(request: Request): URL | undefined {
  const url = new URL(request.url);
  const host = request.headers.get("host") ?? url.host;
  const candidate = `${url.protocol}//${host}`;
  return URL.canParse(candidate) ? new URL(candidate) : undefined;
}

export function originCheck(policy: OriginPolicy): MiddlewareHandler {
  const allowed = new Set(policy.allowedOrigins);
  const open = new Set(policy.open);
  const loopbackOnly = isLoopbackName(policy.host);
  return async (c, next) => {
    const origin = c.req.header("origin");
    if (origin === undefined || open.has(c.req.path)) return next();
    const given = normalise(origin);
    if (given !== undefined) {
      if (allowed.has(given)) return next();
      const own = ownOrigin(c.req.raw);
      if (own && own.origin === given && (!loopbackOnly || isLoopbackName(own.hostname))) return next();
    }
    return c.json({ error: `Origin not allowed: ${origin.slice(0, 200)}` }, 403);
  };
}
