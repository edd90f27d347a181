/** File claims, leave_room and the AgentRoom room state and broadcast of the Redis store (protocol/claims.ts). */
import {
  byteOrder,
  checkPaths,
  claimsOverlapping,
  type FileClaim,
  sortClaims,
  sortConflicts,
} from "../../protocol/claims.ts";
import { LIMITS } from "../../protocol/limits.ts";
import { iso } from "../../protocol/time.ts";
import type { RoomStore } from "../types.ts";
import type { Call } from "./call.ts";
import type { StoredClaim } from "./lua-claims.ts";
import { toEvent, toPresenceList } from "./records.ts";

type ClaimOps = Pick<
  RoomStore,
  "claimFiles" | "releaseFiles" | "listClaims" | "checkFiles" | "roomState" | "broadcast" | "leaveRoom"
>;

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
  const live = async (scope: Parameters<Call>[0]) => toClaims((await call(scope, "LIST_CLAIMS", {})).value);
  return {
    async claimFiles(scope, input) {
      const { value } = await call(scope, "CLAIM_FILES", {
        agent: input.agentId,
        paths: input.paths,
        ttl: input.ttlMs,
        reason: input.reason,
        max: LIMITS.claimsPerRoom,
      });
      return {
        claimed: value.claimed.map((c) => ({ path: c.path, expiresAt: iso(c.expiresAt) })),
        conflicts: sortConflicts(value.conflicts.map((c) => ({ ...c, expiresAt: iso(c.expiresAt) }))),
      };
    },

    async releaseFiles(scope, agentId, paths) {
      const { value } = await call(scope, "RELEASE_FILES", {
        agent: agentId,
        all: paths === undefined,
        paths: paths ?? [],
      });
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
      const { value, now } = await call(scope, "ROOM_STATE", {});
      return {
        claims: toClaims(value.claims),
        presence: toPresenceList(value.presence, now),
        lastSeq: Number(value.lastSeq),
      };
    },

    async broadcast(scope, input) {
      const { value } = await call(scope, "BROADCAST", {
        agent: input.agentId,
        message: input.message,
        status: input.status,
      });
      return toEvent({ e: value, r: [] });
    },

    async leaveRoom(scope, agentId) {
      // Leaving is not a visit: no actor, so the script's reply does not undo "left".
      const { value } = await call({ ...scope, actor: undefined }, "LEAVE_ROOM", { agent: agentId });
      return {
        agentId,
        roomExists: value.exists,
        released: { tasks: value.tasks, paths: value.paths, locks: value.locks },
      };
    },
  };
}
