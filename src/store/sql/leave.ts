/**
 * leave_room: the agent's presence becomes "left" (its status text cleared) and its leases, file claims and locks are released at once, and
 * the wheel when it drives the room (claim_driver): an agent that left can steer nothing.
 */
import type { LeaveResult } from "../../protocol/claims.ts";
import { byteOrder } from "../../protocol/claims.ts";
import { BROADCAST } from "../../protocol/records.ts";
import type { RoomScope } from "../types.ts";
import type { Claims } from "./claims.ts";
import type { DriverOps } from "./driver.ts";
import type { Events } from "./events.ts";
import type { Leases } from "./leases.ts";
import type { SqlParts } from "./rooms.ts";
import type { Op } from "./run.ts";

const nothing = { tasks: [], paths: [], locks: [] };

export function createLeave(
  { sql, now, rooms, changes }: SqlParts,
  events: Events,
  leases: Leases,
  claims: Claims,
  driver: Pick<DriverOps, "releaseHeld">,
) {
  // Keeps the row (and so the fence): the next holder's fence grows as after any release.
  const releaseLocks = sql.query<{ resource: string }, [string, string, number]>(
    "UPDATE locks SET holder = NULL WHERE room_id = ? AND holder = ? AND expires_at > ? RETURNING resource",
  );
  // The status text goes too: it said what the agent was doing, and that is over (a page would show it as current).
  const markLeft = sql.query<unknown, [string, string, number]>(
    `INSERT INTO presence (room_id, agent_id, last_seen, left_at) VALUES (?1, ?2, ?3, ?3)
     ON CONFLICT (room_id, agent_id) DO UPDATE
     SET last_seen = excluded.last_seen, left_at = excluded.left_at, status_text = NULL`,
  );

  return {
    /** Never claims: on a room the team does not own yet it records nothing. */
    *leaveRoom(scope: RoomScope, agentId: string): Op<LeaveResult> {
      const room = yield* rooms.check(scope);
      if (!room) return { agentId, roomExists: false, released: nothing };
      yield* rooms.claim(scope);
      yield* leases.recordExpired(room.room_id);
      yield* claims.recordExpired(room.room_id);
      const tasks = yield* leases.releaseAll(room.room_id, agentId);
      const paths = yield* claims.releaseAll(room.room_id, agentId);
      const locks = (yield* releaseLocks.all(room.room_id, agentId, now()))
        .map((r) => r.resource)
        .sort(byteOrder);
      yield* markLeft.run(room.room_id, agentId, now());
      changes.signal(room.room_id, "presence");
      if (paths.length > 0) {
        yield* events.append(room.room_id, {
          type: "files_released",
          from: agentId,
          to: BROADCAST,
          payload: { paths },
        });
        changes.signal(room.room_id, "claims");
      }
      if (locks.length > 0) changes.signal(room.room_id, "locks");
      yield* driver.releaseHeld(room.room_id, agentId);
      yield* events.append(room.room_id, {
        type: "agent_left",
        from: agentId,
        to: BROADCAST,
        payload: { agentId, tasks, paths, locks },
      });
      return { agentId, roomExists: true, released: { tasks, paths, locks } };
    },
  };
}
