/**
 * People's records of a fork (fork.ts, docs/people.md#forks): reviews, approvals, handoffs and verdicts as the
 * fork's log left them, written under their own ids (n is the id's number, so the fork's own continue after them);
 * and, for a source whose log retention trimmed (forked at its head only), those records as they are now.
 */
import { serialOf } from "../../protocol/fork-records.ts";
import type { Approval, Handoff, Verdict } from "../../protocol/people.ts";
import type { Review } from "../../protocol/records.ts";
import type { Op, SqlClient } from "./run.ts";

export interface PeopleRecords {
  reviews: Review[];
  approvals: Approval[];
  handoffs: Handoff[];
  verdicts: Verdict[];
}

/** The tables, each (room_id, id, n, json). */
const TABLES = ["reviews", "approvals", "handoffs", "verdicts"] as const satisfies (keyof PeopleRecords)[];

export function createForkPeople(sql: SqlClient) {
  const statements = TABLES.map((table) => ({
    table,
    insert: sql.query<unknown, [string, string, number, string]>(
      `INSERT INTO ${table} (room_id, id, n, json) VALUES (?, ?, ?, ?)`,
    ),
    all: sql.query<{ json: string }, [string]>(`SELECT json FROM ${table} WHERE room_id = ? ORDER BY n`),
  }));

  return {
    /** A room's records as they are (a trimmed source's, whose log no longer names them all). */
    *current(roomId: string): Op<PeopleRecords> {
      const found: Partial<Record<keyof PeopleRecords, unknown[]>> = {};
      for (const { table, all } of statements)
        found[table] = (yield* all.all(roomId)).map((row) => JSON.parse(row.json));
      return found as PeopleRecords;
    },
    /** Writes the fork's records. */
    *write(roomId: string, records: PeopleRecords): Op<void> {
      for (const { table, insert } of statements) {
        for (const record of records[table])
          yield* insert.run(roomId, record.id, serialOf(record.id), JSON.stringify(record));
      }
    },
  };
}
