/**
 * Suspended agents (protocol/suspensions.ts), once for both SQL dialects: the check every room operation makes for
 * its actor (room-tx.ts), and suspend, resume and list. A suspension releases what the agent holds in the same
 * transaction (leave.ts releaseHoldings), so a call of the agent racing it either committed before it (and what it
 * took is released) or runs after it and is refused.
 */
import { BROADCAST } from "../../protocol/records.ts";
import {
  type ResumeResult,
  resumedPayload,
  type SuspendResult,
  type Suspension,
  suspendedError,
  suspendedPayload,
} from "../../protocol/suspensions.ts";
import { iso } from "../../protocol/time.ts";
import type { RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { Leave } from "./leave.ts";
import type { SqlParts } from "./rooms.ts";
import type { Op } from "./run.ts";

interface SuspensionRow {
  agent_id: string;
  by_id: string;
  at: number;
  reason: string;
}

const toSuspension = (row: SuspensionRow): Suspension => ({
  agentId: row.agent_id,
  by: row.by_id,
  at: iso(row.at),
  reason: row.reason,
});

/**
 * The check of a call's actor and caller, alone (room-tx.ts runs it before every room operation with either).
 */
export function createSuspensionCheck({ sql }: Pick<SqlParts, "sql">) {
  // By primary key alone: nearly every call finds no row, and on SQLite a join with rooms (two more cursors opened)
  // took 13.4 µs per execution against 0.8 µs for this lookup (bench/sql-timing.ts, the mixed workload). Only a
  // row found is checked against the room's owner.
  const suspension = sql.query<SuspensionRow, [string, string]>(
    "SELECT agent_id, by_id, at, reason FROM suspensions WHERE room_id = ? AND agent_id = ?",
  );
  // Only in a room the team owns: another team's room must read exactly like a missing one.
  const ownedBy = sql.query<{ one: number }, [string, string]>(
    "SELECT 1 AS one FROM rooms WHERE room_id = ? AND owner = ?",
  );
  return {
    /**
     * Refuses the call when its actor, or the agent it is made by (RoomScope.caller), is suspended in the room
     * (protocol/suspensions.ts suspendedError). The actor is checked first; a caller equal to it is not read twice.
     */
    *refuseSuspended(scope: RoomScope): Op<void> {
      const { actor, caller } = scope;
      for (const agent of [actor, caller === actor ? undefined : caller]) {
        if (agent === undefined) continue;
        const row = yield* suspension.get(scope.roomId, agent);
        if (row && (yield* ownedBy.get(scope.roomId, scope.teamId)))
          throw suspendedError(scope.roomId, toSuspension(row));
      }
    },
  };
}

export function createSuspensions({ sql, now, rooms, changes }: SqlParts, events: Events, leave: Leave) {
  const one = sql.query<SuspensionRow, [string, string]>(
    "SELECT agent_id, by_id, at, reason FROM suspensions WHERE room_id = ? AND agent_id = ?",
  );
  const all = sql.query<SuspensionRow, [string]>(
    "SELECT agent_id, by_id, at, reason FROM suspensions WHERE room_id = ? ORDER BY agent_id",
  );
  const insert = sql.query<unknown, [string, string, string, number, string]>(
    "INSERT INTO suspensions (room_id, agent_id, by_id, at, reason) VALUES (?, ?, ?, ?, ?)",
  );
  const remove = sql.query<{ agent_id: string }, [string, string]>(
    "DELETE FROM suspensions WHERE room_id = ? AND agent_id = ? RETURNING agent_id",
  );

  return {
    /**
     * Suspends the agent in a room the team owns (RoomError denied otherwise; never claims): its holdings go back at
     * once and agent_suspended is appended. Already suspended: the earlier suspension, nothing changed.
     */
    *suspendAgent(
      scope: RoomScope,
      input: { agentId: string; by: string; reason: string },
    ): Op<SuspendResult> {
      const room = yield* rooms.owned(scope);
      const earlier = yield* one.get(room.room_id, input.agentId);
      if (earlier) {
        return {
          suspension: toSuspension(earlier),
          already: true,
          released: { tasks: [], paths: [], locks: [] },
        };
      }
      yield* rooms.claim(scope);
      const t = now();
      yield* insert.run(room.room_id, input.agentId, input.by, t, input.reason);
      const suspension: Suspension = {
        agentId: input.agentId,
        by: input.by,
        at: iso(t),
        reason: input.reason,
      };
      const released = yield* leave.releaseHoldings(room.room_id, input.agentId);
      yield* events.append(room.room_id, {
        type: "agent_suspended",
        from: input.by,
        to: BROADCAST,
        payload: suspendedPayload(suspension, released),
      });
      changes.signal(room.room_id, "presence");
      return { suspension, already: false, released };
    },
    /** Lifts the agent's suspension; false (nothing changed) when it was not suspended. */
    *resumeAgent(scope: RoomScope, input: { agentId: string; by: string }): Op<ResumeResult> {
      const room = yield* rooms.owned(scope);
      const gone = yield* remove.get(room.room_id, input.agentId);
      if (!gone) return { agentId: input.agentId, resumed: false };
      yield* rooms.claim(scope);
      yield* events.append(room.room_id, {
        type: "agent_resumed",
        from: input.by,
        to: BROADCAST,
        payload: resumedPayload(input.agentId, input.by),
      });
      changes.signal(room.room_id, "presence");
      return { agentId: input.agentId, resumed: true };
    },
    /** The room's suspended agents, by agent id; RoomError denied for a room the team does not own. */
    *listSuspensions(scope: RoomScope): Op<Suspension[]> {
      const room = yield* rooms.owned(scope);
      return (yield* all.all(room.room_id)).map(toSuspension);
    },
  };
}
