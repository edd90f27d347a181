import { describe, expect, test } from "bun:test";
import { isPattern, matchesPath, normalisePath, patternsOverlap } from "./paths.ts";

describe("normalisePath", () => {
  test.each([
    ["src/app.ts", "src/app.ts"],
    ["./src/app.ts", "src/app.ts"],
    ["././a", "a"],
    ["a/./b/.", "a/b"],
    ["src/**", "src/**"],
    ["**/x.ts", "**/x.ts"],
    ["a/**/b", "a/**/b"],
    ["**/**/a/**/./**", "**/a/**"],
    ["a/!b", "a/!b"],
    ["a]/b}", "a]/b}"],
    ["a b/é/日本.ts", "a b/é/日本.ts"],
    ["x".repeat(512), "x".repeat(512)],
    ["😀".repeat(512), "😀".repeat(512)],
  ])("%j → %j", (input, expected) => {
    expect(normalisePath(input)).toEqual({ path: expected });
    expect(normalisePath(expected)).toEqual({ path: expected });
  });

  test.each([
    ["", "empty"],
    ["/x", "absolute"],
    ["C:\\x", "absolute"],
    ["C:/x", "absolute"],
    ["\\\\host\\x", "absolute"],
    ["~", '"~"'],
    ["~/x", "home directory"],
    ["a\\b", "backslash"],
    ["a//b", "empty segment"],
    ["a/", "empty segment"],
    ["./", "empty segment"],
    ["..", '".."'],
    ["a/../b", '".."'],
    [".", "repository root"],
    ["./.", "repository root"],
    ["a\u0000b", "control character"],
    ["a\tb", "control character"],
    ["a\nb", "control character"],
    ["a\u007f", "control character"],
    ["\ud800a", "not valid Unicode"],
    ["a[0].ts", 'put "?" in its place'],
    ["{a,b}.ts", "alternatives are not supported"],
    ["!a", "negated patterns"],
    ["./!a", "negated patterns"],
    ["a**b", "whole segment"],
    ["***", "whole segment"],
    ["a/**.ts", "whole segment"],
    ["x".repeat(513), "longer than 512"],
    ["😀".repeat(513), "longer than 512"],
  ])("%j is refused (%s)", (input, fragment) => {
    const result = normalisePath(input);
    expect("error" in result && result.error).toContain(fragment);
    expect("error" in result && result.error).toStartWith("Invalid path ");
  });

  test("isPattern tells globs from concrete paths", () => {
    expect([isPattern("src/a.ts"), isPattern("src/*.ts"), isPattern("a?c"), isPattern("**")]).toEqual([
      false,
      true,
      true,
      true,
    ]);
  });
});

describe("matchesPath", () => {
  test.each([
    ["src/**", "src/a.ts", true],
    ["src/**", "src", true],
    ["src/**", "src/x/y/z.ts", true],
    ["src/**", "srcx/a.ts", false],
    ["src/*.ts", "src/a.ts", true],
    ["src/*.ts", "src/.ts", true],
    ["src/*.ts", "src/x/a.ts", false],
    ["**/x.ts", "x.ts", true],
    ["**/x.ts", "a/b/x.ts", true],
    ["**/x.ts", "a/x.tsx", false],
    ["a/**/b", "a/b", true],
    ["a/**/b", "a/x/y/b", true],
    ["a/**/b", "a/x/c", false],
    ["a?c", "abc", true],
    ["a?c", "ac", false],
    ["a?c", "a/c", false],
    ["?", "日", true],
    ["??", "😀", false],
    ["*", "a/b", false],
    ["**", "a/b/c", true],
    ["a/b", "a/b", true],
    ["a/b", "a/bc", false],
  ])("%j vs %j → %p", (pattern, path, expected) => {
    expect(matchesPath(pattern, path)).toBe(expected);
  });
});

describe("patternsOverlap", () => {
  test.each([
    ["src/**", "src/a.ts", true],
    ["src/*.ts", "src/a.ts", true],
    ["src/*.ts", "src/x/a.ts", false],
    ["docs/x.md", "src/**", false],
    ["**", "anything/deep/x.ts", true],
    ["**", "*", true],
    ["**", "**", true],
    ["a/*/c", "a/b/*", true],
    ["*.md", "*.ts", false],
    ["a?c", "ab*", true],
    ["src/**", "src", true],
    ["src/**/test/*.ts", "src/*/test/**", true],
    ["*/b", "a/*/c", false],
    ["**/a", "**/b", false],
    ["**/a/**", "**/b/**", true],
    ["a*", "*b", true],
    ["a*b", "b*a", false],
    ["a/**/b/**/c", "**/c/**/b/**", true], // a/c/b/c
    ["a/**", "b/**", false],
    [".?", "?.", false], // only ".." matches both, and no path has a ".." segment
    [".*", "*.", true], // "..." or ".x."
    ["*.?", "?.*", true],
    ["x.ts", "x.ts", true],
    ["x.ts", "x.tsx", false],
    ["a/b", "a", false],
  ])("%j vs %j → %p", (a, b, expected) => {
    expect(patternsOverlap(a, b)).toBe(expected);
    expect(patternsOverlap(b, a)).toBe(expected);
  });

  test("stays polynomial on adversarial 512-character patterns", () => {
    const deep = (unit: string, n: number) => Array(n).fill(unit).join("/");
    expect(patternsOverlap("*a".repeat(256), "a*".repeat(256))).toBe(true);
    expect(patternsOverlap(`${deep("**/a", 170)}b`, `${deep("a/**", 170)}c`)).toBe(false);
    expect(patternsOverlap(deep("*", 256), deep("?", 256))).toBe(true);
    expect(matchesPath("*a".repeat(256), "a".repeat(255))).toBe(false);
  });
});
