/** Keys and rate limiting of the Redis store: team-slot scripts, one round trip each. */
import type { AccessStore, KeyRecord, NewKey, RateDecision, RateRequest } from "../access-types.ts";
import { byCreatedAt, rateArgs, storedKey, toKeyRecord } from "./access-records.ts";
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
  const stored = (value: NewKey | "limit" | "exists") =>
    typeof value === "string" ? value : toKeyRecord(value);

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
      return stored((await team<NewKey | "limit">(key.teamId, "CREATE_KEY", args)).value) as
        | KeyRecord
        | "limit";
    },

    async provisionTeam(key) {
      return stored((await team<NewKey | "exists">(key.teamId, "PROVISION_TEAM", keyArgs(key))).value) as
        | KeyRecord
        | "exists";
    },

    async listKeys(teamId) {
      const { value } = await team<NewKey[]>(teamId, "LIST_KEYS", []);
      return value.map(toKeyRecord).sort(byCreatedAt((k) => k.keyId));
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
