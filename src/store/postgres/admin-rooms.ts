/**
 * Room administration and the read-only room views, as the SQLite driver's (src/store/sqlite/admin-rooms.ts):
 * create, list, delete, operator stats, public summary.
 */
import { LIMITS } from "../../protocol/limits.ts";
import type { Presence, Task, TaskStatus } from "../../protocol/records.ts";
import { TASK_STATUSES } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import type { RoomListing, RoomStats, RoomSummaryView } from "../access-types.ts";
import type { RoomRow, StoreParts } from "./rooms.ts";
import { eventId } from "./rows.ts";

type RoomTeam = { roomId: string; teamId: string };

export function createAdminRooms(
  { pg, now, rooms }: StoreParts,
  presence: (roomId: string) => Promise<Presence[]>,
) {
  const owned = pg.query<{ room_id: string; created_at: number; last_activity: number }, [string, number]>(
    `SELECT room_id, created_at, last_activity FROM rooms
     WHERE owner = ? AND last_activity > ? ORDER BY created_at, room_id`,
  );
  const agents = pg.query<{ c: number }, [string]>("SELECT count(*) AS c FROM presence WHERE room_id = ?");
  const recent = pg.query<
    { seq: number; type: string; from_agent: string; to_agent: string; ts: number },
    [string, number]
  >("SELECT seq, type, from_agent, to_agent, ts FROM events WHERE room_id = ? ORDER BY seq DESC LIMIT ?");

  // Leases that ran out but are not recorded yet: those tasks already read as pending (protocol/leases.ts).
  const lapsed = pg.query<{ json: string }, [string, number]>(
    `SELECT json FROM tasks WHERE room_id = ? AND lease_expires_at <= ? AND lease_expires_at IS NOT NULL`,
  );

  /** Task counts per status, kept on the room row as the plan changes (O(1), revisions §5.18). */
  async function taskCounts(room: RoomRow): Promise<{ total: number; byStatus: Record<TaskStatus, number> }> {
    const byStatus: Record<TaskStatus, number> = {
      pending: room.n_pending,
      in_progress: room.n_in_progress,
      done: room.n_done,
      blocked: room.n_blocked,
    };
    for (const row of await lapsed.all(room.room_id, now())) {
      const { status } = JSON.parse(row.json) as Task;
      byStatus[status] -= 1;
      byStatus.pending += 1;
    }
    return { total: TASK_STATUSES.reduce((sum, s) => sum + byStatus[s], 0), byStatus };
  }

  return {
    taskCounts,
    /** Claims an unowned (or expired) room, or confirms (and refreshes) the team's own. */
    async createRoom(scope: RoomTeam): Promise<{ created: boolean }> {
      if (await rooms.check(scope)) {
        await rooms.claim(scope);
        return { created: false };
      }
      await rooms.claim(scope); // throws errors.roomLimit at the team's limit
      return { created: true };
    },
    async listRooms(teamId: string): Promise<RoomListing[]> {
      return (await owned.all(teamId, rooms.liveAfter(now()))).map((row) => ({
        roomId: row.room_id,
        createdAt: iso(row.created_at),
        lastActivity: iso(row.last_activity),
      }));
    },
    async deleteRoom(scope: RoomTeam): Promise<void> {
      await rooms.owned(scope);
      await rooms.purge(scope.roomId);
    },
    /** Inside the write, under the room's lock: the room goes only when nobody used it after idleSince. */
    async deleteIdleRoom(scope: RoomTeam, idleSince: number): Promise<boolean> {
      const room = await rooms.live(scope.roomId);
      if (!room || room.owner !== scope.teamId || room.last_activity > idleSince) return false;
      await rooms.purge(scope.roomId);
      return true;
    },
    async roomStats(roomId: string): Promise<RoomStats | null> {
      const room = await rooms.live(roomId);
      if (!room) return null;
      const tasks = await taskCounts(room);
      return {
        roomId,
        owner: room.owner,
        taskCount: tasks.total,
        doneTasks: tasks.byStatus.done,
        contextCount: room.n_contexts,
        agentCount: (await agents.get(roomId))?.c ?? 0,
        eventCount: room.event_seq,
        lastActivity: iso(room.last_activity),
      };
    },
    /** Never writes, not even last_activity: a public page view is not a use of the room. */
    async roomSummary(roomId: string, teamId?: string): Promise<RoomSummaryView | null> {
      const room = await rooms.live(roomId);
      if (!room || (teamId !== undefined && room.owner !== teamId)) return null;
      const tasks = await taskCounts(room);
      return {
        roomId,
        agents: await presence(roomId),
        taskCount: tasks.total,
        tasksByStatus: tasks.byStatus,
        contextCount: room.n_contexts,
        recentEvents: (await recent.all(roomId, LIMITS.summaryRecentEvents)).map((row) => ({
          id: eventId(row.seq),
          seq: row.seq,
          type: row.type,
          from: row.from_agent,
          to: row.to_agent,
          timestamp: iso(row.ts),
        })),
      };
    },
  };
}
