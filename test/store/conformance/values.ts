/**
 * A room's small values (protocol/room-values.ts, types.ts readValues / writeValue), run with kinds of the suite's
 * own — the machinery is the same for every declared kind: set, replace and remove; each kind's key limit; the
 * checks against the declaration; export → import through a file (as a migration moves them) and a fork, each
 * carrying exactly the kinds declared to travel.
 */
import { expect, test } from "bun:test";
import { z } from "zod";
import { readExport } from "../../../src/moving/import-file.ts";
import { ACCESS_DENIED } from "../../../src/protocol/errors.ts";
import { VALUE_LIMITS, VALUE_PIECES, type ValuePieces } from "../../../src/protocol/room-values.ts";
import type { RoomScope, RoomStore } from "../../../src/store/types.ts";
import { expectRoomError, newScope, newTeam, type Suite } from "./harness.ts";
import { body, exportText } from "./moving.ts";

/** The kinds the suite's stores keep: the declared ones and three of the suite's own. */
export const TEST_VALUES: ValuePieces = {
  ...VALUE_PIECES,
  test_note: {
    what: "a note about the room (one value)",
    value: z.string().max(200),
    maxKeys: 1,
    example: "hello, room",
    moved: true,
    forked: true,
  },
  test_roles: {
    what: "a role per agent",
    value: z.enum(["lead", "member"]),
    maxKeys: 3,
    example: "lead",
    moved: true,
    forked: { not: "roles are given again in a fork" },
  },
  test_scratch: {
    what: "scratch numbers that stay where they are made",
    value: z.strictObject({ n: z.number() }),
    maxKeys: 2,
    example: { n: 1.5 },
    moved: { not: "scratch work of the room it was made in" },
    forked: { not: "scratch work of the room it was made in" },
  },
};

/** The key an example value of `piece` is written under: "" for a kind of one value. */
export const exampleKey = (piece: string) => (TEST_VALUES[piece]?.maxKeys === 1 ? "" : "k");

/** Writes every kind's example value into the room (claiming it). */
export async function fillValues(store: RoomStore, scope: RoomScope): Promise<void> {
  for (const [piece, decl] of Object.entries(TEST_VALUES))
    await store.writeValue(scope, { piece, key: exampleKey(piece), value: decl.example });
}

export function valueTests(suite: Suite): void {
  test("a kind of one value: unset, set, replaced, removed; reads and removing nothing claim nothing", async () => {
    const scope = newScope();
    const store = suite.store;
    expect(await store.readValues(scope, "test_note")).toEqual({});
    await store.writeValue(scope, { piece: "test_note", key: "", value: null });
    expect((await store.createRoom({ ...scope, teamId: newTeam() })).created).toBe(true);

    const mine = newScope();
    await store.writeValue(mine, { piece: "test_note", key: "", value: "first" });
    expect(await suite.second.readValues(mine, "test_note")).toEqual({ "": "first" });
    await suite.second.writeValue(mine, { piece: "test_note", key: "", value: "second" });
    expect(await store.readValues(mine, "test_note")).toEqual({ "": "second" });
    expect(await store.readValues(mine, "test_roles")).toEqual({});
    await store.writeValue(mine, { piece: "test_note", key: "", value: null });
    expect(await store.readValues(mine, "test_note")).toEqual({});
    await expectRoomError(
      store.readValues({ ...mine, teamId: newTeam() }, "test_note"),
      "denied",
      ACCESS_DENIED,
    );
  });

  test("a kind's key limit: a new key past it is refused and changes nothing; held keys change freely", async () => {
    const scope = newScope();
    const store = suite.store;
    for (const key of ["alice", "bob", "__proto__"])
      await store.writeValue(scope, { piece: "test_roles", key, value: "member" });
    await expectRoomError(
      store.writeValue(scope, { piece: "test_roles", key: "carol", value: "lead" }),
      "limit",
      "Limit reached: a room holds at most 3 test_roles values; change or remove one first",
    );
    await store.writeValue(scope, { piece: "test_roles", key: "alice", value: "lead" });
    await store.writeValue(scope, { piece: "test_roles", key: "bob", value: null });
    await store.writeValue(scope, { piece: "test_roles", key: "carol", value: "member" });
    const roles = await suite.second.readValues(scope, "test_roles");
    expect(roles).toEqual({ ["__proto__"]: "member", alice: "lead", carol: "member" });
    expect(Object.keys(roles).sort()).toEqual(["__proto__", "alice", "carol"]);
    // Other kinds count on their own.
    await store.writeValue(scope, { piece: "test_note", key: "", value: "n" });
    expect(await store.readValues(scope, "test_note")).toEqual({ "": "n" });
  });

  test("writes are checked against the declaration and a refused one changes nothing", async () => {
    const scope = newScope();
    const store = suite.store;
    await store.writeValue(scope, { piece: "test_scratch", key: "a", value: { n: 1 } });
    const refused: [Parameters<RoomStore["writeValue"]>[1], string, string][] = [
      [{ piece: "nope", key: "", value: 1 }, "invalid", "Unknown kind of room value: nope"],
      [{ piece: "test_note", key: "x", value: "v" }, "invalid", /^Invalid key for test_note/.source],
      [{ piece: "test_roles", key: "a\nb", value: "lead" }, "invalid", /^Invalid key for test_roles/.source],
      [
        { piece: "test_roles", key: "k".repeat(VALUE_LIMITS.keyChars + 1), value: "lead" },
        "invalid",
        "^Invalid key",
      ],
      [{ piece: "test_roles", key: "a", value: "boss" }, "invalid", "^Invalid test_roles: "],
      [
        { piece: "test_scratch", key: "a", value: { n: 1, extra: true } },
        "invalid",
        "^Invalid test_scratch: ",
      ],
      [{ piece: "test_note", key: "", value: "x".repeat(201) }, "invalid", "^Invalid test_note: "],
    ];
    for (const [input, kind, message] of refused) {
      await expectRoomError(store.writeValue(scope, input), kind as "invalid", new RegExp(message));
    }
    await expectRoomError(store.readValues(scope, "nope"), "invalid", "Unknown kind of room value: nope");
    expect(await store.readValues(scope, "test_scratch")).toEqual({ a: { n: 1 } });
    expect(await store.readValues(scope, "test_note")).toEqual({});
  });

  test("every declared kind's example is kept, and travels with an export and a fork as declared", async () => {
    const scope = newScope();
    const store = suite.store;
    await fillValues(store, scope);
    const text = await exportText(store, scope, suite.clock.now());
    const file = await readExport(
      (async function* () {
        yield new TextEncoder().encode(text);
      })(),
      1 << 30,
      TEST_VALUES,
    );
    const copy = { roomId: `${scope.roomId}-copy`, teamId: scope.teamId };
    try {
      await suite.second.importRoom(copy, file);
    } finally {
      file.close();
    }
    const fork = { roomId: `${scope.roomId}-fork`, teamId: scope.teamId };
    await suite.second.forkRoom(scope, { newRoomId: fork.roomId, by: "bob" });
    for (const [piece, decl] of Object.entries(TEST_VALUES)) {
      const example = { [exampleKey(piece)]: decl.example };
      const found = {
        piece,
        kept: await store.readValues(scope, piece),
        moved: await store.readValues(copy, piece),
        forked: await store.readValues(fork, piece),
      };
      expect(found).toEqual({
        piece,
        kept: example,
        moved: decl.moved === true ? example : {},
        forked: decl.forked === true ? example : {},
      });
    }
  });

  test("values travel as declared: export → import through a file (as a migration), and a fork", async () => {
    const scope = newScope();
    const store = suite.store;
    await store.writeValue(scope, { piece: "test_note", key: "", value: "café ☕ \u0000 ok" });
    await store.writeValue(scope, { piece: "test_roles", key: "bob", value: "lead" });
    await store.writeValue(scope, { piece: "test_roles", key: "ann", value: "member" });
    await store.writeValue(scope, { piece: "test_scratch", key: "s", value: { n: 0.1 } });
    const text = await exportText(store, scope, suite.clock.now());
    expect(text.split("\n").filter((line) => line.startsWith('{"kind":"value"'))).toEqual([
      '{"kind":"value","piece":"test_note","key":"","value":"café ☕ \\u0000 ok"}',
      '{"kind":"value","piece":"test_roles","key":"ann","value":"member"}',
      '{"kind":"value","piece":"test_roles","key":"bob","value":"lead"}',
    ]);
    const file = await readExport(
      (async function* () {
        yield new TextEncoder().encode(text);
      })(),
      1 << 30,
      TEST_VALUES,
    );
    const copy = { roomId: `${scope.roomId}-copy`, teamId: scope.teamId };
    try {
      await suite.second.importRoom(copy, file);
    } finally {
      file.close();
    }
    // The suite's own kinds only: declared kinds are the test above's.
    const read = async (s: RoomScope) =>
      Object.fromEntries(
        await Promise.all(
          ["test_note", "test_roles", "test_scratch"].map(async (p) => [p, await store.readValues(s, p)]),
        ),
      );
    expect(await read(copy)).toEqual({
      ...(await read(scope)),
      test_scratch: {},
    });
    expect(body(await exportText(store, copy, suite.clock.now()))).toEqual(body(text));

    await store.writeValue(scope, { piece: "test_note", key: "", value: "after the copy" });
    const fork = { roomId: `${scope.roomId}-fork`, teamId: scope.teamId };
    await store.forkRoom(scope, { newRoomId: fork.roomId, by: "bob" });
    expect(await read(fork)).toEqual({
      test_note: { "": "after the copy" },
      test_roles: {},
      test_scratch: {},
    });
  });
}
