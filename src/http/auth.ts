/**
 * Bearer authentication and rate limiting for routes: resolves the principal before anything else runs.
 * 401 for no or an unknown bearer, 429 over the limit (with Retry-After and RateLimit-* headers), 503 when the
 * key store cannot be reached. With a trusted proxy configured (TRUSTED_PROXY_*), a request from one of its
 * addresses carrying its identity header is that person, whatever bearer it carries; from any other peer the
 * header is ignored.
 */
import type { Context, MiddlewareHandler } from "hono";
import { getConnInfo } from "hono/bun";
import type { Admission, Bucket, Gate } from "../access/gate.ts";
import type { Sessions } from "../access/sessions.ts";
import type { TrustedProxy } from "../config.ts";
import { peerAllowed } from "../protocol/cidr.ts";
import { rateLimitText, STORE_UNAVAILABLE } from "../protocol/errors.ts";
import { HUMAN_ID, type Principal } from "../protocol/principal.ts";
import type { RateDecision } from "../store/access-types.ts";
import type { FailureLimiter } from "./auth-failures.ts";
import { issuerOf, type OAuthSettings, resourceMetadataUrl, resourceOf } from "./oauth/urls.ts";
import type { RequestIdEnv } from "./request-id.ts";
import { admitSession, proxiedCsrfRefusal, sessionIdOf } from "./session-auth.ts";

export type AuthEnv = { Variables: RequestIdEnv["Variables"] & { principal: Principal } };

/** The 401 body: what to send, never what was sent (a key is never echoed). */
export const UNAUTHORIZED =
  "Unauthorized: send a valid key as Authorization: Bearer <key> (this one is missing, unknown, expired or revoked)";
/** Longest bearer we hash; anything longer cannot be one of ours. */
const MAX_BEARER = 512;

export function bearerOf(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const token = match?.[1];
  return token && token.length <= MAX_BEARER ? token : null;
}

export function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown"; // not served by Bun.serve (e.g. app.request in a unit test)
  }
}

/** RateLimit-* headers (draft IETF names) on every limited answer, Retry-After when refused. */
export function rateHeaders(rate: RateDecision | undefined): Record<string, string> {
  if (!rate) return {};
  const resetSeconds = Math.ceil(rate.resetMs / 1000);
  return {
    "RateLimit-Limit": String(rate.limit),
    "RateLimit-Remaining": String(rate.remaining),
    "RateLimit-Reset": String(resetSeconds),
    ...(rate.allowed ? {} : { "Retry-After": String(Math.max(1, resetSeconds)) }),
  };
}

export interface AuthDeps {
  gate: Gate;
  failures: FailureLimiter;
  /** Single sign-on through an authenticating proxy; absent or null when not configured. */
  proxy?: TrustedProxy | null;
  /**
   * People's web sessions: with it, a request without a bearer may authenticate by its session cookie (CSRF
   * enforced on state-changing requests, src/http/session-auth.ts). Absent on routes that are agents' only (/mcp).
   */
  sessions?: Sessions | null;
  /**
   * OAuth on (OAUTH, /mcp only): a 401 names the protected resource metadata (RFC 9728 section 5.1), so an MCP
   * client can find the authorization server. Absent or null: the plain challenge.
   */
  oauth?: OAuthSettings | null;
}

export type Checked =
  | { principal: Principal; rate?: RateDecision }
  | { failure: Response; limited?: Principal; rate?: RateDecision };

/**
 * The person the trusted proxy vouches for on this request: a peer of TRUSTED_PROXY_CIDRS carrying the header with a
 * valid person's id; null otherwise (no proxy configured, another peer, no header, or an id roomd does not accept).
 */
export function proxiedPerson(
  c: Context,
  proxy: TrustedProxy | null | undefined,
): { teamId: string; humanId: string } | null {
  const humanId = proxyAssertion(c, proxy, clientAddress(c));
  return proxy && humanId !== undefined && HUMAN_ID.test(humanId) ? { teamId: proxy.teamId, humanId } : null;
}

/** The trimmed identity header of a request the trusted proxy sent (from `address`); undefined for any other. */
function proxyAssertion(
  c: Context,
  proxy: TrustedProxy | null | undefined,
  address: string,
): string | undefined {
  const asserted = proxy ? c.req.header(proxy.header) : undefined;
  if (!proxy || asserted === undefined || !peerAllowed(address, proxy.cidrs)) return undefined;
  return asserted.trim();
}

/** The 429 of an address over the failed-authentication limit (auth-failures.ts). */
export function tooManyFailures(c: Context): Response {
  c.header("Retry-After", "60");
  return c.json({ error: "Too many failed authentication attempts" }, 429);
}

/**
 * The whole check for one request; the caller answers `failure` as is. `agent`: the agent a tool call names, whose
 * own window is charged too when AGENT_RATE_LIMIT_PER_MINUTE is set (gate.ts).
 */
export async function checkBearer(
  c: Context,
  deps: AuthDeps,
  bucket: Bucket,
  agent?: string,
): Promise<Checked> {
  const address = clientAddress(c);
  const proxy = deps.proxy;
  const humanId = proxyAssertion(c, proxy, address);
  if (proxy && humanId !== undefined) {
    if (!HUMAN_ID.test(humanId)) {
      return {
        failure: c.json(
          {
            error: `The ${proxy.header} header does not carry a person's id roomd accepts (1-64 chars of A-Z, a-z, 0-9, _ . @ -)`,
          },
          403,
        ),
      };
    }
    const checked = settle(c, deps, address, await deps.gate.person(proxy.teamId, humanId, bucket, agent));
    if (deps.sessions && "principal" in checked) {
      const refused = await proxiedCsrfRefusal(c, deps.sessions, checked.principal);
      if (refused) return { failure: refused };
    }
    return checked;
  }
  const bearer = bearerOf(c.req.header("authorization"));
  // No bearer: a browser's session cookie, when this route accepts one. A bearer always wins over a cookie.
  const sessionId = bearer === null && deps.sessions ? sessionIdOf(c) : undefined;
  if (sessionId !== undefined && deps.sessions) {
    if (deps.failures.blocked(address)) {
      return { failure: tooManyFailures(c) };
    }
    const admitted = await admitSession(c, deps.sessions, sessionId, bucket);
    if ("failure" in admitted) {
      if (admitted.unknown) deps.failures.note(address);
      return { failure: admitted.failure };
    }
    return settle(c, deps, address, admitted.admission);
  }
  // Over the failure limit, only store lookups are refused: env keys cost no store work, so they still pass even
  // when other clients behind the same address (a load balancer) keep failing.
  if (deps.failures.blocked(address) && !(bearer !== null && deps.gate.knows(bearer))) {
    return { failure: tooManyFailures(c) };
  }
  // With OAuth on (/mcp), an access token counts for this roomd's own resource only.
  const resource = deps.oauth ? resourceOf(issuerOf(c, deps.oauth)) : undefined;
  return settle(c, deps, address, await deps.gate(bearer, bucket, agent, resource));
}

/** The answer to an admission: the principal, or the failure response with its headers. */
function settle(c: Context, deps: AuthDeps, address: string, admission: Admission): Checked {
  for (const [name, value] of Object.entries(rateHeaders(admission.rate))) c.header(name, value);
  if (admission.ok) return { principal: admission.principal, rate: admission.rate };
  if (admission.status === 401) {
    deps.failures.note(address);
    c.header("WWW-Authenticate", challenge(c, deps));
    return { failure: c.json({ error: UNAUTHORIZED }, 401) };
  }
  if (admission.status === 429) {
    const spent = admission.rate.spent;
    const whose = spent ? { whose: spent, ...agentOf(admission.principal) } : undefined;
    return {
      failure: c.json({ error: rateLimitText(whose), ...(spent ? { spent } : {}) }, 429),
      limited: admission.principal,
      rate: admission.rate,
    };
  }
  return { failure: c.json({ error: STORE_UNAVAILABLE }, 503) };
}

/** The agent a refusal names: the principal's bound agent (an unbound key's call names its own, mcp-route.ts). */
const agentOf = (principal: Principal) =>
  principal.boundAgentId !== undefined ? { agentId: principal.boundAgentId } : {};

/** The WWW-Authenticate of a 401: with OAuth on, where its metadata is (and, for a bearer sent, invalid_token). */
function challenge(c: Context, deps: AuthDeps): string {
  if (!deps.oauth) return 'Bearer realm="roomd"';
  const sent = c.req.header("authorization") !== undefined ? ', error="invalid_token"' : "";
  return `Bearer realm="roomd", resource_metadata="${resourceMetadataUrl(issuerOf(c, deps.oauth))}"${sent}`;
}

/** Middleware form for routes: one unit of the team's "tools" budget per request. */
export const auth =
  (deps: AuthDeps): MiddlewareHandler<AuthEnv> =>
  async (c, next) => {
    const result = await checkBearer(c, deps, "tools");
    if ("failure" in result) return result.failure;
    c.set("principal", result.principal);
    await next();
  };
