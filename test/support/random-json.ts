/** Random JSON values for randomised tests: nested values, edits of a common base, and paths to leaves. */
import { below, pick } from "./prng.ts";

/** Keys that need RFC 6901 escaping or are special to JavaScript objects. */
export const KEYS = ["a", "b", "c", "", "/", "~", "a/b", "~1", "~0/", "__proto__", "é"];
/** Numbers and strings that look alike, and null next to false, 0 and "". */
export const PRIMITIVES = [null, true, false, 0, 1, -1.5, 1e21, "", "a", "1", "~/", "null"];

/** A random JSON value nested at most `depth` levels. */
export function randomJson(random: () => number, depth: number): unknown {
  const roll = random();
  if (depth <= 0 || roll < 0.35) return pick(random, PRIMITIVES);
  if (roll < 0.65) return Array.from({ length: below(random, 5) }, () => randomJson(random, depth - 1));
  const entries = Array.from({ length: below(random, 5) }, () => [
    pick(random, KEYS),
    randomJson(random, depth - 1),
  ]);
  return Object.fromEntries(entries); // defines own data properties, so "__proto__" is a plain key
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A changed copy of `value`: one edit at a random place (the input is left alone). */
export function mutateJson(random: () => number, value: unknown, depth: number): unknown {
  if (Array.isArray(value) && value.length > 0 && random() < 0.6) {
    const i = below(random, value.length);
    return value.map((item, k) => (k === i ? mutateJson(random, item, depth - 1) : item));
  }
  if (isObject(value) && Object.keys(value).length > 0 && random() < 0.6) {
    const key = pick(random, Object.keys(value));
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, k === key ? mutateJson(random, v, depth - 1) : v]),
    );
  }
  if (Array.isArray(value)) {
    const copy = [...value];
    const i = below(random, copy.length + 1);
    const edits = [
      () => copy.splice(i, 0, randomJson(random, depth)),
      () => copy.splice(i, 1),
      () => copy.reverse(),
      () => copy.push(...copy.slice(0, 2)),
      () => copy.splice(i, 1, randomJson(random, depth)),
    ];
    pick(random, edits)();
    return copy;
  }
  if (isObject(value) && random() < 0.8) {
    const entries = Object.entries(value);
    if (random() < 0.5) entries.push([pick(random, KEYS), randomJson(random, depth)]);
    else entries.splice(below(random, entries.length + 1), 1);
    return Object.fromEntries(entries);
  }
  return randomJson(random, depth);
}

/** A random path to a primitive or an empty container, as RFC 6901 tokens (escaped here, independently). */
export function randomLeaf(random: () => number, value: unknown): string {
  let path = "";
  let node = value;
  for (;;) {
    const keys = Array.isArray(node)
      ? node.map((_, i) => String(i))
      : isObject(node)
        ? Object.keys(node)
        : [];
    if (keys.length === 0) return path;
    const key = pick(random, keys);
    path += `/${key.split("~").join("~0").split("/").join("~1")}`;
    node = (node as Record<string, unknown>)[key];
  }
}
