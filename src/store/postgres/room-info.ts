/**
 * get_room_info, as the SQLite driver's (src/store/sqlite/room-info.ts): a room's counts, times, driver and origin,
 * read from kept counters (never from its rows); task counts as reads show them (leases that ran out and are not
 * recorded yet count as pending, like the room summary).
 */
import type { ForkedFrom, RoomInfo } from "../../protocol/people.ts";
import { iso } from "../../protocol/time.ts";
import type { RoomScope } from "../types.ts";
import type { DriverOps } from "./driver.ts";
import type { RoomRow, StoreParts } from "./rooms.ts";
import { emptyRoomInfo, forkedFromOf } from "./rows.ts";

type TaskCounts = (room: RoomRow) => Promise<{ total: number; byStatus: RoomInfo["tasksByStatus"] }>;

export function createRoomInfo({ pg, rooms }: StoreParts, driver: DriverOps, taskCounts: TaskCounts) {
  const agents = pg.query<{ c: number }, [string]>("SELECT count(*) AS c FROM presence WHERE room_id = ?");
  const origin = pg.query<{ forked_from: string | null }, [string]>(
    "SELECT forked_from FROM rooms WHERE room_id = ?",
  );

  /** Where a fork came from (null for a room that is not one). */
  async function forkedFrom(roomId: string): Promise<ForkedFrom | null> {
    const raw = (await origin.get(roomId))?.forked_from;
    return forkedFromOf(raw);
  }

  async function describe(room: RoomRow): Promise<RoomInfo> {
    const tasks = await taskCounts(room);
    return {
      roomId: room.room_id,
      exists: true,
      createdAt: iso(room.created_at),
      lastActivity: iso(room.last_activity),
      taskCount: tasks.total,
      tasksByStatus: tasks.byStatus,
      contextCount: room.n_contexts,
      eventCount: room.event_seq,
      agentCount: (await agents.get(room.room_id))?.c ?? 0,
      driver: await driver.state(room.room_id),
      forkedFrom: forkedFromOf(room.forked_from),
    };
  }

  return {
    forkedFrom,
    async roomInfo(scope: RoomScope): Promise<RoomInfo> {
      const room = await rooms.read(scope);
      return room ? describe(room) : emptyRoomInfo(scope.roomId);
    },
  };
}
