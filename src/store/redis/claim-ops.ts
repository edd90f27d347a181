/** File claims, leave_room and the AgentRoom room state and broadcast of the Redis store (protocol/claims.ts). */
import {
  byteOrder,
  type ClaimConflict,
  checkPaths,
  claimsOverlapping,
  type FileClaim,
  sortClaims,
  sortConflicts,
} from "../../protocol/claims.ts";
import { LIMITS } from "../../protocol/limits.ts";
import type { RoomEvent } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import type { RoomStore } from "../types.ts";
import type { Call } from "./call.ts";
import { type StoredPresence, toEvent, toPresenceList } from "./records.ts";

type ClaimOps = Pick<
  RoomStore,
  "claimFiles" | "releaseFiles" | "listClaims" | "checkFiles" | "roomState" | "broadcast" | "leaveRoom"
>;

/** A claim as LIST_CLAIMS returns it (times in ms). */
interface StoredClaim {
  path: string;
  agentId: string;
  expiresAt: number;
  claimedAt: number;
  reason?: string;
}

function toClaim(stored: StoredClaim): FileClaim {
  const claim: FileClaim = {
    path: stored.path,
    heldBy: stored.agentId,
    expiresAt: iso(stored.expiresAt),
    claimedAt: iso(stored.claimedAt),
  };
  if (stored.reason !== undefined) claim.reason = stored.reason;
  return claim;
}

const toClaims = (stored: StoredClaim[]): FileClaim[] => sortClaims(stored.map(toClaim));

export function claimOps(call: Call): ClaimOps {
  const live = async (scope: Parameters<Call>[0]) =>
    toClaims((await call<StoredClaim[]>(scope, "LIST_CLAIMS", [])).value);
  return {
    async claimFiles(scope, input) {
      const { value } = await call<{
        claimed: { path: string; expiresAt: number }[];
        conflicts: (Omit<ClaimConflict, "expiresAt"> & { expiresAt: number })[];
      }>(scope, "CLAIM_FILES", [
        input.agentId,
        JSON.stringify(input.paths),
        String(input.ttlMs),
        input.reason ?? "",
        input.reason === undefined ? "0" : "1",
        String(LIMITS.claimsPerRoom),
      ]);
      return {
        claimed: value.claimed.map((c) => ({ path: c.path, expiresAt: iso(c.expiresAt) })),
        conflicts: sortConflicts(value.conflicts.map((c) => ({ ...c, expiresAt: iso(c.expiresAt) }))),
      };
    },

    async releaseFiles(scope, agentId, paths) {
      const { value } = await call<{ released: string[] }>(scope, "RELEASE_FILES", [
        agentId,
        paths === undefined ? "1" : "0",
        JSON.stringify(paths ?? []),
      ]);
      return { released: value.released.sort(byteOrder) };
    },

    async listClaims(scope, filter) {
      const claims = (await live(scope)).filter(
        (c) => filter.agentId === undefined || c.heldBy === filter.agentId,
      );
      return filter.path === undefined ? claims : claimsOverlapping(filter.path, claims);
    },

    async checkFiles(scope, agentId, paths) {
      return checkPaths(paths, agentId, await live(scope));
    },

    async roomState(scope) {
      const { value, now } = await call<{
        claims: StoredClaim[];
        presence: Record<string, StoredPresence>;
        lastSeq: number | string;
      }>(scope, "ROOM_STATE", []);
      return {
        claims: toClaims(value.claims),
        presence: toPresenceList(value.presence, now),
        lastSeq: Number(value.lastSeq),
      };
    },

    async broadcast(scope, input) {
      const { value } = await call<Omit<RoomEvent, "read_by">>(scope, "BROADCAST", [
        input.agentId,
        input.message,
        input.status ?? "",
        input.status === undefined ? "0" : "1",
      ]);
      return toEvent({ e: value, r: [] });
    },

    async leaveRoom(scope, agentId) {
      // Leaving is not a visit: no actor, so the script's reply does not undo "left".
      const { value } = await call<{ exists: boolean; tasks: string[]; paths: string[]; locks: string[] }>(
        { ...scope, actor: undefined },
        "LEAVE_ROOM",
        [agentId],
      );
      return {
        agentId,
        roomExists: value.exists,
        released: { tasks: value.tasks, paths: value.paths, locks: value.locks },
      };
    },
  };
}
