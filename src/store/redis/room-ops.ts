/** Presence, lock and shared-variable operations of the Redis store. */
import { LIMITS } from "../../protocol/limits.ts";
import type { LockState } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import type { RoomStore } from "../types.ts";
import type { Call } from "./call.ts";
import { toPresence, toPresenceList } from "./records.ts";

type RoomOps = Pick<
  RoomStore,
  "heartbeat" | "getPresence" | "acquireLock" | "releaseLock" | "listLocks" | "setVar" | "getVar" | "listVars"
>;

export function roomOps(call: Call): RoomOps {
  return {
    async heartbeat(scope, agentId, statusText) {
      const { value, now } = await call(scope, "HEARTBEAT", { agent: agentId, status: statusText });
      return { presence: toPresence(agentId, value.p, now), roomExists: value.exists };
    },

    async getPresence(scope) {
      const { value, now } = await call(scope, "GET_PRESENCE", {});
      const presence = toPresenceList(value.p, now);
      if (value.s.length === 0) return presence;
      const byAgent = new Map(value.s.map(({ agentId, ...s }) => [agentId, s]));
      return presence.map((p) => {
        const suspended = byAgent.get(p.agentId);
        return suspended ? { ...p, suspended } : p;
      });
    },

    async acquireLock(scope, resource, agentId, ttlMs) {
      const { value } = await call(scope, "ACQUIRE_LOCK", { resource, agent: agentId, ttl: ttlMs });
      return {
        acquired: value.acquired,
        resource,
        holder: value.holder,
        expiresAt: iso(value.expiresAt),
        fence: value.fence,
      } satisfies LockState;
    },

    async releaseLock(scope, resource, agentId) {
      const { value } = await call(scope, "RELEASE_LOCK", { resource, agent: agentId });
      if (value.holder === undefined || value.expiresAt === undefined) return { released: value.released };
      return { released: false, holder: value.holder, expiresAt: iso(value.expiresAt) };
    },

    async listLocks(scope) {
      const { value } = await call(scope, "LIST_LOCKS", {});
      return value
        .map((lock) => ({ ...lock, expiresAt: iso(lock.expiresAt) }))
        .sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
    },

    async setVar(scope, key, value, agentId) {
      await call(scope, "SET_VAR", { key, value, agent: agentId, max: LIMITS.varsPerRoom });
    },

    async getVar(scope, key) {
      return (await call(scope, "GET_VAR", { key })).value;
    },

    async listVars(scope) {
      return (await call(scope, "LIST_VARS", {})).value;
    },
  };
}
