/**
 * The team's room index (`team:{<teamId>}:rooms`, room id → claim time), which enforces roomsPerTeam. A room's
 * owner lives in the room's slot and the index in the team's, so they are kept in step by a handshake (call.ts)
 * rather than one script: a place is reserved before a claim and given back when the claim fails. Places of rooms
 * the team no longer owns (expired, or lost after a failed claim) are pruned when the limit is hit and when rooms
 * are listed; those steps read several slots and are not atomic, which only ever delays a freed place.
 */
import type { StoreLimits } from "../access-types.ts";
import type { Open, Team } from "./call-types.ts";
import type { Place } from "./lua-team.ts";
import type { RoomInfo } from "./lua-views.ts";

export interface IndexedRoom {
  roomId: string;
  score: number;
  info: RoomInfo;
}

interface Deps {
  team: Team;
  open: Open;
  limits: StoreLimits;
  /** A place younger than this may belong to a claim still in flight, so pruning leaves it alone. */
  graceMs: number;
}

export function createRoomIndex({ team, open, limits, graceMs }: Deps) {
  const max = limits.roomsPerTeam;
  const info = async (roomId: string) => (await open(roomId, "", "ROOM_INFO", {})).value;

  /** The team's indexed rooms with what each room says about itself, by claim time. */
  async function rooms(teamId: string): Promise<{ rooms: IndexedRoom[]; now: number }> {
    const { value, now } = await team(teamId, "ROOM_INDEX", {});
    const infos = await Promise.all(value.map(([roomId]) => info(roomId)));
    return {
      rooms: value.map(([roomId, score], i) => ({ roomId, score, info: infos[i] as RoomInfo })),
      now,
    };
  }

  /** Drops the places of rooms the team no longer owns (past the grace period); returns how many. */
  async function prune(teamId: string, indexed: IndexedRoom[], now: number): Promise<number> {
    const dead = indexed.filter((r) => r.info.owner !== teamId && r.score <= now - graceMs);
    if (dead.length === 0) return 0;
    const pairs = dead.flatMap((r) => [r.roomId, String(r.score)]);
    return (await team(teamId, "UNINDEX_ROOMS", { pairs })).value;
  }

  const tryReserve = async (scope: { roomId: string; teamId: string }) =>
    (await team(scope.teamId, "RESERVE_ROOM", { room: scope.roomId, max })).value;

  return {
    rooms,
    prune,
    /** A place for the room, or "limit"; at the limit, stale places are pruned and the reservation tried again. */
    async reserve(scope: { roomId: string; teamId: string }): Promise<Place | "limit"> {
      const first = await tryReserve(scope);
      if (first !== "limit") return first;
      const { rooms: indexed, now } = await rooms(scope.teamId);
      if ((await prune(scope.teamId, indexed, now)) === 0) return "limit";
      return tryReserve(scope);
    },
    /**
     * Gives back a place after a failed claim — unless the room is the team's after all (a concurrent call of the
     * team claimed it, or the failed call ran on the server after its deadline). Best effort: the caller's error
     * is what matters, and a place left behind is pruned later.
     */
    async release(scope: { roomId: string; teamId: string }, score: number): Promise<void> {
      try {
        if ((await info(scope.roomId)).owner === scope.teamId) return;
        await team(scope.teamId, "UNINDEX_ROOMS", { pairs: [scope.roomId, String(score)] });
      } catch {}
    },
    /** Removes a deleted room's place whatever its score. */
    async remove(scope: { roomId: string; teamId: string }): Promise<void> {
      await team(scope.teamId, "UNINDEX_ROOMS", { pairs: [scope.roomId, ""] });
    },
  };
}

export type RoomIndex = ReturnType<typeof createRoomIndex>;
