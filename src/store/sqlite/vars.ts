/** Shared variables: strings in, strings out (TEXT columns keep them byte for byte). */
import { LIMITS } from "../../protocol/limits.ts";
import { BROADCAST } from "../../protocol/records.ts";
import { toolErrors } from "../../protocol/tool-errors.ts";
import type { RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { StoreParts } from "./rooms.ts";

export function createVars({ db, rooms, changes }: StoreParts, events: Events) {
  const put = db.query<unknown, [string, string, string]>(
    `INSERT INTO vars (room_id, key, value) VALUES (?1, ?2, ?3)
     ON CONFLICT (room_id, key) DO UPDATE SET value = excluded.value`,
  );
  const get = db.query<{ value: string }, [string, string]>(
    "SELECT value FROM vars WHERE room_id = ? AND key = ?",
  );
  const all = db.query<{ key: string; value: string }, [string]>(
    "SELECT key, value FROM vars WHERE room_id = ? ORDER BY key",
  );
  // A new key in a room at the limit is refused; setting one it holds is always allowed.
  const full = db.query<{ full: number }, [string, string, number]>(
    `SELECT NOT EXISTS (SELECT 1 FROM vars WHERE room_id = ?1 AND key = ?2)
       AND (SELECT count(*) FROM vars WHERE room_id = ?1) >= ?3 AS full`,
  );

  return {
    setVar(scope: RoomScope, key: string, value: string, agentId: string): void {
      rooms.check(scope);
      if (full.get(scope.roomId, key, LIMITS.varsPerRoom)?.full)
        throw toolErrors.varLimit(LIMITS.varsPerRoom);
      rooms.claim(scope);
      put.run(scope.roomId, key, value);
      changes.signal(scope.roomId, "vars");
      events.append(scope.roomId, { type: "shared_var_set", from: agentId, to: BROADCAST, payload: { key } });
    },
    getVar(scope: RoomScope, key: string): string | null {
      return rooms.read(scope) ? (get.get(scope.roomId, key)?.value ?? null) : null;
    },
    listVars(scope: RoomScope): Record<string, string> {
      if (!rooms.read(scope)) return {};
      // fromEntries defines own properties, so a key like "__proto__" stays an ordinary entry.
      return Object.fromEntries(all.all(scope.roomId).map((row) => [row.key, row.value]));
    },
  };
}
