/**
 * Glob matching and glob overlap for normalised claim paths (the language is described in paths.ts).
 *
 * matchesPath is the classic glob dynamic programme, run twice: over segments (`**` is the star, a segment
 * glob matches one segment) and, inside that, over code points (`*` is the star, `?` matches one code point).
 * Cost O(pattern length × path length); no backtracking.
 *
 * patternsOverlap is EXACT: it answers "is there a concrete normalised path that matches both patterns?" by
 * searching the product of the two patterns' automata, again at two levels:
 * - segment level: states (i, j) = "the first i segments of A and the first j of B are used up". From (i, j):
 *   if A[i] is `**`, go to (i+1, j) without consuming anything (likewise B[j] → (i, j+1)); and if both A[i]
 *   and B[j] exist, consume one path segment that both accept (a `**` accepts any segment and stays put, a
 *   segment glob moves on) — allowed when the two segment globs, reading `**` as `*`, have a common segment
 *   name. Overlap ⇔ (len A, len B) is reachable from (0, 0).
 * - code-point level (segment globs a, b): states (i, j, k), where k tracks the name read so far: 0 = "",
 *   1 = ".", 2 = "..", 3 = anything else. `*` may be skipped (i+1 or j+1, k unchanged); consuming one code
 *   point needs a[i] and b[j]: a literal meets an equal literal or a wildcard (`?` or `*`) and fixes the code
 *   point; two wildcards pick a code point other than "." (k = 3 at once: from (i, j, 3) every
 *   continuation of (i, j, k) is open). `*` stays put after consuming, `?` and literals move on.
 *   Common name ⇔ (len a, len b, 3) is reachable: k = 3 shuts out "", "." and "..", which no normalised
 *   path has as a segment.
 * Each state is visited at most once and does O(1) work, plus one segment test per segment-level state
 * (memoised per distinct pair of segments), so a call costs O(len(a) × len(b)): a few million elementary
 * steps for two adversarial 512-character patterns (tens of milliseconds), microseconds for real ones.
 * The only inexactness: a common path longer than 512 characters still counts (two near-limit patterns such
 * as `<500 chars>*` and `*<500 chars>`), which errs on the conservative side
 * (docs/protocol.md#file-claims).
 * For two literal paths this is string equality; for a literal and a glob it equals matchesPath.
 *
 * Lua 5.1 port (Redis), same results:
 * 1. Split each pattern on "/" into segments; split each segment into code points with
 *    string.gmatch(s, "[%z\1-\127\194-\244][\128-\191]*"). A segment equal to "**" is the globstar.
 * 2. Segment test (a, b): a stack of states and a `seen` table keyed by (i, j, k); start (1, 1, 0) with
 *    1-based i, j; success on reaching (#a+1, #b+1, 3); the moves above, where step(k, c) is 3 when k = 3 or
 *    c ~= ".", else k + 1; for two wildcards, k becomes 3.
 * 3. Pattern test: the same search over (i, j) with the segment test as the guard on consuming moves, the
 *    one-element segment {"*"} standing in for a globstar, and the segment test memoised per pair of segment
 *    strings (key a .. "/" .. b).
 * 4. Matching a concrete path is pattern test with the path as B (it has no wildcards), or the two-level DP.
 */

/** A segment glob split into code points: `*`, `?` or a literal code point each. */
type Units = string[];

const GLOBSTAR = "**";
/** What a `**` accepts when it consumes one segment: any name. */
const STAR: Units = ["*"];

/**
 * Glob DP shared by both levels: can `tokens` match the whole of `items`? `reach[j]` = "the tokens so far can
 * match items[0..j)"; a star extends any reachable prefix, any other token consumes exactly one item.
 */
function globMatch<T, U>(
  tokens: readonly T[],
  items: readonly U[],
  isStar: (token: T) => boolean,
  matchOne: (token: T, item: U) => boolean,
): boolean {
  let reach: boolean[] = items.map(() => false);
  reach.unshift(true);
  for (const token of tokens) {
    const next: boolean[] = [];
    if (isStar(token)) {
      for (let j = 0; j <= items.length; j++) next.push(reach[j] === true || (j > 0 && next[j - 1] === true));
    } else {
      next.push(false);
      for (let j = 1; j <= items.length; j++)
        next.push(reach[j - 1] === true && matchOne(token, items[j - 1] as U));
    }
    reach = next;
  }
  return reach[items.length] === true;
}

function segmentMatches(glob: string, name: string): boolean {
  return globMatch(
    Array.from(glob),
    Array.from(name),
    (t) => t === "*",
    (t, ch) => t === "?" || t === ch,
  );
}

/** True when the normalised glob `pattern` matches the normalised concrete `path` (exactly, whole path). */
export function matchesPath(pattern: string, path: string): boolean {
  return globMatch(pattern.split("/"), path.split("/"), (s) => s === GLOBSTAR, segmentMatches);
}

/** k after reading one more code point of a segment name: "" → "." → ".." → anything else (absorbing). */
function stepName(k: number, ch: string): number {
  return k === 3 || ch !== "." ? 3 : k + 1;
}

/** Is there a segment name other than "", "." and ".." that both segment globs match? */
function segmentsOverlap(a: Units, b: Units): boolean {
  const width = b.length + 1;
  const seen = new Uint8Array((a.length + 1) * width * 4);
  const stack: number[] = [];
  const push = (i: number, j: number, k: number) => {
    const id = (i * width + j) * 4 + k;
    if (seen[id] === 0) {
      seen[id] = 1;
      stack.push(id);
    }
  };
  push(0, 0, 0);
  for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
    const k = id % 4;
    const j = ((id - k) / 4) % width;
    const i = ((id - k) / 4 - j) / width;
    if (i === a.length && j === b.length && k === 3) return true;
    const ta = a[i];
    const tb = b[j];
    if (ta === "*") push(i + 1, j, k);
    if (tb === "*") push(i, j + 1, k);
    if (ta === undefined || tb === undefined) continue;
    const ni = ta === "*" ? i : i + 1;
    const nj = tb === "*" ? j : j + 1;
    const wildA = ta === "*" || ta === "?";
    const wildB = tb === "*" || tb === "?";
    if (wildA && wildB) push(ni, nj, 3);
    else if (wildA || wildB || ta === tb) {
      push(ni, nj, stepName(k, wildA ? tb : ta));
    }
  }
  return false;
}

/**
 * True when some concrete path matches both normalised patterns (exact; see the comment at the top of the
 * file). Symmetric; a literal path is a pattern that matches only itself.
 */
export function patternsOverlap(a: string, b: string): boolean {
  const sa = a.split("/");
  const sb = b.split("/");
  // Patterns repeat segments (`**`, `*`, `src`): one segment test per distinct pair. "/" cannot occur in a
  // segment, so it separates the two halves of the key unambiguously.
  const known = new Map<string, boolean>();
  const segmentsMeet = (x: string, y: string): boolean => {
    const key = `${x}/${y}`;
    let answer = known.get(key);
    if (answer === undefined) {
      answer = segmentsOverlap(x === GLOBSTAR ? STAR : Array.from(x), y === GLOBSTAR ? STAR : Array.from(y));
      known.set(key, answer);
    }
    return answer;
  };
  const width = sb.length + 1;
  const seen = new Uint8Array((sa.length + 1) * width);
  const stack: number[] = [];
  const push = (i: number, j: number) => {
    const id = i * width + j;
    if (seen[id] === 0) {
      seen[id] = 1;
      stack.push(id);
    }
  };
  push(0, 0);
  for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
    const j = id % width;
    const i = (id - j) / width;
    // Reaching the end with nothing consumed means both are all `**`: they share every path, so still true.
    if (i === sa.length && j === sb.length) return true;
    const segA = sa[i];
    const segB = sb[j];
    if (segA === GLOBSTAR) push(i + 1, j);
    if (segB === GLOBSTAR) push(i, j + 1);
    if (segA === undefined || segB === undefined) continue;
    if (segmentsMeet(segA, segB)) push(segA === GLOBSTAR ? i : i + 1, segB === GLOBSTAR ? j : j + 1);
  }
  return false;
}
