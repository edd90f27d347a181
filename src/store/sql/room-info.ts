/**
 * get_room_info: a room's counts, times, driver and origin, read from kept counters (never from its rows); task
 * counts as reads show them (leases that ran out and are not recorded yet count as pending, like the room summary).
 */
import { emptyRoomInfo, type ForkedFrom, type RoomInfo } from "../../protocol/people.ts";
import { iso } from "../../protocol/time.ts";
import type { RoomScope } from "../types.ts";
import type { DriverOps } from "./driver.ts";
import type { RoomRow, SqlParts } from "./rooms.ts";
import { forkedFromOf } from "./rows.ts";
import type { Op } from "./run.ts";

type TaskCounts = (room: RoomRow) => Op<{ total: number; byStatus: RoomInfo["tasksByStatus"] }>;

export function createRoomInfo({ sql, rooms }: SqlParts, driver: DriverOps, taskCounts: TaskCounts) {
  const agents = sql.query<{ c: number }, [string]>("SELECT count(*) AS c FROM presence WHERE room_id = ?");
  const origin = sql.query<{ forked_from: string | null }, [string]>(
    "SELECT forked_from FROM rooms WHERE room_id = ?",
  );

  /** Where a fork came from (null for a room that is not one). */
  function* forkedFrom(roomId: string): Op<ForkedFrom | null> {
    const raw = (yield* origin.get(roomId))?.forked_from;
    return forkedFromOf(raw);
  }

  function* describe(room: RoomRow): Op<RoomInfo> {
    const tasks = yield* taskCounts(room);
    return {
      roomId: room.room_id,
      exists: true,
      createdAt: iso(room.created_at),
      lastActivity: iso(room.last_activity),
      taskCount: tasks.total,
      tasksByStatus: tasks.byStatus,
      contextCount: room.n_contexts,
      eventCount: room.event_seq,
      agentCount: (yield* agents.get(room.room_id))?.c ?? 0,
      driver: yield* driver.state(room.room_id),
      forkedFrom: forkedFromOf(room.forked_from),
    };
  }

  return {
    forkedFrom,
    *roomInfo(scope: RoomScope): Op<RoomInfo> {
      const room = yield* rooms.read(scope);
      return room ? yield* describe(room) : emptyRoomInfo(scope.roomId);
    },
  };
}
