/** Room administration and the read-only room views: create, list, delete, operator stats, public summary. */

import { eventId } from "../../protocol/event-rules.ts";
import { LIMITS } from "../../protocol/limits.ts";
import type { Presence, Task, TaskStatus } from "../../protocol/records.ts";
import { TASK_STATUSES } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import type { RoomListing, RoomStats, RoomSummaryView } from "../access-types.ts";
import type { RoomRow, SqlParts } from "./rooms.ts";
import type { Op } from "./run.ts";

type RoomTeam = { roomId: string; teamId: string };

export function createAdminRooms(
  { sql, now, rooms }: SqlParts,
  presence: (roomId: string) => Op<Presence[]>,
) {
  const owned = sql.query<{ room_id: string; created_at: number; last_activity: number }, [string, number]>(
    `SELECT room_id, created_at, last_activity FROM rooms
     WHERE owner = ? AND last_activity > ? ORDER BY created_at, room_id`,
  );
  const agents = sql.query<{ c: number }, [string]>("SELECT count(*) AS c FROM presence WHERE room_id = ?");
  const recent = sql.query<
    { seq: number; type: string; from_agent: string; to_agent: string; ts: number },
    [string, number]
  >("SELECT seq, type, from_agent, to_agent, ts FROM events WHERE room_id = ? ORDER BY seq DESC LIMIT ?");

  // Leases that ran out but are not recorded yet: those tasks already read as pending (protocol/leases.ts).
  const lapsed = sql.query<{ json: string }, [string, number]>(
    `SELECT json FROM tasks WHERE room_id = ? AND lease_expires_at <= ? AND lease_expires_at IS NOT NULL`,
  );

  /** Task counts per status, kept on the room row as the plan changes (O(1), whatever the room's size). */
  function* taskCounts(room: RoomRow): Op<{ total: number; byStatus: Record<TaskStatus, number> }> {
    const byStatus: Record<TaskStatus, number> = {
      pending: room.n_pending,
      in_progress: room.n_in_progress,
      done: room.n_done,
      blocked: room.n_blocked,
    };
    for (const row of yield* lapsed.all(room.room_id, now())) {
      const { status } = JSON.parse(row.json) as Task;
      byStatus[status] -= 1;
      byStatus.pending += 1;
    }
    return { total: TASK_STATUSES.reduce((sum, s) => sum + byStatus[s], 0), byStatus };
  }

  return {
    taskCounts,
    /** Claims an unowned (or expired) room, or confirms (and refreshes) the team's own. */
    *createRoom(scope: RoomTeam): Op<{ created: boolean }> {
      if (yield* rooms.check(scope)) {
        yield* rooms.claim(scope);
        return { created: false };
      }
      yield* rooms.claim(scope); // throws errors.roomLimit at the team's limit
      return { created: true };
    },
    *listRooms(teamId: string): Op<RoomListing[]> {
      return (yield* owned.all(teamId, rooms.liveAfter(now()))).map((row) => ({
        roomId: row.room_id,
        createdAt: iso(row.created_at),
        lastActivity: iso(row.last_activity),
      }));
    },
    *deleteRoom(scope: RoomTeam): Op<void> {
      yield* rooms.owned(scope);
      yield* rooms.purge(scope.roomId);
    },
    /** Inside the write (alone on the room): the room goes only when nobody used it after idleSince. */
    *deleteIdleRoom(scope: RoomTeam, idleSince: number): Op<boolean> {
      const room = yield* rooms.live(scope.roomId);
      if (!room || room.owner !== scope.teamId || room.last_activity > idleSince) return false;
      yield* rooms.purge(scope.roomId);
      return true;
    },
    *roomStats(roomId: string): Op<RoomStats | null> {
      const room = yield* rooms.live(roomId);
      if (!room) return null;
      const tasks = yield* taskCounts(room);
      return {
        roomId,
        owner: room.owner,
        taskCount: tasks.total,
        doneTasks: tasks.byStatus.done,
        contextCount: room.n_contexts,
        agentCount: (yield* agents.get(roomId))?.c ?? 0,
        eventCount: room.event_seq,
        lastActivity: iso(room.last_activity),
      };
    },
    /** Never writes, not even last_activity: a public page view is not a use of the room. */
    *roomSummary(roomId: string, teamId?: string): Op<RoomSummaryView | null> {
      const room = yield* rooms.live(roomId);
      if (!room || (teamId !== undefined && room.owner !== teamId)) return null;
      const tasks = yield* taskCounts(room);
      return {
        roomId,
        agents: yield* presence(roomId),
        taskCount: tasks.total,
        tasksByStatus: tasks.byStatus,
        contextCount: room.n_contexts,
        recentEvents: (yield* recent.all(roomId, LIMITS.summaryRecentEvents)).map((row) => ({
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
