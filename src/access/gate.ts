/**
 * The gate every authenticated request passes: identify the bearer (in memory), then admit it with at most one
 * store round trip that both finds a dynamic key or invite and charges its rate-limit window.
 *
 * Order (spec access.md §1): operator keys, static keys (both from the environment, digests compared in constant
 * time), dynamic keys (`rk_<team>_…`), invites (`ri_<room>_…`). A bearer of no known shape is refused without
 * store work.
 */
import type { Config } from "../config.ts";
import { RoomError } from "../protocol/errors.ts";
import type { Principal } from "../protocol/principal.ts";
import type { RateDecision, RateRequest } from "../store/access-types.ts";
import type { RoomStore } from "../store/types.ts";
import { sha256 } from "./digest.ts";
import { LOCAL_HUMAN } from "./first-run.ts";
import type { KeyRing } from "./keyring.ts";
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
  config: Pick<Config, "rateLimitPerMinute" | "rateLimitFailOpen">;
}

export interface Gate {
  (secret: string | null, bucket: Bucket): Promise<Admission>;
  /**
   * A person the trusted proxy vouched for (humans.md §1): no key to find, only the team's rate window to charge
   * (failing open like env keys when the limiter's store is down and RATE_LIMIT_FAIL_OPEN allows).
   */
  person(teamId: string, humanId: string, bucket: Bucket): Promise<Admission>;
  /** True for an env key (operator or static): checked in memory, no store work. */
  knows(secret: string): boolean;
}

const isOutage = (error: unknown) => error instanceof RoomError && error.kind === "store_unavailable";

export function createGate({ keys, store, config }: GateOptions): Gate {
  const rateFor = (bucket: Bucket): RateRequest => ({
    bucket,
    limit: bucket === "tools" ? config.rateLimitPerMinute : config.rateLimitPerMinute * META_CEILING_FACTOR,
    windowMs: WINDOW_MS,
  });
  const decide = (principal: Principal, rate?: RateDecision): Admission =>
    rate && !rate.allowed ? { ok: false, status: 429, rate, principal } : { ok: true, principal, rate };

  const admit = async (secret: string | null, bucket: Bucket): Promise<Admission> => {
    if (secret === null) return { ok: false, status: 401 };
    const rate = rateFor(bucket);
    // Hashed once: the digest serves the in-memory env keys and the store lookup alike.
    const digest = sha256(secret);
    const known = keys.resolveDigest(digest);
    try {
      if (known) {
        // Env keys need no lookup; only the limiter touches the store, and it may fail open.
        try {
          return decide(known, await store.consumeRate(known.teamId, rate));
        } catch (error) {
          if (isOutage(error) && config.rateLimitFailOpen) return { ok: true, principal: known };
          throw error;
        }
      }
      const team = teamOfKey(secret);
      if (team) {
        const { key, rate: decision } = await store.resolveKey(team, digest.toString("hex"), rate);
        if (!key) return { ok: false, status: 401 };
        // A human dynamic key names its person; the first-run (operator-kind) key is the person "local".
        const humanId = key.humanId ?? (key.kind === "operator" ? LOCAL_HUMAN : undefined);
        const principal: Principal = {
          teamId: key.teamId,
          kind: key.kind === "operator" ? "operator" : "dynamic",
          keyId: key.keyId,
          ...(key.boundAgentId ? { boundAgentId: key.boundAgentId } : {}),
          ...(humanId !== undefined ? { humanId } : {}),
        };
        return decide(principal, decision);
      }
      const room = roomOfInvite(secret);
      if (room) {
        const { invite, rate: decision } = await store.resolveInvite(room, digest.toString("hex"), rate);
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
  const person = async (teamId: string, humanId: string, bucket: Bucket): Promise<Admission> => {
    const principal: Principal = { teamId, kind: "proxy", humanId };
    try {
      return decide(principal, await store.consumeRate(teamId, rateFor(bucket)));
    } catch (error) {
      if (isOutage(error))
        return config.rateLimitFailOpen ? { ok: true, principal } : { ok: false, status: 503 };
      throw error;
    }
  };
  return Object.assign(admit, { knows: (secret: string) => keys.resolve(secret) !== null, person });
}
