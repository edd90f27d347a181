/**
 * What PostgreSQL does its own way behind the shared bodies (store/sql/parts.ts Dialect). Every statement is a
 * round trip, so what SQLite runs as several statements is folded into one where it can be (a data-modifying
 * WITH); stored JSON is decoded and edited in TypeScript, never with PostgreSQL's JSON operators, which refuse a
 * document holding an escaped U+0000 (text cannot hold it; a task's description may).
 */
import { iso } from "../../protocol/time.ts";
import type { EventRetention } from "../move-types.ts";
import { asyncStepOf } from "../sql/adapt.ts";
import type { Dialect } from "../sql/parts.ts";
import { done, type Op, type SqlClient } from "../sql/run.ts";
import type { Pg } from "./db.ts";
import { createPlanGraph } from "./plan-graph.ts";
import type { Rate } from "./rate.ts";
import { createTrimmer } from "./retention.ts";
import { teamLock } from "./rooms.ts";
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
  const lock = asyncStepOf(pg.lock);

  return {
    roomTables: ROOM_TABLES,
    search: createSearch(sql),
    graph: createPlanGraph(sql),
    text: { store: (value) => JSON.stringify(value), load: (stored) => JSON.parse(stored) as string },
    // Inside a write, the team's lock: the room count a claim checks is exact across processes.
    lockTeam: (teamId) => (pg.inWrite ? lock(teamLock(teamId)) : done(undefined)),
    dropRateWindows: asyncStepOf(rate.dropPrefix),
    trim: createTrimmer(sql, retention).trim,
    *markSeen(roomId, agentId, t) {
      const row = yield* upsertSeen.get(roomId, agentId, t);
      return row?.known ? { last_seen: row.last_seen ?? 0, left_at: row.left_at } : null;
    },
    *renew(roomId: string, agentId: string, t: number): Op<void> {
      // JSON is edited in TS, not with jsonb functions, so the stored text keeps its key order (as SQLite's json_set).
      for (const { id, lease_ms, json } of yield* renewClaimsAndRead.all(roomId, agentId, t)) {
        const task = JSON.parse(json) as Record<string, unknown>;
        task.lease_expires_at = iso(t + lease_ms);
        yield* renewLease.run(t + lease_ms, JSON.stringify(task), roomId, id);
      }
    },
  };
}
