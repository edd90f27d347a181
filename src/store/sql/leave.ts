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
  refuseSuspended: (scope: RoomScope) => Op<void>,
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

  /**
   * Releases everything the agent holds at once (leases, claims, locks, the wheel), appending files_released when
   * paths went; leave_room and a suspension (suspensions.ts) both end with it. Records ran-out leases and claims first.
   */
  function* releaseHoldings(roomId: string, agentId: string): Op<LeaveResult["released"]> {
    yield* leases.recordExpired(roomId);
    yield* claims.recordExpired(roomId);
    const tasks = yield* leases.releaseAll(roomId, agentId);
    const paths = yield* claims.releaseAll(roomId, agentId);
    const locks = (yield* releaseLocks.all(roomId, agentId, now())).map((r) => r.resource).sort(byteOrder);
    if (paths.length > 0) {
      yield* events.append(roomId, {
        type: "files_released",
        from: agentId,
        to: BROADCAST,
        payload: { paths },
      });
      changes.signal(roomId, "claims");
    }
    if (locks.length > 0) changes.signal(roomId, "locks");
    yield* driver.releaseHeld(roomId, agentId);
    return { tasks, paths, locks };
  }

  return {
    releaseHoldings,
    /** Never claims: on a room the team does not own yet it records nothing. A suspended agent is refused. */
    *leaveRoom(scope: RoomScope, agentId: string): Op<LeaveResult> {
      const room = yield* rooms.check(scope);
      if (!room) return { agentId, roomExists: false, released: nothing };
      // The caller, if any, was checked by room-tx.ts before this body.
      yield* refuseSuspended({ ...scope, actor: agentId, caller: undefined });
      yield* rooms.claim(scope);
      const released = yield* releaseHoldings(room.room_id, agentId);
      yield* markLeft.run(room.room_id, agentId, now());
      changes.signal(room.room_id, "presence");
      yield* events.append(room.room_id, {
        type: "agent_left",
        from: agentId,
        to: BROADCAST,
        payload: { agentId, ...released },
      });
      return { agentId, roomExists: true, released };
    },
  };
}

export type Leave = ReturnType<typeof createLeave>;
