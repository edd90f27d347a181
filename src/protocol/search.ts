/**
 * Full-text search of a room (tool `search`): one tokenizer, one ranking and one snippet rule for every driver, so
 * the same data gives the same ranked ids on SQLite (FTS5), Redis, Redis Cluster and Upstash.
 *
 * Tokens follow FTS5's `unicode61` tokenizer: lower-cased, split on anything that is not a letter, a digit or a
 * private-use character, diacritics of Latin letters removed (é → e; й, ά stay, as unicode61 keeps them). One
 * difference: combining marks belong to the word they follow rather than splitting it (unicode61 splits
 * "e\u0301" into "e" and a separator, here it is "e"; a Devanagari word keeps its vowel signs).
 *
 * Ranking is FTS5's bm25() (k1 = 1.2, b = 0.75, idf = ln((N − n + 0.5) / (n + 0.5)), floored at 1e-6), with the
 * statistics of the room alone: N documents in the room, their average length, n documents holding the term.
 * FTS5 computes those over its whole table (every room of every team), which would let other teams' data move a
 * room's ranking and could not be reproduced per room on Redis; so both drivers feed the same per-room numbers to
 * `score` below. `score` is FTS5's bm25() negated (higher is better). Every query term must occur (AND); equal
 * scores are ordered by id.
 */

import { RoomError } from "./errors.ts";

export const SEARCH_KINDS = ["task", "context", "event"] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/** Terms of one query at most (more would only slow the intersection down). */
export const QUERY_TERMS_MAX = 16;
export const SEARCH_LIMIT_DEFAULT = 10;
export const SEARCH_LIMIT_MAX = 50;

const K1 = 1.2;
const B = 0.75;
/** FTS5's floor for a term found in more than half the documents. */
const IDF_FLOOR = 1e-6;

/** A run of letters, digits, private-use characters and the marks that go with them. */
const WORD = /[\p{L}\p{N}\p{Co}\p{M}]+/gu;
/** Combining marks on a Latin letter: the diacritics FTS5's unicode61 removes (é → e, but й and ά stay). */
const LATIN_MARKS = /(\p{Script=Latin})\p{M}+/gu;

/** One word as a token: lower-cased, diacritics of Latin letters removed (NFD, marks dropped, NFC again). */
export function fold(word: string): string {
  return word.toLowerCase().normalize("NFD").replace(LATIN_MARKS, "$1").normalize("NFC");
}

export interface Span {
  token: string;
  /** UTF-16 offsets of the word in the text it was found in. */
  start: number;
  end: number;
}

/** The tokens of a text with where each word stands. */
export function spans(text: string): Span[] {
  const out: Span[] = [];
  for (const match of text.matchAll(WORD)) {
    const token = fold(match[0]);
    if (token !== "") out.push({ token, start: match.index, end: match.index + match[0].length });
  }
  return out;
}

export const tokenize = (text: string): string[] => spans(text).map((s) => s.token);

/** The distinct tokens of a query, in order of first appearance. */
export function queryTerms(query: string): string[] {
  return [...new Set(tokenize(query))];
}

/** The terms of a query a search may run: at least one word, at most QUERY_TERMS_MAX (the tool and the page's route). */
export function searchTerms(query: string): string[] {
  const terms = queryTerms(query);
  if (terms.length === 0)
    throw new RoomError("invalid", "Invalid arguments: query: has no word to search for (letters or digits)");
  if (terms.length > QUERY_TERMS_MAX)
    throw new RoomError("invalid", `Invalid arguments: query: at most ${QUERY_TERMS_MAX} different words`);
  return terms;
}

/** Token → occurrences, as a plain object with own properties only (tokens never contain "_" or "proto" tricks). */
export type TermCounts = Record<string, number>;

/** A term's count in a TermCounts read back from JSON (own properties only: "constructor" is a token too). */
export const termCount = (counts: TermCounts, term: string): number =>
  Object.hasOwn(counts, term) ? (counts[term] as number) : 0;

export function countTerms(text: string): TermCounts {
  const counts = new Map<string, number>();
  for (const token of tokenize(text)) counts.set(token, (counts.get(token) ?? 0) + 1);
  return Object.fromEntries(counts);
}

/** Strings and numbers of a JSON value in document order, one per line: what a payload contributes to search. */
export function jsonText(value: unknown): string {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === "string") out.push(v);
    else if (typeof v === "number") out.push(String(v));
    else if (Array.isArray(v)) for (const item of v) walk(item);
    else if (v !== null && typeof v === "object") for (const item of Object.values(v)) walk(item);
  };
  walk(value);
  return out.join("\n");
}

/** A searchable document's text, field by field, in the order snippets look at them. */
export type SearchFields = [field: string, text: string][];

export const taskFields = (t: { title: string; description: string }): SearchFields => [
  ["title", t.title],
  ["description", t.description],
];
export const contextFields = (e: { summary: string; payload: unknown }): SearchFields => [
  ["summary", e.summary],
  ["payload", jsonText(e.payload)],
];
export const eventFields = (e: { type: string; payload: unknown }): SearchFields => [
  ["type", e.type],
  ["payload", jsonText(e.payload)],
];

/** Per-field term counts, what the Redis write scripts keep per document (JSON of this). */
export function fieldTerms(fields: SearchFields): Record<string, TermCounts> {
  return Object.fromEntries(fields.map(([name, text]) => [name, countTerms(text)]));
}

/** The counts of a whole document (every field together) and its length in tokens. */
export function documentTerms(fields: SearchFields): { terms: TermCounts; length: number } {
  const counts = new Map<string, number>();
  let length = 0;
  for (const [, text] of fields) {
    for (const token of tokenize(text)) {
      counts.set(token, (counts.get(token) ?? 0) + 1);
      length++;
    }
  }
  return { terms: Object.fromEntries(counts), length };
}

/** The kind of a document from its id (ids are minted by roomd: task-<n>, ctx-<n>, evt-<seq>). */
export function kindOf(id: string): SearchKind {
  if (id.startsWith("task-")) return "task";
  if (id.startsWith("ctx-")) return "context";
  return "event";
}

/** What the ranking needs from a driver, all counted in the room alone. */
export interface SearchStats {
  /** Indexed documents in the room (every kind, whatever the query's types). */
  documents: number;
  /** Their total length in tokens. */
  tokens: number;
  /** Per query term (same order as the query's terms): documents of the room holding it. */
  df: number[];
}

/** A document holding every query term. */
export interface Candidate {
  id: string;
  /** Its length in tokens. */
  length: number;
  /** Occurrences of each query term, in the query's order. */
  tf: number[];
}

/** FTS5's idf of a term held by `df` of `documents` documents. */
export function idf(documents: number, df: number): number {
  const value = Math.log((documents - df + 0.5) / (df + 0.5));
  return value <= 0 ? IDF_FLOOR : value;
}

/** FTS5's bm25() of one document, negated (higher is better). */
export function score(stats: SearchStats, candidate: Candidate): number {
  const avgdl = stats.tokens / stats.documents;
  let total = 0;
  candidate.tf.forEach((f, i) => {
    const weight = idf(stats.documents, stats.df[i] ?? 0);
    total += (weight * (f * (K1 + 1))) / (f + K1 * (1 - B + (B * candidate.length) / avgdl));
  });
  return total;
}

/** Best first; equal scores by id (code-unit order), so every driver returns the same order. */
export function rank(stats: SearchStats, candidates: Candidate[]): { id: string; score: number }[] {
  return candidates
    .map((c) => ({ id: c.id, score: score(stats, c) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Characters of context a snippet shows around its first match (about a line of text). */
const SNIPPET_BEFORE = 60;
const SNIPPET_LENGTH = 200;

/**
 * A short excerpt of the first field holding a query term: about SNIPPET_LENGTH characters around the first match,
 * cut at word boundaries, "…" where text was cut, every query term wrapped in ** **. Falls back to the start of the
 * first non-empty field when no field holds a term as a whole word (cannot happen for a hit, kept for safety).
 */
export function snippet(fields: SearchFields, terms: readonly string[]): { field: string; text: string } {
  const wanted = new Set(terms);
  for (const [field, text] of fields) {
    const words = spans(text);
    const first = words.findIndex((w) => wanted.has(w.token));
    if (first < 0) continue;
    const hit = words[first] as Span;
    // From the first word at most SNIPPET_BEFORE characters before the match (the text's start if that is the first).
    const from = words.find((w) => w.start >= hit.start - SNIPPET_BEFORE) ?? hit;
    const start = from === words[0] ? 0 : from.start;
    const stop = words.find((w) => w.start >= start + SNIPPET_LENGTH);
    const end = stop ? stop.start : text.length;
    return { field, text: excerpt(text, start, end, words, wanted) };
  }
  const fallback = fields.find(([, text]) => text.trim() !== "") ?? fields[0] ?? ["", ""];
  const cut = fallback[1].slice(0, SNIPPET_LENGTH);
  return { field: fallback[0], text: cut.length < fallback[1].length ? `${cut}…` : cut };
}

function excerpt(text: string, start: number, end: number, words: Span[], wanted: Set<string>): string {
  let out = start > 0 ? "…" : "";
  let at = start;
  for (const w of words) {
    if (w.start < start || w.end > end || !wanted.has(w.token)) continue;
    out += `${text.slice(at, w.start)}**${text.slice(w.start, w.end)}**`;
    at = w.end;
  }
  out += text.slice(at, end).trimEnd();
  if (end < text.length) out += "…";
  return out.replace(/\s+/g, " ").trim();
}

/** One search result. */
export interface SearchHit {
  type: SearchKind;
  id: string;
  /** FTS5's bm25() negated: higher is a better match. */
  score: number;
  /** The task's title, the context entry's summary, the event's type. */
  title: string;
  /** Where the snippet comes from: title, description, summary, payload or type. */
  field: string;
  snippet: string;
}

/** The hit of a ranked document from its record's fields. */
export function hitOf(
  id: string,
  value: number,
  title: string,
  fields: SearchFields,
  terms: string[],
): SearchHit {
  const cut = snippet(fields, terms);
  return { type: kindOf(id), id, score: value, title, field: cut.field, snippet: cut.text };
}

/**
 * A token as stored in the SQLite FTS5 table: tokens of [a-z0-9] stay as they are, any other (and any starting
 * with "zz") becomes "zz" + the hex of its UTF-8 bytes. FTS5's unicode61 then reads each stored token back as
 * exactly one token, whatever Unicode version its tables follow, so FTS5 matches exactly what `tokenize` says.
 */
export function ftsToken(token: string): string {
  if (/^[a-z0-9]+$/.test(token) && !token.startsWith("zz")) return token;
  return `zz${Buffer.from(token, "utf8").toString("hex")}`;
}
