/**
 * The acting agent's leases and file claims are renewed by its calls (RoomScope.actor), with its presence, as in
 * the SQLite driver (src/store/sqlite/renewal.ts).
 */
import { iso } from "../../protocol/time.ts";
import type { Pg } from "./db.ts";

export function createRenewal(pg: Pg) {
  // The agent's claims renewed and its live leases read, in one statement (one round trip).
  const renewClaimsAndRead = pg.query<
    { id: string; lease_ms: number; json: string },
    [string, string, number]
  >(
    `WITH claims AS (UPDATE claims SET expires_at = ?3 + ttl_ms
                     WHERE room_id = ?1 AND agent_id = ?2 AND expires_at > ?3)
     SELECT id, lease_ms, json FROM tasks
     WHERE room_id = ?1 AND owner = ?2 AND lease_expires_at > ?3 AND lease_expires_at IS NOT NULL`,
  );
  const renewLease = pg.query<unknown, [number, string, string, string]>(
    "UPDATE tasks SET lease_expires_at = ?1, json = ?2 WHERE room_id = ?3 AND id = ?4",
  );
  return {
    /** Renews agentId's live leases and claims in the room at time t (inside a write). */
    async renew(roomId: string, agentId: string, t: number): Promise<void> {
      // JSON is edited in TS, not with jsonb functions, so the stored text keeps its key order (as SQLite's json_set).
      for (const { id, lease_ms, json } of await renewClaimsAndRead.all(roomId, agentId, t)) {
        const task = JSON.parse(json) as Record<string, unknown>;
        task.lease_expires_at = iso(t + lease_ms);
        await renewLease.run(t + lease_ms, JSON.stringify(task), roomId, id);
      }
    },
  };
}
