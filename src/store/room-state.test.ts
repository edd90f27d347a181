/**
 * The declaration of room state (room-state.ts) against the stores' own lists: the SQLite schema as the driver
 * creates it, the PostgreSQL schema's text, the Redis key parts, the export format's lines, and the declared kinds
 * of small value. What each store really holds is checked by the conformance suite
 * (test/store/conformance/room-state.ts).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TEST_VALUES } from "../../test/store/conformance/values.ts";
import { stateLineSchema } from "../protocol/export-format.ts";
import { PIECE_NAME, VALUE_PIECES, valueText } from "../protocol/room-values.ts";
import { ROOM_TABLES as POSTGRES_TABLES } from "./postgres/schema.ts";
import { ROOM_KEY_PARTS } from "./redis/keys.ts";
import { ROOM_STATE, type RoomStatePiece, roomParts, roomStatePieces, roomTables } from "./room-state.ts";
import { openDatabase, ROOM_TABLES as SQLITE_TABLES } from "./sqlite/schema.ts";

const sorted = (list: Iterable<string>) => [...list].sort();

describe("the declaration of room state", () => {
  test("SQLite: every table with a room_id column is declared, and every declared table exists", () => {
    const db = openDatabase(":memory:");
    try {
      const withRoom = db
        .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((row) => row.name)
        .filter((name) =>
          db
            .query<{ name: string }, [string]>("SELECT name FROM pragma_table_info(?)")
            .all(name)
            .some((column) => column.name === "room_id"),
        );
      expect(sorted(withRoom)).toEqual(sorted(roomTables("sqlite")));
    } finally {
      db.close();
    }
  });

  test("PostgreSQL: every table its schema creates with a room_id column is declared, and every declared one is created", () => {
    const text = readFileSync(join(import.meta.dir, "postgres/schema.ts"), "utf8");
    const tables = [...text.matchAll(/CREATE TABLE (\w+) \(([\s\S]*?)\n\);/g)];
    expect(tables.length).toBeGreaterThan(20);
    const withRoom = tables.filter((m) => /^\s*room_id /m.test(m[2] as string)).map((m) => m[1] as string);
    expect(/ADD COLUMN room_id/.test(text)).toBe(false);
    expect(sorted(withRoom)).toEqual(sorted(roomTables("postgres")));
  });

  test("the drivers purge exactly the declared tables, the room row last", () => {
    expect(SQLITE_TABLES).toEqual(roomTables("sqlite"));
    expect(POSTGRES_TABLES).toEqual(roomTables("postgres"));
    for (const tables of [SQLITE_TABLES, POSTGRES_TABLES]) {
      expect(tables.at(-1)).toBe("rooms");
      expect(new Set(tables).size).toBe(tables.length);
    }
  });

  test("Redis: the declared parts are exactly the room's key parts (redis/keys.ts)", () => {
    expect(sorted(roomParts())).toEqual(sorted(ROOM_KEY_PARTS));
    expect(new Set(ROOM_KEY_PARTS).size).toBe(ROOM_KEY_PARTS.length);
  });

  test("every line of an export is some piece's, and every piece that moves names its lines", () => {
    const kinds = stateLineSchema.options.map((option) => option.shape.kind.value as string);
    const claimed = roomStatePieces().flatMap(([, piece]) =>
      typeof piece.moved === "object" && "lines" in piece.moved ? [...piece.moved.lines] : [],
    );
    expect(sorted(new Set(claimed))).toEqual(sorted([...kinds, "event"]));
  });

  test("every piece is kept somewhere, and says why wherever it stays behind", () => {
    for (const [name, piece] of Object.entries(ROOM_STATE) as [string, RoomStatePiece][]) {
      const places = [...piece.tables, ...(piece.sqlite ?? []), ...(piece.postgres ?? []), ...piece.parts];
      expect({ name, kept: places.length > 0 }).toEqual({ name, kept: true });
      for (const how of ["moved", "forked"] as const) {
        const value = piece[how];
        if (typeof value === "object" && "not" in value)
          expect({ name, how, why: value.not.length >= 20 }).toEqual({ name, how, why: true });
      }
    }
  });

  test("every declared kind of small value is well formed: its name, its key limit, its example", () => {
    // The conformance suite's own kinds too: the same rules hold for them.
    const pieces = { ...TEST_VALUES, ...VALUE_PIECES };
    for (const [name, decl] of Object.entries(pieces)) {
      expect({ name, ok: PIECE_NAME.test(name) }).toEqual({ name, ok: true });
      expect({ name, maxKeys: Number.isInteger(decl.maxKeys) && decl.maxKeys >= 1 }).toEqual({
        name,
        maxKeys: true,
      });
      expect(() => valueText(pieces, name, decl.maxKeys === 1 ? "" : "k", decl.example)).not.toThrow();
      for (const how of ["moved", "forked"] as const) {
        const value = decl[how];
        if (value !== true)
          expect({ name, how, why: value.not.length >= 20 }).toEqual({ name, how, why: true });
      }
    }
  });
});
