/**
 * The gate every authenticated request passes: identify the bearer (in memory), then admit it with at most one
 * store round trip that both finds a dynamic key or invite and charges its rate-limit window.
 *
 * Order (docs/security.md#principals): operator keys, static keys (both from the environment, digests compared in
 * constant time), dynamic keys (`rk_<team>_…`), invites (`ri_<room>_…`). A bearer of no known shape is refused
 * without store work.
 */
import type { Config } from "../config.ts";
import { RoomError } from "../protocol/errors.ts";
import type { Principal } from "../protocol/principal.ts";
import type { RateDecision, RateRequest } from "../store/access-types.ts";
import type { SessionCredential } from "../store/session-types.ts";
import type { RoomStore } from "../store/types.ts";
import { sha256 } from "./digest.ts";
import type { KeyRing } from "./keyring.ts";
import { teamOfOAuth } from "./oauth-secrets.ts";
import { roomOfInvite, teamOfKey } from "./secrets.ts";

export type Bucket = RateRequest["bucket"];

export type Admission =
  | { ok: true; principal: Principal; rate?: RateDecision }
  | { ok: false; status: 401 | 503; rate?: RateDecision }
  | { ok: false; status: 429; rate: RateDecision; principal: Principal };

/** initialize, tools/list and the like are cheap but still bounded, by a ceiling this many times higher. */
export const META_CEILING_FACTOR = 10;
const WINDOW_MS = 60_000;

export interface GateOptions {
  keys: KeyRing;
  store: RoomStore;
  config: Pick<
    Config,
    "rateLimitPerMinute" | "rateLimitFailOpen" | "operatorName" | "agentRateLimitPerMinute"
  >;
}

export interface Gate {
  /**
   * `agent`: the agent a tool call names (its acting argument or X-Roomd-Agent), whose own window is charged too
   * when AGENT_RATE_LIMIT_PER_MINUTE is set — a bound key's agent stands in for it, whatever the call names.
   * `resource`: the protected resource the request is for (this roomd's `/mcp`, on /mcp with OAuth on). An OAuth
   * access token is admitted only there, and only when it was issued for exactly that resource (RFC 8707).
   */
  (secret: string | null, bucket: Bucket, agent?: string, resource?: string): Promise<Admission>;
  /**
   * A person the trusted proxy vouched for (docs/people.md#people-and-agents): no key to find, only the team's rate
   * window to charge (failing open like env keys when the limiter's store is down and RATE_LIMIT_FAIL_OPEN allows).
   */
  person(teamId: string, humanId: string, bucket: Bucket, agent?: string): Promise<Admission>;
  /** True for an env key (operator or static): checked in memory, no store work. */
  knows(secret: string): boolean;
  /**
   * A web session's credential admitted again, exactly as its secret was at sign-in: an env key by its digest, a
   * dynamic key of `teamId`, an invite, or the proxy's person (docs/web.md).
   */
  credential(
    held: SessionCredential,
    teamId: string,
    humanId: string,
    bucket: Bucket,
    agent?: string,
  ): Promise<Admission>;
}

const isOutage = (error: unknown) => error instanceof RoomError && error.kind === "store_unavailable";

export function createGate({ keys, store, config }: GateOptions): Gate {
  /**
   * The team's window, and the agent's inside it for a tool call when AGENT_RATE_LIMIT_PER_MINUTE is set. `forKey`:
   * the charge of a dynamic key's lookup, which names the agent even with the setting off (limit 0), since the key
   * found may carry its own agent budget that the store puts in its place (protocol/rate-pair.ts keyRate).
   */
  const rateFor = (bucket: Bucket, agent?: string, forKey = false): RateRequest => ({
    bucket,
    limit: bucket === "tools" ? config.rateLimitPerMinute : config.rateLimitPerMinute * META_CEILING_FACTOR,
    windowMs: WINDOW_MS,
    ...(bucket === "tools" && (forKey || config.agentRateLimitPerMinute > 0)
      ? { agent: { ...(agent !== undefined ? { id: agent } : {}), limit: config.agentRateLimitPerMinute } }
      : {}),
  });
  const decide = (principal: Principal, rate?: RateDecision): Admission =>
    rate && !rate.allowed ? { ok: false, status: 429, rate, principal } : { ok: true, principal, rate };

  /** One admission from a key's digest and the shape its secret had (env keys are known in memory). */
  const admitDigest = async (
    digest: Buffer,
    shape: { team?: string; room?: string },
    bucket: Bucket,
    agent?: string,
  ): Promise<Admission> => {
    const rate = rateFor(bucket, agent);
    const known = keys.resolveDigest(digest);
    try {
      if (known) {
        // Env keys need no lookup; only the limiter touches the store, and it may fail open.
        try {
          const own = known.boundAgentId !== undefined ? rateFor(bucket, known.boundAgentId) : rate;
          return decide(known, await store.consumeRate(known.teamId, own));
        } catch (error) {
          if (isOutage(error) && config.rateLimitFailOpen) return { ok: true, principal: known };
          throw error;
        }
      }
      if (shape.team) {
        const { key, rate: decision } = await store.resolveKey(
          shape.team,
          digest.toString("hex"),
          rateFor(bucket, agent, true),
        );
        if (!key) return { ok: false, status: 401 };
        // A human dynamic key names its person; the first-run (operator-kind) key is OPERATOR_NAME ("local").
        const humanId = key.humanId ?? (key.kind === "operator" ? config.operatorName : undefined);
        const principal: Principal = {
          teamId: key.teamId,
          kind: key.kind === "operator" ? "operator" : "dynamic",
          keyId: key.keyId,
          ...(key.boundAgentId ? { boundAgentId: key.boundAgentId } : {}),
          ...(humanId !== undefined ? { humanId } : {}),
          // The key's scope rides on the principal, so every layer checks it from there (protocol/key-life.ts).
          ...(key.rooms !== undefined ? { rooms: key.rooms } : {}),
          ...(key.readOnly === true ? { readOnly: true as const } : {}),
        };
        return decide(principal, decision);
      }
      if (shape.room) {
        const { invite, rate: decision } = await store.resolveInvite(
          shape.room,
          digest.toString("hex"),
          rate,
        );
        if (!invite) return { ok: false, status: 401 };
        const principal: Principal = {
          teamId: invite.teamId,
          kind: "invite",
          keyId: invite.tokenId,
          allowedRoomId: invite.roomId,
          boundAgentId: invite.agentId ?? `invite:${invite.tokenId}`,
          ...(invite.humanId !== undefined ? { humanId: invite.humanId } : {}),
        };
        return decide(principal, decision);
      }
      return { ok: false, status: 401 };
    } catch (error) {
      // A key that cannot be looked up cannot be trusted: unlike the limiter, authentication never fails open.
      if (isOutage(error)) return { ok: false, status: 503 };
      throw error;
    }
  };

  /**
   * An OAuth access token: its grant (one round trip), then the team's rate window and its agent's (a second). It acts
   * as the grant's agent, like a bound key: in the grant's one room as an invite does (so calls naming no room go
   * there), or in its several rooms as a key scoped to them; read-only when the person chose so
   * (docs/security.md#oauth).
   */
  const admitToken = async (
    teamId: string,
    secret: string,
    bucket: Bucket,
    resource: string | undefined,
  ): Promise<Admission> => {
    if (resource === undefined) return { ok: false, status: 401 };
    try {
      const grant = await store.resolveOAuthToken(teamId, sha256(secret).toString("hex"));
      if (!grant || grant.resource !== resource) return { ok: false, status: 401 };
      const principal: Principal = {
        teamId: grant.teamId,
        kind: "oauth",
        keyId: grant.grantId,
        boundAgentId: grant.agentId,
        ...(grant.rooms !== undefined && grant.rooms.length > 1
          ? { rooms: grant.rooms }
          : { allowedRoomId: grant.roomId }),
        ...(grant.readOnly === true ? { readOnly: true as const } : {}),
      };
      return decide(principal, await store.consumeRate(grant.teamId, rateFor(bucket, grant.agentId)));
    } catch (error) {
      if (isOutage(error)) return { ok: false, status: 503 };
      throw error;
    }
  };

  const admit = async (
    secret: string | null,
    bucket: Bucket,
    agent?: string,
    resource?: string,
  ): Promise<Admission> => {
    if (secret === null) return { ok: false, status: 401 };
    const tokenTeam = teamOfOAuth("access", secret);
    if (tokenTeam !== null) return admitToken(tokenTeam, secret, bucket, resource);
    // Hashed once: the digest serves the in-memory env keys and the store lookup alike.
    const team = teamOfKey(secret) ?? undefined;
    const room = team ? undefined : (roomOfInvite(secret) ?? undefined);
    const shape = { ...(team ? { team } : {}), ...(room ? { room } : {}) };
    return admitDigest(sha256(secret), shape, bucket, agent);
  };
  const person = async (
    teamId: string,
    humanId: string,
    bucket: Bucket,
    agent?: string,
  ): Promise<Admission> => {
    const principal: Principal = { teamId, kind: "proxy", humanId };
    try {
      return decide(principal, await store.consumeRate(teamId, rateFor(bucket, agent)));
    } catch (error) {
      if (isOutage(error))
        return config.rateLimitFailOpen ? { ok: true, principal } : { ok: false, status: 503 };
      throw error;
    }
  };
  /** A web session's credential, checked again as on its sign-in (revoked keys and invites fail here). */
  const credential = (
    held: SessionCredential,
    teamId: string,
    humanId: string,
    bucket: Bucket,
    agent?: string,
  ) => {
    if (held.kind === "proxy") return person(teamId, humanId, bucket, agent);
    const digest = Buffer.from(held.digest, "hex");
    if (held.kind === "invite") return admitDigest(digest, { room: held.roomId }, bucket, agent);
    return admitDigest(digest, held.kind === "key" ? { team: teamId } : {}, bucket, agent);
  };
  return Object.assign(admit, {
    knows: (secret: string) => keys.resolve(secret) !== null,
    person,
    credential,
  });
}
