/**
 * Full-text search on PostgreSQL: the same documents and the same ranking as the SQLite driver
 * (src/store/sqlite/search.ts; protocol/search.ts computes FTS5's bm25 with the room's own statistics), so every
 * driver returns the same hits in the same order. The index is two tables the writing operations keep inside
 * their own transaction: `search_docs` (a document's length and term counts) and `search_terms` (one row per
 * distinct token of a document, keyed (room, token, doc)), where SQLite keeps an FTS5 table.
 *
 * A query costs: one aggregate over the room's documents (count and total length), one index range per term for
 * its document frequency and for the documents holding every term (grouped by document), and decoding the term
 * counts of those; then the records of the `limit` best for their snippets.
 */

import {
  type Candidate,
  documentTerms,
  hitOf,
  kindOf,
  rank,
  type SearchFields,
  type SearchHit,
  type SearchStats,
  termCount,
} from "../../protocol/search.ts";
import type { Search } from "../sql/parts.ts";
import type { Op, SqlClient } from "../sql/run.ts";
import { createSearchRecords } from "../sql/search-records.ts";
import type { SearchQuery } from "../types.ts";

/** Documents per statement when a new room's index is built in bulk (putNew). */
const BULK_DOCS = 500;

export function createSearch(sql: SqlClient): Search {
  // A document's two tables are written together, each pair in one statement (one round trip).
  const remove = sql.query<unknown, [string, string]>(
    `WITH terms AS (DELETE FROM search_terms WHERE room_id = ?1 AND doc = ?2)
     DELETE FROM search_docs WHERE room_id = ?1 AND doc = ?2`,
  );
  const insert = sql.query<unknown, [string, string, number, string, string[]]>(
    `WITH doc AS (INSERT INTO search_docs (room_id, doc, len, terms) VALUES (?1, ?2, ?3, ?4))
     INSERT INTO search_terms (room_id, token, doc) SELECT ?1, t, ?2 FROM unnest(?5::text[]) AS t`,
  );
  // Documents of a room being built (a fork, an import) in bulk: arrays of documents and of their (token, doc) rows.
  const insertMany = sql.query<unknown, [string, string[], number[], string[], string[], string[]]>(
    `WITH docs AS (INSERT INTO search_docs (room_id, doc, len, terms)
                   SELECT ?1, d, l, t FROM unnest(?2::text[], ?3::bigint[], ?4::text[]) AS x(d, l, t))
     INSERT INTO search_terms (room_id, token, doc) SELECT ?1, k, d FROM unnest(?5::text[], ?6::text[]) AS y(k, d)`,
  );
  const totals = sql.query<{ n: number; t: number }, [string]>(
    "SELECT count(*) AS n, coalesce(sum(len), 0) AS t FROM search_docs WHERE room_id = ?",
  );
  const frequencies = sql.query<{ token: string; n: number }, [string, string[]]>(
    `SELECT token, count(*) AS n FROM search_terms WHERE room_id = ? AND token = ANY(?::text[])
     GROUP BY token`,
  );
  // Documents holding every term: the query's terms are distinct, so a document holds them all when it has as
  // many (token, doc) rows among them as there are terms.
  const matching = sql.query<{ doc: string; len: number; terms: string }, [string, string[], number]>(
    `SELECT d.doc, d.len, d.terms FROM search_docs d WHERE d.room_id = ?1 AND d.doc IN (
       SELECT doc FROM search_terms WHERE room_id = ?1 AND token = ANY(?2::text[])
       GROUP BY doc HAVING count(*) = ?3)`,
  );
  const record = createSearchRecords(sql);

  function* drop(roomId: string, id: string): Op<void> {
    yield* remove.run(roomId, id);
  }

  return {
    /** Indexes (or re-indexes) a document of the room. Call inside the writing transaction. */
    *put(roomId: string, id: string, fields: SearchFields): Op<void> {
      yield* drop(roomId, id);
      const { terms, length } = documentTerms(fields);
      yield* insert.run(roomId, id, length, JSON.stringify(terms), Object.keys(terms));
    },
    /** Removes a document from the index (absent: nothing). */
    drop,
    /**
     * Indexes documents of a room being built (a fork, an import: none of them indexed yet) in statements of
     * BULK_DOCS documents each, instead of two statements per document. Call inside the writing transaction.
     */
    *putNew(roomId: string, docs: Iterable<{ id: string; fields: SearchFields }>): Op<void> {
      let batch: { id: string; fields: SearchFields }[] = [];
      const flush = function* (): Op<void> {
        if (batch.length === 0) return;
        const [ids, lengths, counts, tokens, owners]: [string[], number[], string[], string[], string[]] = [
          [],
          [],
          [],
          [],
          [],
        ];
        for (const { id, fields } of batch) {
          const { terms, length } = documentTerms(fields);
          ids.push(id);
          lengths.push(length);
          counts.push(JSON.stringify(terms));
          for (const token of Object.keys(terms)) {
            tokens.push(token);
            owners.push(id);
          }
        }
        batch = [];
        yield* insertMany.run(roomId, ids, lengths, counts, tokens, owners);
      };
      for (const doc of docs) {
        batch.push(doc);
        if (batch.length >= BULK_DOCS) yield* flush();
      }
      yield* flush();
    },
    /** Ranked hits of a live room; see the module comment for the cost. */
    *search(roomId: string, query: SearchQuery): Op<SearchHit[]> {
      const terms = query.terms;
      const { n: documents, t: tokens } = (yield* totals.get(roomId)) ?? { n: 0, t: 0 };
      if (documents === 0 || terms.length === 0) return [];
      const df = new Map((yield* frequencies.all(roomId, terms)).map((r) => [r.token, r.n]));
      const stats: SearchStats = { documents, tokens, df: terms.map((t) => df.get(t) ?? 0) };
      const candidates: Candidate[] = [];
      for (const row of yield* matching.all(roomId, terms, terms.length)) {
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
