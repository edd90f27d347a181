/** Room administration and the read-only room views of the Redis store. */
import { RoomError } from "../../protocol/errors.ts";
import { LIMITS } from "../../protocol/limits.ts";
import { type Presence, TASK_STATUSES, type TaskStatus } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import type { AccessStore, RoomListing } from "../access-types.ts";
import type { Bridge } from "./call.ts";
import { toPresenceList } from "./records.ts";

type AdminOps = Pick<
  AccessStore,
  "createRoom" | "listRooms" | "deleteRoom" | "deleteIdleRoom" | "roomStats" | "roomSummary"
>;

/**
 * A room's last use: meta last_used. A room written before the driver recorded it falls back to its meta key's
 * remaining TTL, which every use sets back to ROOM_TTL (`ttlMs`; PTTL counts on Redis' clock, so this is
 * approximate), or to now for a room whose keys have no expiry.
 */
function lastActivity(now: number, room: { lastUsed: number | null; pttl: number }, ttlMs: number): string {
  if (room.lastUsed !== null) return iso(room.lastUsed);
  return iso(room.pttl < 0 || ttlMs === 0 ? now : now - (ttlMs - Math.min(room.pttl, ttlMs)));
}

export function adminOps({ call, open, index, ttlMs }: Bridge): AdminOps {
  return {
    async createRoom(scope) {
      return (await call(scope, "CREATE_ROOM", {})).value;
    },

    async listRooms(teamId) {
      const { rooms, now } = await index.rooms(teamId);
      await index.prune(teamId, rooms, now);
      return rooms
        .filter((r) => r.info.owner === teamId && r.info.createdAt !== null)
        .map(
          (r): RoomListing => ({
            roomId: r.roomId,
            createdAt: r.info.createdAt as string,
            lastActivity: lastActivity(now, r.info, ttlMs),
          }),
        )
        .sort((a, b) =>
          a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.roomId < b.roomId ? -1 : 1,
        );
    },

    async deleteRoom(scope) {
      await open(scope.roomId, scope.teamId, "DELETE_ROOM", {});
      await index.remove(scope);
    },

    async deleteIdleRoom(scope, idleSince) {
      let deleted: boolean;
      try {
        deleted = (await open(scope.roomId, scope.teamId, "DELETE_IDLE_ROOM", { idleSince })).value;
      } catch (error) {
        // Another team's room (GUARD refuses it first): not the archiver's to delete.
        if (error instanceof RoomError && error.kind === "denied") return false;
        throw error;
      }
      if (deleted) await index.remove(scope);
      return deleted;
    },

    async roomStats(roomId) {
      const { value, now } = await open(roomId, "", "ROOM_STATS", {});
      if (!value) return null;
      return {
        roomId,
        owner: value.owner,
        taskCount: value.taskCount,
        doneTasks: value.doneTasks,
        contextCount: value.contextCount,
        agentCount: value.agentCount,
        eventCount: Number(value.eventCount),
        lastActivity: lastActivity(now, value, ttlMs),
      };
    },

    async roomSummary(roomId, teamId) {
      const { value, now } = await open(roomId, teamId ?? "", "ROOM_SUMMARY", {
        recent: LIMITS.summaryRecentEvents,
      });
      if (!value) return null;
      const agents: Presence[] = toPresenceList(value.presence, now);
      const tasksByStatus = Object.fromEntries(
        TASK_STATUSES.map((s) => [s, value.byStatus[s] ?? 0]),
      ) as Record<TaskStatus, number>;
      return {
        roomId,
        agents,
        taskCount: value.taskCount,
        tasksByStatus,
        contextCount: value.contextCount,
        recentEvents: value.events.map(({ h, ms }) => ({
          id: h.id,
          seq: h.seq,
          type: h.type,
          from: h.from,
          to: h.to,
          timestamp: iso(ms),
        })),
        ...(value.forkedFrom ? { forkedFrom: value.forkedFrom } : {}),
      };
    },
  };
}
