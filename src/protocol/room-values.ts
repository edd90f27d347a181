/**
 * A room's small values — a topic, a setting, a role per agent: each kind of value is declared here once, and
 * every store keeps, purges, exports, imports, migrates and forks all of them with code written once
 * (store/room-state.ts, piece `values`: one SQL table and one Redis hash for every kind). Adding one is this
 * declaration and the tools that read and write it (CONTRIBUTING.md).
 *
 * A kind holds up to `maxKeys` values under string keys (a kind with one value keeps it under the key ""). Values
 * are JSON, checked against the declared schema by the store on every write and by an import on every line.
 */
import { z } from "zod";
import { RoomError } from "./errors.ts";
import { ROLE_LIMITS, ROLES } from "./roles.ts";

/** Whether the values travel with an export (and so an import and a migration), or with a fork — or why not. */
export type Travels = true | { not: string };

export interface ValuePiece {
  /** What the value is (the reference, the export's documentation). */
  what: string;
  /** Its shape, JSON only. Tools take their input with it; a write and an import are checked against it. */
  value: z.ZodType;
  /** Most keys a room holds (1: one value, under the key ""). A new key past it is refused; keys held may change. */
  maxKeys: number;
  /** A value that fits: the conformance suite and the test rooms write it. */
  example: unknown;
  /**
   * Only people write it (their tools refuse agents): a file holding one records a person's act, so only a person
   * may import it (moving/import-file.ts namesPeople).
   */
  people?: boolean;
  moved: Travels;
  /** A fork copies the values as they are when it is made (they are not in the log, so not as at the fork point). */
  forked: Travels;
}

export type ValuePieces = Readonly<Record<string, ValuePiece>>;

/**
 * The kinds of value a room keeps. store/room-state.ts and CONTRIBUTING.md show how one is added; the conformance
 * suite runs every one of them, and the machinery with kinds of its own (test/store/conformance/values.ts).
 */
export const VALUE_PIECES: ValuePieces = {
  roles: {
    what: "people's roles in the room (protocol/roles.ts): viewer, member or approver, under a person's humanId or \"*\" for everyone not named",
    value: z.enum(ROLES),
    maxKeys: ROLE_LIMITS.perRoom,
    example: "member",
    people: true,
    moved: true,
    forked: true,
  },
};

export const VALUE_LIMITS = {
  /** Longest key, in characters. */
  keyChars: 128,
  /** Largest value, as JSON text in UTF-8 bytes. */
  valueBytes: 16 * 1024,
} as const;

const UTF8 = new TextEncoder();

/** A kind's name: also its place in an export line and in the stores' keys. */
export const PIECE_NAME = /^[a-z][a-z0-9_]{0,39}$/;
/** A key: no control characters (PostgreSQL's text cannot hold U+0000; a log line should not hold a newline). */
const KEY = new RegExp(`^[^\\u0000-\\u001f\\u007f]{0,${VALUE_LIMITS.keyChars}}$`);

export const valueErrors = {
  unknown: (piece: string) => new RoomError("invalid", `Unknown kind of room value: ${piece}`),
  badKey: (piece: string) =>
    new RoomError(
      "invalid",
      `Invalid key for ${piece}: at most ${VALUE_LIMITS.keyChars} characters, no control characters`,
    ),
  badValue: (piece: string, problem: string) => new RoomError("invalid", `Invalid ${piece}: ${problem}`),
  tooLarge: (piece: string) =>
    new RoomError("limit", `Value too large: a ${piece} is at most ${VALUE_LIMITS.valueBytes} bytes as JSON`),
  limit: (piece: string, max: number) =>
    new RoomError(
      "limit",
      `Limit reached: a room holds at most ${max} ${piece} ${max === 1 ? "value" : "values"}; change or remove one first`,
    ),
};

/** The declaration of `piece`, or RoomError invalid when `pieces` has none of that name. */
export function pieceOf(pieces: ValuePieces, piece: string): ValuePiece {
  const found = Object.hasOwn(pieces, piece) ? pieces[piece] : undefined;
  if (!found) throw valueErrors.unknown(piece);
  return found;
}

/** Throws RoomError invalid unless `key` may name a value of `piece` (a single value's key is ""). */
export function checkValueKey(piece: string, decl: ValuePiece, key: string): void {
  if (!KEY.test(key) || (decl.maxKeys === 1 && key !== "")) throw valueErrors.badKey(piece);
}

/**
 * The stored form of a value: its JSON text, once the key and the value are checked against the declaration
 * (RoomError invalid or limit otherwise). The stores keep the text as it is and give it back parsed.
 */
export function valueText(pieces: ValuePieces, piece: string, key: string, value: unknown): string {
  const decl = pieceOf(pieces, piece);
  checkValueKey(piece, decl, key);
  const parsed = decl.value.safeParse(value);
  if (!parsed.success) throw valueErrors.badValue(piece, parsed.error.issues[0]?.message ?? "bad value");
  const text = JSON.stringify(value);
  if (text === undefined) throw valueErrors.badValue(piece, "not JSON");
  if (UTF8.encode(text).length > VALUE_LIMITS.valueBytes) throw valueErrors.tooLarge(piece);
  return text;
}

/** Whether a room at `held` keys of a kind may take the write of one more key (`exists`: the key is held already). */
export const valueFits = (decl: ValuePiece, exists: boolean, held: number): boolean =>
  exists || held < decl.maxKeys;

/** The names of the kinds that travel with an export, or with a fork. */
export const travelling = (pieces: ValuePieces, how: "moved" | "forked"): string[] =>
  Object.entries(pieces)
    .filter(([, decl]) => decl[how] === true)
    .map(([name]) => name);
