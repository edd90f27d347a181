/**
 * The search rules against SQLite FTS5 itself: the tokenizer agrees with unicode61 (diacritics removed) on text it
 * handles the same way, every token survives FTS5 storage as exactly one token, and `score` is FTS5's bm25().
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { prng } from "../../test/support/prng.ts";
import {
  countTerms,
  ftsToken,
  jsonText,
  queryTerms,
  rank,
  score,
  snippet,
  termCount,
  tokenize,
} from "./search.ts";

/** FTS5's tokens for a text, in order, through an fts5vocab instance table. */
function fts5Tokens(db: Database, text: string, tokenizer: string): string[] {
  db.exec("DROP TABLE IF EXISTS v; DROP TABLE IF EXISTS t");
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(body, tokenize = "${tokenizer}")`);
  db.exec("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)");
  db.query("INSERT INTO t (body) VALUES (?)").run(text);
  return db
    .query<{ term: string }, []>("SELECT term FROM v ORDER BY offset")
    .all()
    .map((r) => r.term);
}

describe("tokenize", () => {
  const db = new Database(":memory:");
  test("agrees with FTS5 unicode61 remove_diacritics 2 on precomposed text", () => {
    const samples = [
      "Hello, World! POST /login?x=1&y=2",
      "Café résumé naïve Über façade Ångström",
      "snake_case kebab-case dotted.name 3.14 v1.2.3 8080",
      "ÉCOLE élève Ñandú ZÜRICH straße",
      "tabs\tand\nnewlines  and   spaces",
      "Ελληνικά κείμενα и русский текст",
      "",
    ];
    for (const text of samples) {
      expect({ text, tokens: tokenize(text) }).toEqual({
        text,
        tokens: fts5Tokens(db, text, "unicode61 remove_diacritics 2"),
      });
    }
  });

  test("removes combining marks instead of splitting on them, and folds case", () => {
    expect(tokenize("Cafe\u0301 CAFÉ café")).toEqual(["cafe", "cafe", "cafe"]);
    expect(queryTerms("Login login LOGIN token")).toEqual(["login", "token"]);
    expect(tokenize("İstanbul")).toEqual(["istanbul"]);
  });

  test("every token is stored by FTS5 as exactly one token, itself encoded", () => {
    const tokens = [
      "abc",
      "zz",
      "zzz9",
      "日本語",
      "中文",
      "한국어",
      "ελληνικά",
      "naïve",
      "x123",
      "0",
      "ß",
      "ǆ",
      "\u{10FFFD}a",
    ];
    for (const token of tokens) {
      expect(fts5Tokens(db, ftsToken(token), "unicode61 remove_diacritics 0")).toEqual([ftsToken(token)]);
    }
    // Distinct tokens stay distinct.
    expect(new Set(tokens.map(ftsToken)).size).toBe(tokens.length);
    expect(ftsToken("zz41")).not.toBe(ftsToken("A"));
  });
});

describe("score", () => {
  test("equals FTS5's bm25() (negated) on random documents and queries", () => {
    const random = prng(42);
    const vocabulary = ["a", "b", "c", "d", "e", "f", "g", "h"];
    const db = new Database(":memory:");
    for (let round = 0; round < 20; round++) {
      db.exec("DROP TABLE IF EXISTS d");
      db.exec("CREATE VIRTUAL TABLE d USING fts5(id UNINDEXED, body)");
      const docs: { id: string; text: string }[] = [];
      const n = 1 + Math.floor(random() * 30);
      for (let i = 0; i < n; i++) {
        const words = Array.from(
          { length: Math.floor(random() * 25) },
          () => vocabulary[Math.floor(random() * 8)],
        );
        docs.push({ id: `task-${i}`, text: words.join(" ") });
        db.query("INSERT INTO d (id, body) VALUES (?, ?)").run(`task-${i}`, words.join(" "));
      }
      const terms = [
        ...new Set(
          Array.from(
            { length: 1 + Math.floor(random() * 3) },
            () => vocabulary[Math.floor(random() * 8)] as string,
          ),
        ),
      ];
      const expected = db
        .query<{ id: string; s: number }, [string]>(
          "SELECT id, -bm25(d) AS s FROM d WHERE d MATCH ? ORDER BY bm25(d), id",
        )
        .all(terms.map((t) => `"${t}"`).join(" AND "));
      const counts = docs.map((d) => ({
        id: d.id,
        counts: countTerms(d.text),
        length: tokenize(d.text).length,
      }));
      const stats = {
        documents: docs.length,
        tokens: counts.reduce((sum, d) => sum + d.length, 0),
        df: terms.map((t) => counts.filter((d) => termCount(d.counts, t) > 0).length),
      };
      const candidates = counts
        .filter((d) => terms.every((t) => termCount(d.counts, t) > 0))
        .map((d) => ({ id: d.id, length: d.length, tf: terms.map((t) => termCount(d.counts, t)) }));
      const ranked = rank(stats, candidates);
      expect(ranked.map((r) => r.id)).toEqual(expected.map((r) => r.id));
      ranked.forEach((r, i) => {
        expect(r.score).toBeCloseTo(expected[i]?.s as number, 12);
      });
      for (const c of candidates) expect(score(stats, c)).toBeGreaterThan(0);
    }
  });
});

describe("snippet and text", () => {
  test("cuts around the first match at word boundaries and bolds every query word", () => {
    const long = `${"lorem ipsum ".repeat(20)}the Token was rejected because the token expired ${"dolor sit ".repeat(30)}`;
    const cut = snippet(
      [
        ["title", "nothing here"],
        ["description", long],
      ],
      ["token"],
    );
    expect(cut.field).toBe("description");
    expect(cut.text.startsWith("…")).toBe(true);
    expect(cut.text.endsWith("…")).toBe(true);
    expect(cut.text).toContain("the **Token** was rejected because the **token** expired");
    expect(cut.text.length).toBeLessThan(240);
    expect(snippet([["title", "Token first"]], ["token"]).text).toBe("**Token** first");
  });

  test("jsonText: strings and numbers in document order; termCount ignores inherited properties", () => {
    expect(jsonText({ a: "x", b: [1, { c: "y", d: true, e: null }], f: 2.5 })).toBe("x\n1\ny\n2.5");
    const counts = JSON.parse(JSON.stringify(countTerms("the constructor of tokens")));
    expect(termCount(counts, "constructor")).toBe(1);
    expect(termCount(counts, "tostring")).toBe(0);
    expect(termCount(countTerms("plain"), "constructor")).toBe(0);
  });
});
