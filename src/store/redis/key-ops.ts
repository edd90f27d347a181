/** Keys and rate limiting of the Redis store: team-slot scripts, one round trip each. */
import { errors } from "../../protocol/errors.ts";
import type { AccessStore, NewKey, RateDecision, RateRequest } from "../access-types.ts";
import { byCreation, type Numbered, rateArgs, storedKey, toKeyRecord } from "./access-records.ts";
import type { Bridge } from "./call.ts";

type KeyOps = Pick<
  AccessStore,
  "resolveKey" | "createKey" | "provisionTeam" | "listKeys" | "deleteKey" | "consumeRate"
>;

const BUCKETS: ReadonlySet<string> = new Set<RateRequest["bucket"]>(["tools", "meta"]);

/** Fails before any store call on a bucket Lua would silently treat as "tools". */
function checked(rate?: RateRequest): RateRequest | undefined {
  if (rate && !BUCKETS.has(rate.bucket)) throw new Error(`unknown rate bucket: ${rate.bucket}`);
  return rate;
}

export function keyOps({ team }: Bridge): KeyOps {
  const keyArgs = (key: NewKey) => [key.keyId, key.digest, storedKey(key)];

  return {
    async resolveKey(teamId, digest, rate) {
      const { value } = await team<{ key: NewKey | null; rate?: RateDecision }>(teamId, "RESOLVE_KEY", [
        digest,
        ...rateArgs(checked(rate)),
      ]);
      if (!value.key) return { key: null };
      return value.rate ? { key: toKeyRecord(value.key), rate: value.rate } : { key: toKeyRecord(value.key) };
    },

    async createKey(key, maxKeys) {
      const args = [...keyArgs(key), String(maxKeys)];
      const { value } = await team<NewKey | "limit">(key.teamId, "CREATE_KEY", args);
      if (value === "limit") throw errors.keyLimit(maxKeys);
      return toKeyRecord(value);
    },

    async provisionTeam(key) {
      const { value } = await team<NewKey | "exists">(key.teamId, "PROVISION_TEAM", keyArgs(key));
      if (value === "exists") throw errors.teamExists(key.teamId);
      return toKeyRecord(value);
    },

    async listKeys(teamId) {
      const { value } = await team<Numbered<NewKey>[]>(teamId, "LIST_KEYS", []);
      return value.sort(byCreation).map(toKeyRecord);
    },

    async deleteKey(teamId, keyId) {
      return (await team<boolean>(teamId, "DELETE_KEY", [keyId])).value;
    },

    async consumeRate(teamId, rate) {
      const request = checked(rate) as RateRequest;
      const args = [request.bucket, String(request.limit), String(request.windowMs)];
      return (await team<RateDecision>(teamId, "CONSUME_RATE", args)).value;
    },
  };
}
