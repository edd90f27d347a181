/**
 * Editing an export the way anyone can: change its lines, then recompute the hash chain, the counts and the head
 * with the format's own chainSeed and nextHash (protocol/export-format.ts). The chain then holds, so only the
 * import's other checks stand between such a file and a room.
 */
import { chainSeed, nextHash } from "../../src/protocol/export-format.ts";

/** A line as JSON, edited freely. */
export type Line = any;

/** The file's lines as values. */
export const valuesOf = (text: string): Line[] =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));

/** The text of `values` (header, state lines, events; any end line is dropped) with a fresh chain and end line. */
export function rechain(values: Line[]): string {
  const [header, ...rest] = values;
  const body = rest.filter((v) => v.kind !== "end");
  const events = body.filter((v) => v.kind === "event");
  if (events.length > 0) header.head = events.at(-1).event.seq;
  const counts: Record<string, number> = {};
  const out: Line[] = [header];
  let hash = chainSeed(header);
  let stateHash: string | undefined;
  for (const value of body) {
    counts[value.kind] = (counts[value.kind] ?? 0) + 1;
    if (value.kind !== "event") {
      hash = nextHash(hash, value);
      out.push(value);
      continue;
    }
    stateHash ??= hash;
    const { hash: _old, ...line } = value;
    hash = nextHash(hash, line);
    out.push({ ...line, hash });
  }
  out.push({ kind: "end", counts, stateHash: stateHash ?? hash, headHash: hash });
  return out.map((v) => JSON.stringify(v)).join("\n");
}

/** An event line appended after the last one (its hash is set by rechain). */
export function withEvent(
  values: Line[],
  event: { type: string; from: string; to: string; payload: Record<string, unknown> },
): Line[] {
  const [header, ...rest] = values;
  const seq = header.head + 1;
  const line = {
    kind: "event",
    event: {
      id: `evt-${seq}`,
      seq,
      ...event,
      timestamp: new Date().toISOString(),
      read_by: [],
    },
    hash: "",
  };
  return [{ ...header, head: seq }, ...rest.filter((v) => v.kind !== "end"), line];
}

/** The 1-based line number of the first line `match` accepts. */
export const lineOf = (values: Line[], match: (v: Line) => boolean): number => values.findIndex(match) + 1;
