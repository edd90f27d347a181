/** Keys and rate limiting of the Redis store: team-slot scripts, one round trip each. */
import { errors } from "../../protocol/errors.ts";
import { KEY_USE_STEP_MS, keyLifeErrors } from "../../protocol/key-life.ts";
import type { AccessStore, NewKey, RateDecision, RateRequest } from "../access-types.ts";
import { byCreation, storedKey, toKeyRecord, usedMs } from "./access-records.ts";
import type { Bridge } from "./call.ts";

type KeyOps = Pick<
  AccessStore,
  "resolveKey" | "createKey" | "rotateKey" | "provisionTeam" | "listKeys" | "deleteKey" | "consumeRate"
>;

const BUCKETS: ReadonlySet<string> = new Set<RateRequest["bucket"]>(["tools", "meta"]);

/** Fails before any store call on a bucket Lua would silently treat as "tools". */
function checked(rate?: RateRequest): RateRequest | undefined {
  if (rate && !BUCKETS.has(rate.bucket)) throw new Error(`unknown rate bucket: ${rate.bucket}`);
  return rate;
}

/** Whether a request charges an agent's window as well (rate-buckets.ts chargedAgent; the bound agent is Lua's). */
const chargedAgentWindow = (rate: RateRequest) => rate.agent !== undefined && rate.bucket === "tools";

/** Most charges one CONSUME_RATE makes (a larger batch is split). */
const RATE_BATCH = 64;

interface RateBatch {
  teamId: string;
  request: RateRequest;
  waiters: { resolve(d: RateDecision): void; reject(err: unknown): void }[];
}

export function keyOps({ team }: Bridge): KeyOps {
  const keyArgs = (key: NewKey) => ({ id: key.keyId, digest: key.digest, key: storedKey(key) });

  /**
   * Rate charges of the same window asked for while the event loop is busy (concurrent requests of this process)
   * go to Redis as one script that charges them one after another, in the order they were asked — the decisions
   * each would have had alone, for one script's fixed cost. The batch leaves at the next turn of the event loop.
   */
  const pending = new Map<string, RateBatch>();
  async function flush(id: string): Promise<void> {
    const batch = pending.get(id);
    if (!batch) return;
    pending.delete(id);
    const { request, waiters } = batch;
    try {
      const { value } = await team(batch.teamId, "CONSUME_RATE", {
        bucket: request.bucket,
        limit: request.limit,
        window: request.windowMs,
        n: waiters.length,
        agent: request.agent?.id,
        agentLimit: chargedAgentWindow(request) ? request.agent?.limit : undefined,
      });
      waiters.forEach((w, i) => {
        w.resolve(value[i] as RateDecision);
      });
    } catch (err) {
      for (const w of waiters) w.reject(err);
    }
  }

  return {
    async resolveKey(teamId, digest, rate) {
      const charge = checked(rate);
      const { value } = await team(teamId, "RESOLVE_KEY", {
        digest,
        bucket: charge?.bucket,
        limit: charge?.limit,
        window: charge?.windowMs,
        step: charge ? KEY_USE_STEP_MS : undefined,
        agent: charge?.agent?.id,
        agentLimit: charge && chargedAgentWindow(charge) ? charge.agent?.limit : undefined,
      });
      if (!value.key) return { key: null };
      return value.rate ? { key: toKeyRecord(value.key), rate: value.rate } : { key: toKeyRecord(value.key) };
    },

    async createKey(key, maxKeys) {
      const { value } = await team(key.teamId, "CREATE_KEY", {
        ...keyArgs(key),
        max: maxKeys,
        used: usedMs(key),
      });
      if (value === "limit") throw errors.keyLimit(maxKeys);
      return toKeyRecord(value);
    },

    async rotateKey(teamId, keyId, successor, graceEndsAt, maxKeys) {
      const grace = Date.parse(graceEndsAt);
      if (Number.isNaN(grace)) throw new Error(`rotateKey graceEndsAt is not an ISO date: ${graceEndsAt}`);
      const { value } = await team(teamId, "ROTATE_KEY", {
        id: keyId,
        sid: successor.keyId,
        sdigest: successor.digest,
        skey: storedKey(successor),
        grace,
        ends: graceEndsAt,
        max: maxKeys,
      });
      if (value === "missing") return null;
      if (value === "limit") throw errors.keyLimit(maxKeys);
      if ("already" in value) throw keyLifeErrors.rotated(keyId, value.already);
      return { rotated: toKeyRecord(value.rotated), successor: toKeyRecord(value.successor) };
    },

    async provisionTeam(key) {
      const { value } = await team(key.teamId, "PROVISION_TEAM", keyArgs(key));
      if (value === "exists") throw errors.teamExists(key.teamId);
      return toKeyRecord(value);
    },

    async listKeys(teamId) {
      const { value } = await team(teamId, "LIST_KEYS", {});
      return value.sort(byCreation).map(toKeyRecord);
    },

    async deleteKey(teamId, keyId) {
      return (await team(teamId, "DELETE_KEY", { id: keyId })).value;
    },

    async consumeRate(teamId, rate) {
      const request = checked(rate) as RateRequest;
      const agent = chargedAgentWindow(request) ? `${request.agent?.id}\n${request.agent?.limit}` : "";
      const id = `${teamId}\n${request.bucket}\n${request.limit}\n${request.windowMs}\n${agent}`;
      let batch = pending.get(id);
      if (!batch) {
        batch = { teamId, request, waiters: [] };
        pending.set(id, batch);
        setImmediate(() => void flush(id));
      }
      const joined = batch;
      const decision = new Promise<RateDecision>((resolve, reject) =>
        joined.waiters.push({ resolve, reject }),
      );
      if (joined.waiters.length >= RATE_BATCH) void flush(id);
      return decision;
    },
  };
}
