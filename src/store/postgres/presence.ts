/** Presence, as the SQLite driver's (src/store/sqlite/presence.ts): online for LIMITS.presenceOnlineMs after a call. */
import type { Heartbeat, Presence } from "../../protocol/records.ts";
import type { RoomScope } from "../types.ts";
import type { StoreParts } from "./rooms.ts";
import { type PresenceRow, toPresence } from "./rows.ts";

export function createPresence({ pg, now, rooms, changes }: StoreParts) {
  // A NULL status_text (none given) keeps the previous text; "" replaces it (and reads as none).
  // A beat also ends a leave_room (left_at cleared).
  const upsert = pg.query<PresenceRow, [string, string, number, string | null]>(
    `INSERT INTO presence (room_id, agent_id, last_seen, status_text) VALUES (?1, ?2, ?3, ?4)
     ON CONFLICT (room_id, agent_id) DO UPDATE
     SET last_seen = excluded.last_seen, status_text = coalesce(excluded.status_text, presence.status_text),
         left_at = NULL
     RETURNING agent_id, last_seen, status_text, left_at`,
  );
  const all = pg.query<PresenceRow, [string]>(
    "SELECT agent_id, last_seen, status_text, left_at FROM presence WHERE room_id = ? ORDER BY agent_id",
  );

  /** Records lastSeen = now in a room the caller has claimed. */
  async function beat(roomId: string, agentId: string, statusText?: string): Promise<Presence> {
    const row = await upsert.get(roomId, agentId, now(), statusText ?? null);
    if (!row) throw new Error("presence: upsert returned no row");
    return toPresence(row, now());
  }

  /** Every agent of a live room, ordered by agentId. */
  async function list(roomId: string): Promise<Presence[]> {
    const t = now();
    return (await all.all(roomId)).map((row) => toPresence(row, t));
  }

  return {
    beat,
    list,
    /** Never claims (revisions §3.11): on a room not owned yet, the presence it would record, unrecorded. */
    async heartbeat(scope: RoomScope, agentId: string, statusText?: string): Promise<Heartbeat> {
      if (!(await rooms.check(scope))) {
        const presence = toPresence(
          { agent_id: agentId, last_seen: now(), status_text: statusText ?? null },
          now(),
        );
        return { presence, roomExists: false };
      }
      await rooms.claim(scope);
      changes.signal(scope.roomId, "presence");
      return { presence: await beat(scope.roomId, agentId, statusText), roomExists: true };
    },
    async getPresence(scope: RoomScope): Promise<Presence[]> {
      return (await rooms.read(scope)) ? list(scope.roomId) : [];
    },
  };
}
