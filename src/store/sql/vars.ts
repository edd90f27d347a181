/**
 * Shared variables: strings in, strings out, byte for byte. Each dialect stores the value as it can keep it
 * (Dialect.text: PostgreSQL's text cannot hold U+0000, which a value may contain, so it keeps the JSON string).
 */
import { LIMITS } from "../../protocol/limits.ts";
import { BROADCAST } from "../../protocol/records.ts";
import { toolErrors } from "../../protocol/tool-errors.ts";
import type { RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { SqlParts } from "./rooms.ts";
import type { Op } from "./run.ts";

export function createVars({ sql, rooms, changes, dialect }: SqlParts, events: Events) {
  const { store, load } = dialect.text;
  const put = sql.query<unknown, [string, string, string]>(
    `INSERT INTO vars (room_id, key, value) VALUES (?1, ?2, ?3)
     ON CONFLICT (room_id, key) DO UPDATE SET value = excluded.value`,
  );
  const get = sql.query<{ value: string }, [string, string]>(
    "SELECT value FROM vars WHERE room_id = ? AND key = ?",
  );
  const all = sql.query<{ key: string; value: string }, [string]>(
    "SELECT key, value FROM vars WHERE room_id = ? ORDER BY key",
  );
  // A new key in a room at the limit is refused; setting one it holds is always allowed.
  const full = sql.query<{ full: number | boolean }, [string, string, number]>(
    `SELECT NOT EXISTS (SELECT 1 FROM vars WHERE room_id = ?1 AND key = ?2)
       AND (SELECT count(*) FROM vars WHERE room_id = ?1) >= ?3 AS full`,
  );

  return {
    *setVar(scope: RoomScope, key: string, value: string, agentId: string): Op<void> {
      yield* rooms.check(scope);
      if ((yield* full.get(scope.roomId, key, LIMITS.varsPerRoom))?.full)
        throw toolErrors.varLimit(LIMITS.varsPerRoom);
      yield* rooms.claim(scope);
      yield* put.run(scope.roomId, key, store(value));
      changes.signal(scope.roomId, "vars");
      yield* events.append(scope.roomId, {
        type: "shared_var_set",
        from: agentId,
        to: BROADCAST,
        payload: { key },
      });
    },
    *getVar(scope: RoomScope, key: string): Op<string | null> {
      if (!(yield* rooms.read(scope))) return null;
      const row = yield* get.get(scope.roomId, key);
      return row ? load(row.value) : null;
    },
    *listVars(scope: RoomScope): Op<Record<string, string>> {
      if (!(yield* rooms.read(scope))) return {};
      // fromEntries defines own properties, so a key like "__proto__" stays an ordinary entry.
      return Object.fromEntries((yield* all.all(scope.roomId)).map((row) => [row.key, load(row.value)]));
    },
  };
}
