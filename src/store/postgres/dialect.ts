/**
 * What PostgreSQL does its own way behind the shared bodies (store/sql/parts.ts Dialect). Every statement is a
 * round trip, so what SQLite runs as several statements is folded into one where it can be (a data-modifying
 * WITH); stored JSON is decoded and edited in TypeScript, never with PostgreSQL's JSON operators, which refuse a
 * document holding an escaped U+0000 (text cannot hold it; a task's description may).
 */
import { iso } from "../../protocol/time.ts";
import type { EventRetention } from "../move-types.ts";
import { type Dialect, roomLock, teamLock } from "../sql/parts.ts";
import { done, type Op, type SqlClient } from "../sql/run.ts";
import type { Pg } from "./db.ts";
import { createPlanGraph } from "./plan-graph.ts";
import type { Rate } from "./rate.ts";
import { createTrimmer } from "./retention.ts";

import { ROOM_TABLES } from "./schema.ts";
import { createSearch } from "./search.ts";

export function createPgDialect(pg: Pg, sql: SqlClient, rate: Rate, retention: EventRetention): Dialect {
  // One statement: the row as it was (`before` reads the statement's snapshot, taken before the upsert) and the
  // upsert. Any call brings an agent that left back (left_at cleared).
  const upsertSeen = sql.query<
    { last_seen: number | null; left_at: number | null; known: boolean },
    [string, string, number]
  >(
    `WITH before AS (SELECT last_seen, left_at FROM presence WHERE room_id = ?1 AND agent_id = ?2),
     up AS (INSERT INTO presence (room_id, agent_id, last_seen) VALUES (?1, ?2, ?3)
       ON CONFLICT (room_id, agent_id) DO UPDATE
       SET last_seen = greatest(presence.last_seen, excluded.last_seen), left_at = NULL)
     SELECT (SELECT last_seen FROM before) AS last_seen, (SELECT left_at FROM before) AS left_at,
       EXISTS (SELECT 1 FROM before) AS known`,
  );
  // The agent's claims renewed and its live leases read, in one statement (one round trip).
  const renewClaimsAndRead = sql.query<
    { id: string; lease_ms: number; json: string },
    [string, string, number]
  >(
    `WITH claims AS (UPDATE claims SET expires_at = ?3 + ttl_ms
                     WHERE room_id = ?1 AND agent_id = ?2 AND expires_at > ?3)
     SELECT id, lease_ms, json FROM tasks
     WHERE room_id = ?1 AND owner = ?2 AND lease_expires_at > ?3 AND lease_expires_at IS NOT NULL`,
  );
  const renewLease = sql.query<unknown, [number, string, string, string]>(
    "UPDATE tasks SET lease_expires_at = ?1, json = ?2 WHERE room_id = ?3 AND id = ?4",
  );
  // A batch of an import's events with their read receipts (in read order) and first-delivery times, in one
  // statement.
  const insertEvents = sql.query<
    unknown,
    [
      string,
      number[],
      string[],
      string[],
      string[],
      number[],
      string[],
      (string | null)[],
      number[],
      (string | null)[],
      (number | null)[],
      number[],
      string[],
      number[],
      string[],
      number[],
    ]
  >(
    `WITH ev AS (
       INSERT INTO events (room_id, seq, type, from_agent, to_agent, ts, payload, reply_to, posted, deleted_by,
         deleted_at)
       SELECT ?1, * FROM unnest(?2::bigint[], ?3::text[], ?4::text[], ?5::text[], ?6::bigint[], ?7::text[],
         ?8::text[], ?9::bigint[], ?10::text[], ?11::bigint[])),
     rd AS (INSERT INTO event_reads (room_id, seq, agent_id) SELECT ?1, * FROM unnest(?12::bigint[], ?13::text[]))
     INSERT INTO context_reads (room_id, seq, agent_id, at)
     SELECT ?1, * FROM unnest(?14::bigint[], ?15::text[], ?16::bigint[])`,
  );
  /** Inside the write: one more advisory lock (db.ts). */
  function* lock(key: string): Op<void> {
    yield pg.lock(key);
  }

  return {
    roomTables: ROOM_TABLES,
    search: createSearch(sql),
    graph: createPlanGraph(sql),
    text: { store: (value) => JSON.stringify(value), load: (stored) => JSON.parse(stored) as string },
    // Inside a write, the team's lock: the room count a claim checks is exact across processes.
    lockTeam: (teamId) => (pg.inWrite ? lock(teamLock(teamId)) : done(undefined)),
    // The write holds its own room's lock; a second room's is taken now (a deadlock between two crossing writes is
    // detected by PostgreSQL and the write retried).
    lockRoom: (roomId) => lock(roomLock(roomId)),
    *dropRateWindows(prefix) {
      yield rate.dropPrefix(prefix);
    },
    trim: createTrimmer(sql, retention).trim,
    *markSeen(roomId, agentId, t) {
      const row = yield* upsertSeen.get(roomId, agentId, t);
      return row?.known ? { lastSeen: row.last_seen ?? 0, leftAt: row.left_at } : null;
    },
    *renew(roomId: string, agentId: string, t: number): Op<void> {
      // JSON is edited in TS, not with jsonb functions, so the stored text keeps its key order (as SQLite's json_set).
      for (const { id, lease_ms, json } of yield* renewClaimsAndRead.all(roomId, agentId, t)) {
        const task = JSON.parse(json) as Record<string, unknown>;
        task.lease_expires_at = iso(t + lease_ms);
        yield* renewLease.run(t + lease_ms, JSON.stringify(task), roomId, id);
      }
    },
    *writeEvents(roomId, b) {
      yield* insertEvents.run(
        roomId,
        b.seq,
        b.type,
        b.from,
        b.to,
        b.ts,
        b.payload,
        b.replyTo,
        b.posted,
        b.deletedBy,
        b.deletedAt,
        b.readSeq,
        b.readAgent,
        b.atSeq,
        b.atAgent,
        b.at,
      );
    },
  };
}
