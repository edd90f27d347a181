/**
 * Brute-force checks of the glob algorithms: random and exhaustive patterns over a tiny alphabet, against a
 * regular-expression oracle that shares no code with path-glob.ts. Hand-picked tables are in paths.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { pick, prng } from "../../test/support/prng.ts";
import { isPattern, matchesPath, normalisePath, patternsOverlap } from "./paths.ts";

/** Independent oracle: the glob as a regular expression, run on path + "/" so `**` fits zero segments. */
function oracle(pattern: string): RegExp {
  const literal = (ch: string) => ch.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const token = (ch: string) => (ch === "*" ? "[^/]*" : ch === "?" ? "[^/]" : literal(ch));
  const segments = pattern
    .split("/")
    .map((s) => (s === "**" ? "(?:[^/]+/)*" : `${Array.from(s).map(token).join("")}/`));
  return new RegExp(`^${segments.join("")}$`, "u");
}
const oracles = new Map<string, RegExp>();
function oracleMatches(pattern: string, path: string): boolean {
  let re = oracles.get(pattern);
  if (re === undefined) {
    re = oracle(pattern);
    oracles.set(pattern, re);
  }
  return re.test(`${path}/`);
}
/** The normal form of a path, or undefined when normalisePath refuses it. */
function normalForm(input: string): string | undefined {
  const result = normalisePath(input);
  return "path" in result ? result.path : undefined;
}

/** The members of `items` for which `test` holds, as a bit set. */
function bitset<T>(items: readonly T[], test: (item: T) => boolean): Uint32Array {
  const bits = new Uint32Array(Math.ceil(items.length / 32));
  items.forEach((item, i) => {
    if (test(item)) bits[i >>> 5]! |= 1 << (i & 31);
  });
  return bits;
}
const intersects = (a: Uint32Array, b: Uint32Array) => a.some((word, i) => (word & b[i]!) !== 0);

/** Every sequence of 1..depth items drawn from `alphabet`, joined with `sep`. */
function allWords(alphabet: readonly string[], depth: number, sep: string): string[] {
  const out: string[] = [];
  let layer = [...alphabet];
  for (let d = 1; d <= depth; d++) {
    out.push(...layer);
    layer = layer.flatMap((w) => alphabet.map((x) => `${w}${sep}${x}`));
  }
  return out;
}

describe("glob algorithms against brute force", () => {
  /**
   * Segment level, exact both ways. Segment globs of 1-3 tokens over {a, ., *, ?}; candidate names are every
   * string over {a, .} of length 1-9 except "." and "..". That is enough: (1) in a common name, a code point
   * other than "." and "a" can only meet wildcards, so turning it into "a" keeps the name common and valid;
   * (2) a shortest common name has at most len(p) + len(q) + 3 ≤ 9 code points, because a shortest
   * run through the product automaton never repeats a state, every step moves along p or q except a step
   * where both sit on `*`, and such a step must change the "", ".", "..", other tracker, at most 3 times.
   */
  test("segment globs: overlap ⇔ some name matches both", () => {
    const globs = allWords(["a", ".", "*", "?"], 3, "").filter(
      (g) => !g.includes("**") && normalForm(g) === g,
    );
    const names = allWords(["a", "."], 9, "").filter((n) => n !== "." && n !== "..");
    const matched = globs.map((g) => bitset(names, (n) => oracleMatches(g, n)));
    const wrong: string[] = [];
    let overlaps = 0;
    for (const [i, p] of globs.entries()) {
      for (const [j, q] of globs.entries()) {
        const common = intersects(matched[i]!, matched[j]!);
        if (common) overlaps++;
        if (patternsOverlap(p, q) !== common) wrong.push(`${p} vs ${q}: expected ${common}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(globs.length).toBeGreaterThan(70);
    expect(overlaps).toBeGreaterThan(1000);
    expect(overlaps).toBeLessThan(globs.length ** 2); // some pairs really are disjoint
  });

  // Random patterns over a tiny alphabet, tried against every path of depth ≤ 4 over the witness names.
  const LITERALS = ["a", "b", "ab", "x.ts"];
  const GLOBS = [...LITERALS, "*", "?", "a*", "*b", "?b", "x.*", "*.ts"];
  /** For every two of GLOBS (or `*`, what `**` consumes) that share a name, one such name is here. */
  const WITNESSES = [...LITERALS, "a.ts", "x.b"];
  const paths = allWords(WITNESSES, 4, "/");

  test("the witness names are complete for the segment globs", () => {
    for (const g of [...GLOBS, "*"]) {
      for (const h of [...GLOBS, "*"]) {
        const witnessed = WITNESSES.some((w) => oracleMatches(g, w) && oracleMatches(h, w));
        expect([g, h, patternsOverlap(g, h)]).toEqual([g, h, witnessed]);
      }
    }
  });

  test("random patterns: sound always, exact where the depth bound suffices, literals by equality", () => {
    const rnd = prng(20260501);
    const patterns = new Set<string>(["**"]);
    while (patterns.size < 300) {
      const depth = 1 + Math.floor(rnd() * 4);
      const literal = rnd() < 0.25;
      const segments = Array.from({ length: depth }, () =>
        literal ? pick(rnd, LITERALS) : rnd() < 0.25 ? "**" : pick(rnd, GLOBS),
      );
      const result = normalisePath(segments.join("/"));
      if ("path" in result) patterns.add(result.path);
    }
    const list = [...patterns];
    const matchSets = list.map((p) => bitset(paths, (path) => oracleMatches(p, path)));
    const concrete = (p: string) => p.split("/").filter((s) => s !== "**").length;
    const wrong: string[] = [];
    let exactChecks = 0;
    let literalPairs = 0;
    for (const [i, a] of list.entries()) {
      for (const [j, b] of list.entries()) {
        const overlap = patternsOverlap(a, b);
        const witnessed = intersects(matchSets[i]!, matchSets[j]!);
        if (witnessed && !overlap) wrong.push(`unsound: ${a} vs ${b}`);
        // A shortest common path has at most one segment per non-`**` segment of a and b: in a shortest run
        // through the product automaton every consumed segment moves along a or b (both on `**` would loop).
        if (Math.max(1, concrete(a) + concrete(b)) <= 4) {
          exactChecks++;
          if (overlap !== witnessed) wrong.push(`inexact: ${a} vs ${b}`);
        }
        if (!isPattern(a) && !isPattern(b)) {
          literalPairs++;
          if (overlap !== (a === b)) wrong.push(`literals: ${a} vs ${b}`);
        }
        if (!isPattern(b) && overlap !== matchesPath(a, b)) wrong.push(`literal vs glob: ${a} vs ${b}`);
        if (overlap !== patternsOverlap(b, a)) wrong.push(`asymmetric: ${a} vs ${b}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(exactChecks).toBeGreaterThan(5000);
    expect(literalPairs).toBeGreaterThan(1000);
  });

  test("random patterns: matchesPath agrees with the regular-expression oracle", () => {
    const rnd = prng(7);
    for (let n = 0; n < 3000; n++) {
      const pattern = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () =>
        rnd() < 0.2 ? "**" : pick(rnd, GLOBS),
      ).join("/");
      const path = pick(rnd, paths);
      expect([pattern, path, matchesPath(pattern, path)]).toEqual([
        pattern,
        path,
        oracleMatches(pattern, path),
      ]);
    }
  });
});
