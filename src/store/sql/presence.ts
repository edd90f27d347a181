/** Presence: heartbeats keep an agent online for LIMITS.presenceOnlineMs; every agent ever seen is listed. */
import type { Heartbeat, Presence } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import type { RoomScope } from "../types.ts";
import type { SqlParts } from "./rooms.ts";
import { type PresenceRow, toPresence } from "./rows.ts";
import type { Op } from "./run.ts";

/** The suspension columns getPresence joins in: all null for an agent that is not suspended. */
interface SuspendedColumns {
  by_id: string | null;
  at: number | null;
  reason: string | null;
}

export function createPresence({ sql, now, rooms, changes }: SqlParts) {
  // A NULL status_text (none given) keeps the previous text; "" replaces it (and reads as none).
  // A beat also ends a leave_room (left_at cleared).
  const upsert = sql.query<PresenceRow, [string, string, number, string | null]>(
    `INSERT INTO presence (room_id, agent_id, last_seen, status_text) VALUES (?1, ?2, ?3, ?4)
     ON CONFLICT (room_id, agent_id) DO UPDATE
     SET last_seen = excluded.last_seen, status_text = coalesce(excluded.status_text, presence.status_text),
         left_at = NULL
     RETURNING agent_id, last_seen, status_text, left_at`,
  );
  const all = sql.query<PresenceRow, [string]>(
    "SELECT agent_id, last_seen, status_text, left_at FROM presence WHERE room_id = ? ORDER BY agent_id",
  );
  // getPresence's one statement: each agent with its suspension, if any (protocol/suspensions.ts).
  const withSuspensions = sql.query<PresenceRow & SuspendedColumns, [string]>(
    `SELECT p.agent_id, p.last_seen, p.status_text, p.left_at, s.by_id, s.at, s.reason
     FROM presence p LEFT JOIN suspensions s ON s.room_id = p.room_id AND s.agent_id = p.agent_id
     WHERE p.room_id = ? ORDER BY p.agent_id`,
  );

  /** Records lastSeen = now in a room the caller has claimed. */
  function* beat(roomId: string, agentId: string, statusText?: string): Op<Presence> {
    const row = yield* upsert.get(roomId, agentId, now(), statusText ?? null);
    if (!row) throw new Error("presence: upsert returned no row");
    return toPresence(row, now());
  }

  /** Every agent of a live room, ordered by agentId. */
  function* list(roomId: string): Op<Presence[]> {
    const t = now();
    return (yield* all.all(roomId)).map((row) => toPresence(row, t));
  }

  return {
    beat,
    list,
    /** Never claims: on a room not owned yet, the presence it would record, unrecorded. */
    *heartbeat(scope: RoomScope, agentId: string, statusText?: string): Op<Heartbeat> {
      if (!(yield* rooms.check(scope))) {
        const presence = toPresence(
          { agent_id: agentId, last_seen: now(), status_text: statusText ?? null },
          now(),
        );
        return { presence, roomExists: false };
      }
      yield* rooms.claim(scope);
      changes.signal(scope.roomId, "presence");
      return { presence: yield* beat(scope.roomId, agentId, statusText), roomExists: true };
    },
    /** Every agent of a live room, ordered by agentId; a suspended one carries `suspended`. */
    *getPresence(scope: RoomScope): Op<Presence[]> {
      if (!(yield* rooms.read(scope))) return [];
      const t = now();
      return (yield* withSuspensions.all(scope.roomId)).map((row) => {
        const presence = toPresence(row, t);
        if (row.by_id === null) return presence;
        return {
          ...presence,
          suspended: { by: row.by_id, at: iso(row.at as number), reason: row.reason as string },
        };
      });
    },
  };
}

export type PresenceOps = ReturnType<typeof createPresence>;
