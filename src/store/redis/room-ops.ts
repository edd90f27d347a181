/** Presence, lock and shared-variable operations of the Redis store. */
import { LIMITS } from "../../protocol/limits.ts";
import type { LockInfo, LockState } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import type { RoomStore } from "../types.ts";
import type { Call } from "./call.ts";
import { type StoredPresence, toPresence, toPresenceList } from "./records.ts";

type RoomOps = Pick<
  RoomStore,
  "heartbeat" | "getPresence" | "acquireLock" | "releaseLock" | "listLocks" | "setVar" | "getVar" | "listVars"
>;

interface StoredLock {
  acquired: boolean;
  holder: string;
  expiresAt: number;
  fence: number;
}

export function roomOps(call: Call): RoomOps {
  return {
    async heartbeat(scope, agentId, statusText) {
      const { value, now } = await call<{ exists: boolean; p: StoredPresence }>(scope, "HEARTBEAT", [
        agentId,
        statusText ?? "",
        statusText === undefined ? "0" : "1",
      ]);
      return { presence: toPresence(agentId, value.p, now), roomExists: value.exists };
    },

    async getPresence(scope) {
      const { value, now } = await call<Record<string, StoredPresence>>(scope, "GET_PRESENCE", []);
      return toPresenceList(value, now);
    },

    async acquireLock(scope, resource, agentId, ttlMs) {
      const { value } = await call<StoredLock>(scope, "ACQUIRE_LOCK", [resource, agentId, String(ttlMs)]);
      return {
        acquired: value.acquired,
        resource,
        holder: value.holder,
        expiresAt: iso(value.expiresAt),
        fence: value.fence,
      } satisfies LockState;
    },

    async releaseLock(scope, resource, agentId) {
      const { value } = await call<{ released: boolean; holder?: string; expiresAt?: number }>(
        scope,
        "RELEASE_LOCK",
        [resource, agentId],
      );
      if (value.holder === undefined || value.expiresAt === undefined) return { released: value.released };
      return { released: false, holder: value.holder, expiresAt: iso(value.expiresAt) };
    },

    async listLocks(scope) {
      const { value } = await call<Array<Omit<LockInfo, "expiresAt"> & { expiresAt: number }>>(
        scope,
        "LIST_LOCKS",
        [],
      );
      return value
        .map((lock) => ({ ...lock, expiresAt: iso(lock.expiresAt) }))
        .sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
    },

    async setVar(scope, key, value, agentId) {
      await call(scope, "SET_VAR", [key, value, agentId, String(LIMITS.varsPerRoom)]);
    },

    async getVar(scope, key) {
      return (await call<string | null>(scope, "GET_VAR", [key])).value;
    },

    async listVars(scope) {
      return (await call<Record<string, string>>(scope, "LIST_VARS", [])).value;
    },
  };
}
