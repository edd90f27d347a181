/**
 * Shared variables, as the SQLite driver's (src/store/sqlite/vars.ts). A value is stored as its JSON string text:
 * PostgreSQL's text cannot hold U+0000, which a value may contain, and JSON escapes it, so every value comes back
 * byte for byte.
 */
import { BROADCAST } from "../../protocol/records.ts";
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

  return {
    async setVar(scope: RoomScope, key: string, value: string, agentId: string): Promise<void> {
      await rooms.check(scope);
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
