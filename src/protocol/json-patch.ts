/**
 * RFC 6902 JSON Patch between two versions of a JSON value (diff_context, docs/protocol.md#context-history), deep.
 *
 * Algorithm (applied in order, every operation valid for the document the previous ones leave behind):
 * - equal primitives: nothing; different kinds, or different primitives: one `replace` at that path (at the
 *   root that is `path: ""`, the whole-document replace);
 * - objects: `remove` each key only in `from`, recurse into keys in both, `add` each key only in `to`, every
 *   group in code-unit order of the keys, so the same inputs always give the same patch;
 * - arrays: trim the common prefix and suffix, then align the middles with a longest common subsequence
 *   (elements compared by a canonical serialisation); between aligned elements, pair removed and inserted
 *   elements index by index and recurse into each pair (an element that changed a field gets a small patch,
 *   not a remove and an add), remove the surplus old elements from the highest index down, add the surplus
 *   new ones from the lowest index up. Indices are numbers, never `-`.
 *   The LCS table costs n·m cells; past LCS_MAX_CELLS (about 500 × 500 after trimming) the middles are paired
 *   by position instead: still a correct patch, only larger when elements were inserted or removed mid-array.
 * Values in `add` and `replace` are deep copies. Keys are escaped as RFC 6901 says (`~` → `~0`, `/` → `~1`).
 * Cost: O(size × depth) to serialise array elements (each array level serialises its own), plus at most
 * LCS_MAX_CELLS table cells per pair of arrays.
 *
 * Recursion depth equals the nesting depth of the inputs. Stored payloads are meant to be refused beyond 32
 * levels and 10,000 values; diffJson itself refuses values nested deeper than DEPTH_GUARD, so a caller that
 * skipped that validation gets an error, not a stack overflow.
 */

/** One RFC 6902 operation. diffJson emits only these three. */
export type Operation =
  | { op: "add"; path: string; value: unknown }
  | { op: "remove"; path: string }
  | { op: "replace"; path: string; value: unknown };

/** Twice the payload nesting limit, so differences in how levels are counted never trip it. */
export const DEPTH_GUARD = 64;
/** Cells of the LCS table for one array pair (after trimming the common prefix and suffix). */
export const LCS_MAX_CELLS = 250_000;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Throws a TypeError naming the first non-JSON value (undefined, NaN, a Date, a class instance, ...). */
function assertJson(value: unknown, where: string, depth: number): void {
  if (depth > DEPTH_GUARD)
    throw new RangeError(`diffJson: ${where || "/"} is nested deeper than ${DEPTH_GUARD}`);
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (Number.isFinite(value)) return;
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      assertJson(item, `${where}/${i}`, depth + 1);
    });
    return;
  } else if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    if (proto === Object.prototype || proto === null) {
      for (const [key, item] of Object.entries(value))
        assertJson(item, `${where}/${escapeKey(key)}`, depth + 1);
      return;
    }
  }
  throw new TypeError(`diffJson: ${where || "the root"} is not a JSON value (${describe(value)})`);
}

function describe(value: unknown): string {
  if (typeof value === "number") return String(value);
  if (typeof value !== "object" || value === null) return typeof value;
  return Object.prototype.toString.call(value).slice(8, -1);
}

/** RFC 6901: "~" first, so the "~1" made for "/" is not escaped again. */
function escapeKey(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** A deep copy. JSON.parse defines keys as own properties, so even a "__proto__" key is copied as data. */
function copy(value: unknown): unknown {
  return typeof value === "object" && value !== null ? JSON.parse(JSON.stringify(value)) : value;
}

/** One string per value, equal exactly when the values are equal as JSON (object key order ignored). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * The RFC 6902 patch that turns `from` into `to`: applied to a copy of `from`, it gives a value equal to
 * `to`; equal inputs give []. Both must be JSON values (as JSON.parse returns them): anything else throws a
 * TypeError, nesting deeper than DEPTH_GUARD a RangeError. Neither input is changed.
 */
export function diffJson(from: unknown, to: unknown): Operation[] {
  assertJson(from, "", 0);
  assertJson(to, "", 0);
  const ops: Operation[] = [];
  diffValue(from, to, "", ops);
  return ops;
}

function diffValue(from: unknown, to: unknown, path: string, ops: Operation[]): void {
  if (from === to) return;
  if (Array.isArray(from) && Array.isArray(to)) diffArray(from, to, path, ops);
  else if (isObject(from) && isObject(to)) diffObject(from, to, path, ops);
  else ops.push({ op: "replace", path, value: copy(to) });
}

function diffObject(from: JsonObject, to: JsonObject, path: string, ops: Operation[]): void {
  const fromKeys = Object.keys(from).sort();
  for (const key of fromKeys) {
    if (!Object.hasOwn(to, key)) ops.push({ op: "remove", path: `${path}/${escapeKey(key)}` });
  }
  for (const key of fromKeys) {
    if (Object.hasOwn(to, key)) diffValue(from[key], to[key], `${path}/${escapeKey(key)}`, ops);
  }
  for (const key of Object.keys(to).sort()) {
    if (!Object.hasOwn(from, key))
      ops.push({ op: "add", path: `${path}/${escapeKey(key)}`, value: copy(to[key]) });
  }
}

/** A stretch `from[fromStart..fromEnd)` that becomes `to[toStart..toEnd)`; everything around it is kept. */
type Hunk = { fromStart: number; fromEnd: number; toStart: number; toEnd: number };

function diffArray(from: unknown[], to: unknown[], path: string, ops: Operation[]): void {
  // Interned canonical forms: element equality becomes integer equality inside the LCS table.
  const ids = new Map<string, number>();
  const intern = (value: unknown) => {
    const key = canonical(value);
    let id = ids.get(key);
    if (id === undefined) {
      id = ids.size;
      ids.set(key, id);
    }
    return id;
  };
  const a = from.map(intern);
  const b = to.map(intern);
  for (const hunk of alignArrays(a, b)) {
    // Everything before this hunk already equals `to`, so the hunk starts at index toStart.
    const removed = hunk.fromEnd - hunk.fromStart;
    const added = hunk.toEnd - hunk.toStart;
    const paired = Math.min(removed, added);
    for (let k = 0; k < paired; k++) {
      diffValue(from[hunk.fromStart + k], to[hunk.toStart + k], `${path}/${hunk.toStart + k}`, ops);
    }
    for (let k = removed - 1; k >= paired; k--)
      ops.push({ op: "remove", path: `${path}/${hunk.toStart + k}` });
    for (let k = paired; k < added; k++) {
      ops.push({ op: "add", path: `${path}/${hunk.toStart + k}`, value: copy(to[hunk.toStart + k]) });
    }
  }
}

/** The changed stretches between two arrays of element ids, in order: common prefix/suffix trim, then LCS. */
function alignArrays(a: number[], b: number[]): Hunk[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const n = endA - start;
  const m = endB - start;
  if (n === 0 && m === 0) return [];
  if (n === 0 || m === 0 || n * m > LCS_MAX_CELLS) {
    return [{ fromStart: start, fromEnd: endA, toStart: start, toEnd: endB }];
  }
  // lcs[i * width + j] = length of the LCS of a[start+i..endA) and b[start+j..endB); the cap keeps
  // min(n, m) ≤ 500, so 16 bits hold it.
  const width = m + 1;
  const lcs = new Uint16Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] =
        a[start + i] === b[start + j]
          ? (lcs[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(lcs[(i + 1) * width + j] ?? 0, lcs[i * width + j + 1] ?? 0);
    }
  }
  const hunks: Hunk[] = [];
  let i = 0;
  let j = 0;
  let hunkI = 0;
  let hunkJ = 0;
  const close = (endI: number, endJ: number) => {
    if (endI > hunkI || endJ > hunkJ) {
      hunks.push({
        fromStart: start + hunkI,
        fromEnd: start + endI,
        toStart: start + hunkJ,
        toEnd: start + endJ,
      });
    }
  };
  while (i < n && j < m) {
    if (a[start + i] === b[start + j]) {
      close(i, j);
      i++;
      j++;
      hunkI = i;
      hunkJ = j;
    } else if ((lcs[(i + 1) * width + j] ?? 0) >= (lcs[i * width + j + 1] ?? 0)) i++;
    else j++;
  }
  close(n, m);
  return hunks;
}
