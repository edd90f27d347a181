/** A room's small values on Redis (protocol/room-values.ts): the checks in TS, the reads and writes in lua-values.ts. */
import { checkValueKey, pieceOf, type ValuePieces, valueText } from "../../protocol/room-values.ts";
import type { RoomValue } from "../move-types.ts";
import type { RoomStore } from "../types.ts";
import type { Call } from "./call.ts";

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The fields of the part `values` ([field, value, …], field "<kind> <key>") of the given kinds, sorted. */
function fieldsOf(flat: readonly string[], kinds: readonly string[]) {
  const wanted = new Set(kinds);
  const out: { piece: string; key: string; text: string }[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const field = flat[i] as string;
    const space = field.indexOf(" ");
    const piece = field.slice(0, space);
    if (space > 0 && wanted.has(piece))
      out.push({ piece, key: field.slice(space + 1), text: flat[i + 1] as string });
  }
  return out.sort((a, b) => byText(a.piece, b.piece) || byText(a.key, b.key));
}

/** The values of the given kinds, sorted by kind and key (an export's). */
export const valuesOf = (flat: readonly string[], kinds: readonly string[]): RoomValue[] =>
  fieldsOf(flat, kinds).map(({ piece, key, text }) => ({ piece, key, value: JSON.parse(text) }));

/** FORK_WRITE's tail of values: their number, then (field, value JSON as stored) pairs of the given kinds. */
export function valuePairs(flat: readonly string[], kinds: readonly string[]): string[] {
  const list = fieldsOf(flat, kinds);
  return [String(list.length), ...list.flatMap((v) => [`${v.piece} ${v.key}`, v.text])];
}

export function valueOps(call: Call, pieces: ValuePieces): Pick<RoomStore, "readValues" | "writeValue"> {
  return {
    async readValues(scope, piece) {
      pieceOf(pieces, piece);
      const { value } = await call(scope, "READ_VALUES", { piece });
      return Object.fromEntries(Object.entries(value).sort(([a], [b]) => byText(a, b)));
    },
    async writeValue(scope, { piece, key, value }) {
      const decl = pieceOf(pieces, piece);
      checkValueKey(piece, decl, key);
      const text = value === null ? null : valueText(pieces, piece, key, value);
      await call(scope, "WRITE_VALUE", { piece, key, value: text, max: decl.maxKeys });
    },
  };
}
