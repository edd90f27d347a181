/**
 * The acting agent's leases and file claims are renewed by its calls (RoomScope.actor), with its presence: every
 * live lease to now + its length, every live claim to now + its TTL. Expired ones are left for the next write
 * that records them. An agent holding nothing costs two index reads (the partial lease index, claims by agent).
 */
import type { Database } from "bun:sqlite";
import { iso } from "../../protocol/time.ts";

export function createRenewal(db: Database) {
  const leased = db.query<{ id: string; lease_ms: number }, [string, string, number]>(
    `SELECT id, lease_ms FROM tasks
     WHERE room_id = ? AND owner = ? AND lease_expires_at > ? AND lease_expires_at IS NOT NULL`,
  );
  const renewLease = db.query<unknown, [number, string, string, string]>(
    `UPDATE tasks SET lease_expires_at = ?1, json = json_set(json, '$.lease_expires_at', ?2)
     WHERE room_id = ?3 AND id = ?4`,
  );
  const renewClaims = db.query<unknown, [number, string, string]>(
    "UPDATE claims SET expires_at = ?1 + ttl_ms WHERE room_id = ?2 AND agent_id = ?3 AND expires_at > ?1",
  );
  // The UPDATE costs ~20 µs inside a batch's savepoint even when it matches nothing (it opens a statement
  // journal): an agent holding no live claim — most calls — is found by a read of the index instead.
  const holdsClaims = db.query<{ one: number }, [number, string, string]>(
    "SELECT 1 AS one FROM claims WHERE room_id = ?2 AND agent_id = ?3 AND expires_at > ?1 LIMIT 1",
  );
  return {
    /** Renews agentId's live leases and claims in the room at time t; call inside a write transaction. */
    renew(roomId: string, agentId: string, t: number): void {
      for (const { id, lease_ms } of leased.all(roomId, agentId, t)) {
        renewLease.run(t + lease_ms, iso(t + lease_ms), roomId, id);
      }
      if (holdsClaims.get(t, roomId, agentId)) renewClaims.run(t, roomId, agentId);
    },
  };
}
