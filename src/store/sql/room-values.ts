/**
 * A room's small values (protocol/room-values.ts), every kind in one table: `room_values` (room_id, piece, key,
 * value), the value its JSON text. Reads and writes of one kind; and for a room's export, import and fork, every
 * kind at once, filtered by the declaration (which kinds travel).
 */
import {
  checkValueKey,
  pieceOf,
  travelling,
  valueErrors,
  valueFits,
  valueText,
} from "../../protocol/room-values.ts";
import type { RoomValue } from "../move-types.ts";
import type { RoomScope, ValueWrite } from "../types.ts";
import type { SqlParts } from "./rooms.ts";
import type { Op } from "./run.ts";

export function createValues({ sql, rooms, values: pieces }: SqlParts) {
  const ofPiece = sql.query<{ key: string; value: string }, [string, string]>(
    "SELECT key, value FROM room_values WHERE room_id = ? AND piece = ? ORDER BY key",
  );
  const held = sql.query<{ held: number | string; here: number | boolean }, [string, string, string]>(
    `SELECT (SELECT count(*) FROM room_values WHERE room_id = ?1 AND piece = ?2) AS held,
       EXISTS (SELECT 1 FROM room_values WHERE room_id = ?1 AND piece = ?2 AND key = ?3) AS here`,
  );
  const put = sql.query<unknown, [string, string, string, string]>(
    `INSERT INTO room_values (room_id, piece, key, value) VALUES (?1, ?2, ?3, ?4)
     ON CONFLICT (room_id, piece, key) DO UPDATE SET value = excluded.value`,
  );
  const remove = sql.query<unknown, [string, string, string]>(
    "DELETE FROM room_values WHERE room_id = ? AND piece = ? AND key = ?",
  );
  const every = sql.query<{ piece: string; key: string; value: string }, [string]>(
    "SELECT piece, key, value FROM room_values WHERE room_id = ? ORDER BY piece, key",
  );

  /** The values of the kinds that travel `how`, sorted by kind and key. */
  function* travellers(roomId: string, how: "moved" | "forked"): Op<RoomValue[]> {
    const kinds = new Set(travelling(pieces, how));
    return (yield* every.all(roomId)).flatMap((row) =>
      kinds.has(row.piece) ? [{ piece: row.piece, key: row.key, value: JSON.parse(row.value) }] : [],
    );
  }

  return {
    *readValues(scope: RoomScope, piece: string): Op<Record<string, unknown>> {
      pieceOf(pieces, piece);
      if (!(yield* rooms.read(scope))) return {};
      // fromEntries defines own properties, so a key like "__proto__" stays an ordinary entry.
      return Object.fromEntries(
        (yield* ofPiece.all(scope.roomId, piece)).map((row) => [row.key, JSON.parse(row.value)]),
      );
    },
    *writeValue(scope: RoomScope, input: ValueWrite): Op<void> {
      const { piece, key, value } = input;
      const decl = pieceOf(pieces, piece);
      checkValueKey(piece, decl, key);
      const text = value === null ? null : valueText(pieces, piece, key, value);
      const room = yield* rooms.check(scope);
      const found = room ? yield* held.get(scope.roomId, piece, key) : null;
      const here = Boolean(found?.here);
      // Removing what the room does not hold writes nothing, so it claims nothing either.
      if (text === null && !here) return;
      if (text !== null && !valueFits(decl, here, Number(found?.held ?? 0)))
        throw valueErrors.limit(piece, decl.maxKeys);
      yield* rooms.claim(scope);
      if (text === null) yield* remove.run(scope.roomId, piece, key);
      else yield* put.run(scope.roomId, piece, key, text);
    },
    /** The values an export carries (the kinds declared moved). */
    exported: (roomId: string) => travellers(roomId, "moved"),
    /** The values a fork copies (the kinds declared forked), as they are now. */
    forked: (roomId: string) => travellers(roomId, "forked"),
    /**
     * Writes values into a room being built (an import, a fork): none of them is there yet. An import's are
     * checked against the declaration first (`check`); a fork's come from the store itself.
     */
    *fill(roomId: string, list: readonly RoomValue[], check: boolean): Op<void> {
      for (const v of list) {
        const text = check ? valueText(pieces, v.piece, v.key, v.value) : JSON.stringify(v.value);
        yield* put.run(roomId, v.piece, v.key, text);
      }
    },
  };
}

export type Values = ReturnType<typeof createValues>;
