/**
 * An export's `value` lines on import (import-file.ts): each is checked against the declared kinds the store keeps
 * (protocol/room-values.ts) — a kind it declares to move, a key and a value of the kind's shape, no more keys than
 * the kind holds, each key once — and a kind only people write makes the file a person's to import.
 */
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { TEST_VALUES } from "../../test/store/conformance/values.ts";
import { rechain } from "../../test/support/export-edit.ts";
import type { ValuePieces } from "../protocol/room-values.ts";
import { ImportRefused, readExport } from "./import-file.ts";

const AT = "2025-01-31T12:00:00.000Z";
const header = { kind: "roomd-export", version: 1, roomId: "r-values", exportedAt: AT, head: 0 };
const room = {
  kind: "room",
  createdAt: AT,
  plan: { createdAt: null, updatedAt: null },
  counters: { tasks: 0, contexts: 0, contextChanges: 0 },
  driver: { holder: null, holderKind: null, epoch: 0, since: null },
};
const value = (piece: string, key: string, v: unknown) => ({ kind: "value", piece, key, value: v });

async function read(values: unknown[], pieces: ValuePieces = TEST_VALUES) {
  const text = rechain([{ ...header }, room, ...values]);
  const file = await readExport(
    (async function* () {
      yield new TextEncoder().encode(text);
    })(),
    1 << 20,
    pieces,
  );
  file.close();
  return file;
}

async function refusal(values: unknown[], pieces?: ValuePieces): Promise<string> {
  try {
    await read(values, pieces);
  } catch (error) {
    if (error instanceof ImportRefused) return error.message;
    throw error;
  }
  throw new Error("the file was imported");
}

describe("value lines on import", () => {
  test("values of kinds that move come into the snapshot, as the file has them", async () => {
    const file = await read([
      value("test_note", "", "hi ☕"),
      value("test_roles", "ann", "lead"),
      value("test_roles", "bob", "member"),
    ]);
    expect(file.snapshot.values).toEqual([
      { piece: "test_note", key: "", value: "hi ☕" },
      { piece: "test_roles", key: "ann", value: "lead" },
      { piece: "test_roles", key: "bob", value: "member" },
    ]);
    expect(file.namesPeople).toBe(false);
  });

  test("a kind not declared, or declared to stay behind, is refused", async () => {
    expect(await refusal([value("nope", "", 1)])).toBe(
      "line 3: nope is not a kind of room value an import takes",
    );
    expect(await refusal([value("test_scratch", "a", { n: 1 })])).toBe(
      "line 3: test_scratch is not a kind of room value an import takes",
    );
    expect(await refusal([value("Bad-Name", "", 1)])).toMatch(
      /^line 3: Invalid arguments: piece: must be a kind of room value/,
    );
  });

  test("a key or a value the kind does not take, a key twice, or more keys than the kind holds are refused", async () => {
    expect(await refusal([value("test_note", "x", "hi")])).toMatch(/^line 3: Invalid key for test_note/);
    expect(await refusal([value("test_roles", "a", "boss")])).toMatch(/^line 3: Invalid test_roles: /);
    expect(await refusal([value("test_roles", "a", "lead"), value("test_roles", "a", "lead")])).toBe(
      'line 4: the test_roles value "a" appears twice',
    );
    expect(await refusal(["a", "b", "c", "d"].map((key) => value("test_roles", key, "member")))).toBe(
      "line 6: Limit reached: a room holds at most 3 test_roles values; change or remove one first",
    );
  });

  test("a kind only people write makes the file a person's to import", async () => {
    const pieces: ValuePieces = {
      people_only: {
        what: "a value only people set",
        value: z.string(),
        maxKeys: 1,
        example: "x",
        people: true,
        moved: true,
        forked: true,
      },
    };
    expect((await read([value("people_only", "", "set by ann")], pieces)).namesPeople).toBe(true);
  });
});
