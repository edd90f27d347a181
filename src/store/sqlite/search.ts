/**
 * Full-text search on SQLite: an FTS5 index (search_fts, external content search_docs, kept by triggers) that the
 * writing operations update inside their own transaction, and ranking by protocol/search.ts (FTS5's bm25 formula
 * with the room's own statistics).
 *
 * Each document's tokens are stored FTS-encoded (ftsToken) after a room token, so FTS5 matches exactly the tokens
 * protocol/search.ts produces and only the room's documents. A query costs: one FTS5 match of the room token AND
 * every term (FTS5 merges the doclists: O(documents of the room + occurrences of the terms)), one count per term
 * for its document frequency, one aggregate over the room's documents (count and total length), and decoding the
 * term counts of the documents that match; then the records of the `limit` best for their snippets.
 */

import {
  type Candidate,
  ftsToken,
  hitOf,
  kindOf,
  rank,
  type SearchFields,
  type SearchHit,
  type SearchStats,
  termCount,
  tokenize,
} from "../../protocol/search.ts";
import type { Search } from "../sql/parts.ts";
import type { Op, SqlClient } from "../sql/run.ts";
import { createSearchRecords } from "../sql/search-records.ts";
import type { SearchQuery } from "../types.ts";

/** The FTS5 token naming a room: "r" + the hex of its id (room ids are [a-z0-9_-], so this is one token). */
const roomToken = (roomId: string) => `r${Buffer.from(roomId, "utf8").toString("hex")}`;
const quoted = (token: string) => `"${token}"`;

export function createSearch(sql: SqlClient): Search {
  const remove = sql.query<unknown, [string, string]>(
    "DELETE FROM search_docs WHERE room_id = ? AND doc = ?",
  );
  const insert = sql.query<unknown, [string, string, number, string, string, string]>(
    "INSERT INTO search_docs (room_id, doc, len, terms, room, body) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const totals = sql.query<{ n: number; t: number }, [string]>(
    "SELECT count(*) AS n, coalesce(sum(len), 0) AS t FROM search_docs WHERE room_id = ?",
  );
  const matching = sql.query<{ doc: string; len: number; terms: string }, [string]>(
    "SELECT d.doc, d.len, d.terms FROM search_fts f JOIN search_docs d ON d.rowid = f.rowid WHERE search_fts MATCH ?",
  );
  const counted = sql.query<{ n: number }, [string]>(
    "SELECT count(*) AS n FROM search_fts WHERE search_fts MATCH ?",
  );
  const record = createSearchRecords(sql);

  /** Indexes (or re-indexes) a document of the room. Call inside the writing transaction. */
  function* put(roomId: string, id: string, fields: SearchFields): Op<void> {
    yield* remove.run(roomId, id);
    const tokens = fields.flatMap(([, text]) => tokenize(text));
    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    const terms = JSON.stringify(Object.fromEntries(counts));
    yield* insert.run(roomId, id, tokens.length, terms, roomToken(roomId), tokens.map(ftsToken).join(" "));
  }

  return {
    put,
    /** Removes a document from the index (absent: nothing). */
    *drop(roomId: string, id: string): Op<void> {
      yield* remove.run(roomId, id);
    },
    /** Indexes documents of a room being built (a fork, an import): each as put does (statements are cheap here). */
    *putNew(roomId: string, docs: Iterable<{ id: string; fields: SearchFields }>): Op<void> {
      for (const { id, fields } of docs) yield* put(roomId, id, fields);
    },
    /** Ranked hits of a live room; see the module comment for the cost. */
    *search(roomId: string, query: SearchQuery): Op<SearchHit[]> {
      const room = quoted(roomToken(roomId));
      const terms = query.terms;
      const { n: documents, t: tokens } = (yield* totals.get(roomId)) ?? { n: 0, t: 0 };
      if (documents === 0 || terms.length === 0) return [];
      const body = terms.map((t) => quoted(ftsToken(t))).join(" AND ");
      const df: number[] = [];
      for (const t of terms) {
        df.push((yield* counted.get(`room : ${room} AND body : ${quoted(ftsToken(t))}`))?.n ?? 0);
      }
      const stats: SearchStats = { documents, tokens, df };
      const candidates: Candidate[] = [];
      for (const row of yield* matching.all(`room : ${room} AND body : (${body})`)) {
        if (!query.types.includes(kindOf(row.doc))) continue;
        const counts = JSON.parse(row.terms) as Record<string, number>;
        candidates.push({ id: row.doc, length: row.len, tf: terms.map((t) => termCount(counts, t)) });
      }
      const hits: SearchHit[] = [];
      for (const { id, score } of rank(stats, candidates).slice(0, query.limit)) {
        const found = yield* record(roomId, id);
        if (found) hits.push(hitOf(id, score, found.title, found.fields, terms));
      }
      return hits;
    },
  };
}
