/**
 * The Lua port of the glob overlap (lua-claims.ts GLOB) gives the same answer as protocol/path-glob.ts on the same
 * pattern pairs, run by a real redis-server: every pair of short segment globs over {a, ., *, ?} (the alphabet on
 * which path-glob.test.ts proves the TS exact), and thousands of random multi-segment patterns mixing `**`,
 * wildcards, dots and multi-byte code points (2, 3 and 4 UTF-8 bytes, where a byte-wise port would go wrong).
 * The Lua ISO formatter used for lease and claim expiries is checked against protocol/time.ts iso the same way.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { pick, prng } from "../../../test/support/prng.ts";
import { sharedRedis } from "../../../test/support/redis-server.ts";
import { normalisePath, patternsOverlap } from "../../protocol/paths.ts";
import { iso } from "../../protocol/time.ts";
import { GLOB } from "./lua-claims.ts";
import { ISO_LUA } from "./lua-holdings.ts";

let redis: RedisClient;
beforeAll(async () => {
  redis = new RedisClient((await sharedRedis()).url);
});
afterAll(() => redis.close());

const OVERLAPS = `${GLOB}
local out = {}
for i = 1, #ARGV, 2 do out[#out + 1] = G.overlap(ARGV[i], ARGV[i + 1]) and "1" or "0" end
return table.concat(out)
`;

/** Lua's answers for the pairs, through EVAL in batches. */
async function luaOverlaps(pairs: [string, string][]): Promise<boolean[]> {
  const answers: boolean[] = [];
  for (let i = 0; i < pairs.length; i += 2000) {
    const batch = pairs.slice(i, i + 2000);
    const reply = (await redis.send("EVAL", [OVERLAPS, "0", ...batch.flat()])) as string;
    answers.push(...Array.from(reply, (c) => c === "1"));
  }
  return answers;
}

function normal(input: string): string | undefined {
  const result = normalisePath(input);
  return "path" in result ? result.path : undefined;
}

/** Pairs on which Lua and TS disagree, as readable lines. */
async function disagreements(pairs: [string, string][]): Promise<string[]> {
  const lua = await luaOverlaps(pairs);
  expect(lua).toHaveLength(pairs.length);
  return pairs.flatMap(([a, b], i) =>
    lua[i] === patternsOverlap(a, b) ? [] : [`${a} vs ${b}: lua ${lua[i]}, ts ${!lua[i]}`],
  );
}

describe("glob overlap: Lua (Redis) and TS agree", () => {
  test("every pair of segment globs of 1-3 tokens over {a, ., *, ?}", async () => {
    const tokens = ["a", ".", "*", "?"];
    let globs = [...tokens];
    for (let n = 2; n <= 3; n++)
      globs = [...globs, ...globs.filter((g) => g.length === n - 1).flatMap((g) => tokens.map((t) => g + t))];
    const valid = [
      ...new Set(globs.map(normal).filter((g): g is string => g !== undefined && !g.includes("/"))),
    ];
    expect(valid.length).toBeGreaterThan(70);
    const pairs = valid.flatMap((a) => valid.map((b): [string, string] => [a, b]));
    const differ = await disagreements(pairs);
    expect(differ).toEqual([]);
    // Both answers occur, so neither side can pass by saying the same thing always.
    const answers = pairs.map(([a, b]) => patternsOverlap(a, b));
    expect(answers.filter(Boolean).length).toBeGreaterThan(1000);
    expect(answers.filter((x) => !x).length).toBeGreaterThan(500);
  });

  test("random multi-segment patterns with **, dots and multi-byte code points", async () => {
    const rnd = prng(20260611);
    const SEGMENTS = [
      "**",
      "*",
      "?",
      "src",
      "a",
      "b.ts",
      "*.ts",
      "a*",
      "*a",
      "?.ts",
      ".a",
      "a.",
      "..a",
      "é",
      "é*",
      "*é",
      "日本",
      "日?",
      "?本",
      "😀",
      "😀*",
      "?😀",
      "x😀y",
      "*.*",
      "a?b",
      "??",
      "ab*ba",
    ];
    const pattern = () =>
      Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => pick(rnd, SEGMENTS)).join("/");
    const pairs: [string, string][] = [];
    while (pairs.length < 12_000) {
      const a = normal(pattern());
      const b = normal(rnd() < 0.2 ? (a ?? "x") : pattern());
      if (a !== undefined && b !== undefined) pairs.push([a, b]);
    }
    expect(await disagreements(pairs)).toEqual([]);
    const yes = pairs.filter(([a, b]) => patternsOverlap(a, b)).length;
    expect(yes).toBeGreaterThan(2000);
    expect(pairs.length - yes).toBeGreaterThan(2000);
  });

  test("the claim race's patterns, as the protocol names them", async () => {
    const patterns = [
      "src/**",
      "src/a.ts",
      "src/*.ts",
      "docs/x.md",
      "docs/**",
      "**",
      "src/a/b.ts",
      "**/*.md",
    ];
    const pairs = patterns.flatMap((a) => patterns.map((b): [string, string] => [a, b]));
    expect(await disagreements(pairs)).toEqual([]);
  });
});

describe("Lua ISO times", () => {
  test("iso_of(ms) equals iso (toISOString) for random instants from 1970 to 2400, leap days included", async () => {
    const rnd = prng(99);
    const times = [0, 951_782_400_000, 4_107_542_399_999, 1_709_164_800_000, 253_402_300_799_999];
    while (times.length < 2000) times.push(Math.floor(rnd() * 13_569_465_600_000));
    const script = `${ISO_LUA}
local out = {}
for i = 1, #ARGV do out[i] = iso_of(tonumber(ARGV[i])) end
return table.concat(out, " ")`;
    const reply = (await redis.send("EVAL", [script, "0", ...times.map(String)])) as string;
    expect(reply.split(" ")).toEqual(times.map(iso));
  });
});
