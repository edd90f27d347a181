/**
 * Shared variables, as the SQLite driver's (src/store/sqlite/vars.ts). A value is stored as its JSON string text:
 * PostgreSQL's text cannot hold U+0000, which a value may contain, and JSON escapes it, so every value comes back
 * byte for byte.
 */
import { LIMITS } from "../../protocol/limits.ts";
import { BROADCAST } from "../../protocol/records.ts";
import { toolErrors } from "../../protocol/tool-errors.ts";
import type { RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { StoreParts } from "./rooms.ts";

const decode = (stored: string): string => JSON.parse(stored) as string;

export function createVars({ pg, rooms, changes }: StoreParts, events: Events) {
  const put = pg.query<unknown, [string, string, string]>(
    `INSERT INTO vars (room_id, key, value) VALUES (?1, ?2, ?3)
     ON CONFLICT (room_id, key) DO UPDATE SET value = excluded.value`,
  );
  const get = pg.query<{ value: string }, [string, string]>(
    "SELECT value FROM vars WHERE room_id = ? AND key = ?",
  );
  const all = pg.query<{ key: string; value: string }, [string]>(
    "SELECT key, value FROM vars WHERE room_id = ? ORDER BY key",
  );
  // A new key in a room at the limit is refused; setting one it holds is always allowed.
  const full = pg.query<{ full: boolean }, [string, string, number]>(
    `SELECT NOT EXISTS (SELECT 1 FROM vars WHERE room_id = ?1 AND key = ?2)
       AND (SELECT count(*) FROM vars WHERE room_id = ?1) >= ?3 AS full`,
  );

  return {
    async setVar(scope: RoomScope, key: string, value: string, agentId: string): Promise<void> {
      await rooms.check(scope);
      if ((await full.get(scope.roomId, key, LIMITS.varsPerRoom))?.full)
        throw toolErrors.varLimit(LIMITS.varsPerRoom);
      await rooms.claim(scope);
      await put.run(scope.roomId, key, JSON.stringify(value));
      changes.signal(scope.roomId, "vars");
      await events.append(scope.roomId, {
        type: "shared_var_set",
        from: agentId,
        to: BROADCAST,
        payload: { key },
      });
    },
    async getVar(scope: RoomScope, key: string): Promise<string | null> {
      if (!(await rooms.read(scope))) return null;
      const row = await get.get(scope.roomId, key);
      return row ? decode(row.value) : null;
    },
    async listVars(scope: RoomScope): Promise<Record<string, string>> {
      if (!(await rooms.read(scope))) return {};
      // fromEntries defines own properties, so a key like "__proto__" stays an ordinary entry.
      return Object.fromEntries((await all.all(scope.roomId)).map((row) => [row.key, decode(row.value)]));
    },
  };
}
