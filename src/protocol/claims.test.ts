/** The claim rules' pure parts: byte order (what SQLite and Lua compare by) and the concrete-path shortcut. */
import { describe, expect, test } from "bun:test";
import {
  byteOrder,
  checkPaths,
  type FileClaim,
  fileClaimConflicts,
  findConflicts,
  overlaps,
} from "./claims.ts";
import { RoomError } from "./errors.ts";
import { patternsOverlap } from "./paths.ts";

const claim = (path: string, heldBy: string): FileClaim => ({
  path,
  heldBy,
  expiresAt: "2030-01-01T00:00:00.000Z",
  claimedAt: "2030-01-01T00:00:00.000Z",
});

describe("claims", () => {
  test("byteOrder is UTF-8 byte order, not UTF-16 order", () => {
    // U+FFFD is one UTF-16 unit above a surrogate pair but below U+1F600 in UTF-8 bytes.
    expect(["😀", "\ufffd", "a", "B", "é"].sort(byteOrder)).toEqual(["B", "a", "é", "\ufffd", "😀"]);
    expect(byteOrder("src/**", "src/a.ts")).toBeLessThan(0);
    expect(byteOrder("a", "a")).toBe(0);
  });

  test("overlaps agrees with patternsOverlap (concrete paths by equality)", () => {
    const paths = ["src/a.ts", "src/b.ts", "src/*.ts", "src/**", "docs/x.md", "**", "src", "a?c", "abc"];
    for (const a of paths)
      for (const b of paths) expect([a, b, overlaps(a, b)]).toEqual([a, b, patternsOverlap(a, b)]);
  });

  test("conflicts skip the caller's own claims; checks name the first covering claim in byte order", () => {
    const live = [claim("src/**", "a"), claim("src/a.ts", "a"), claim("docs/*.md", "b")];
    expect(findConflicts(["src/x.ts"], "a", live)).toEqual([]);
    expect(findConflicts(["src/*.ts", "docs/x.md"], "b", live).map((c) => [c.path, c.pattern])).toEqual([
      ["src/*.ts", "src/**"],
      ["src/*.ts", "src/a.ts"],
    ]);
    expect(checkPaths(["src/a.ts", "docs/a.md", "x"], "a", live)).toEqual([
      { path: "src/a.ts", state: "mine", pattern: "src/**" },
      { path: "docs/a.md", state: "held", heldBy: "b", pattern: "docs/*.md" },
      { path: "x", state: "free" },
    ]);
  });

  test("fileClaimConflicts: conflicts refuse the whole claim; the limit counts only paths not held yet", () => {
    const live = [claim("src/a.ts", "a"), claim("src/b.ts", "a"), claim("docs/**", "b")];
    expect(fileClaimConflicts(["docs/x.md", "src/c.ts"], "a", live, 3).map((c) => c.pattern)).toEqual([
      "docs/**",
    ]);
    // Renewing what it holds fits at the limit; one new path past it is refused with the limit.
    expect(fileClaimConflicts(["src/a.ts", "src/b.ts"], "a", live, 3)).toEqual([]);
    expect(() => fileClaimConflicts(["src/a.ts", "src/c.ts"], "a", live, 3)).toThrow(RoomError);
    expect(() => fileClaimConflicts(["src/c.ts"], "a", live, 3)).toThrow(/Claim limit reached/);
    // Conflicts come before the limit: a refused claim says who holds the path.
    expect(fileClaimConflicts(["docs/y.md", "x", "y"], "a", live, 3)).toHaveLength(1);
  });
});
