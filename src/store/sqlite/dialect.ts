/**
 * What SQLite does its own way behind the shared bodies (store/sql/parts.ts Dialect). Its statements are cheap
 * (no round trip), so where PostgreSQL folds several into one, SQLite runs the plain ones; where a write would
 * cost more than a read (an UPDATE opens a statement journal even when it matches nothing), it reads first.
 */
import type { Database } from "bun:sqlite";
import { iso } from "../../protocol/time.ts";
import type { EventRetention } from "../move-types.ts";
import type { Dialect } from "../sql/parts.ts";
import { done, type Op, type SqlClient } from "../sql/run.ts";
import { createPlanGraph } from "./plan-graph.ts";
import type { Rate } from "./rate.ts";
import { createTrimmer } from "./retention.ts";
import { ROOM_TABLES } from "./schema.ts";
import { createSearch } from "./search.ts";

/** Retention's answer when it is off: nothing trimmed (one step, reused: it is done at once). */
const NOTHING_TRIMMED: Op<number> = {
  [Symbol.iterator]: () => NOTHING_TRIMMED,
  next: () => ({ done: true, value: 0 }),
} as unknown as Op<number>;

export function createSqliteDialect(
  db: Database,
  sql: SqlClient,
  rate: Rate,
  retention: EventRetention,
): Dialect {
  const trimmer = createTrimmer(db, retention);
  const lastSeen = sql.query<{ last_seen: number; left_at: number | null }, [string, string]>(
    "SELECT last_seen, left_at FROM presence WHERE room_id = ? AND agent_id = ?",
  );
  // Any call brings an agent that left back (left_at cleared).
  const upsertSeen = sql.query<unknown, [string, string, number]>(
    `INSERT INTO presence (room_id, agent_id, last_seen) VALUES (?1, ?2, ?3)
     ON CONFLICT (room_id, agent_id) DO UPDATE
     SET last_seen = max(presence.last_seen, excluded.last_seen), left_at = NULL`,
  );
  const leased = sql.query<{ id: string; lease_ms: number }, [string, string, number]>(
    `SELECT id, lease_ms FROM tasks
     WHERE room_id = ? AND owner = ? AND lease_expires_at > ? AND lease_expires_at IS NOT NULL`,
  );
  const renewLease = sql.query<unknown, [number, string, string, string]>(
    `UPDATE tasks SET lease_expires_at = ?1, json = json_set(json, '$.lease_expires_at', ?2)
     WHERE room_id = ?3 AND id = ?4`,
  );
  const renewClaims = sql.query<unknown, [number, string, string]>(
    "UPDATE claims SET expires_at = ?1 + ttl_ms WHERE room_id = ?2 AND agent_id = ?3 AND expires_at > ?1",
  );
  // The UPDATE costs ~20 µs inside a batch's savepoint even when it matches nothing (it opens a statement
  // journal): an agent holding no live claim — most calls — is found by a read of the index instead.
  const holdsClaims = sql.query<{ one: number }, [number, string, string]>(
    "SELECT 1 AS one FROM claims WHERE room_id = ?2 AND agent_id = ?3 AND expires_at > ?1 LIMIT 1",
  );
  // An import's events, a statement per row (no round trip to save).
  const insertEvent = sql.query<
    unknown,
    [
      string,
      number,
      string,
      string,
      string,
      number,
      string,
      string | null,
      number,
      string | null,
      number | null,
    ]
  >(
    `INSERT INTO events (room_id, seq, type, from_agent, to_agent, ts, payload, reply_to, posted, deleted_by, deleted_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertRead = sql.query<unknown, [string, number, string]>(
    "INSERT INTO event_reads (room_id, seq, agent_id) VALUES (?, ?, ?)",
  );
  const insertDelivered = sql.query<unknown, [string, number, string, number]>(
    "INSERT INTO context_reads (room_id, seq, agent_id, at) VALUES (?, ?, ?, ?)",
  );

  return {
    roomTables: ROOM_TABLES,
    search: createSearch(sql),
    graph: createPlanGraph(sql),
    // TEXT columns keep any string byte for byte.
    text: { store: (value) => value, load: (stored) => stored },
    // A write holds the file's write lock: the team's records, and every other room, cannot change under it.
    lockTeam: () => done(undefined),
    lockRoom: () => done(undefined),
    dropRateWindows: (prefix) => done(rate.dropPrefix(prefix)),
    *markSeen(roomId, agentId, t) {
      const before = yield* lastSeen.get(roomId, agentId);
      yield* upsertSeen.run(roomId, agentId, t);
      return before && { lastSeen: before.last_seen, leftAt: before.left_at };
    },
    // An agent holding nothing costs two index reads (the partial lease index, claims by agent).
    // Its own statements, synchronously: iterating the oldest rows stops at the first one retention keeps.
    trim:
      retention.maxEvents > 0 || retention.maxAgeMs > 0
        ? (roomId, head, now) => done(trimmer.trim(roomId, head, now))
        : () => NOTHING_TRIMMED,
    *renew(roomId: string, agentId: string, t: number): Op<void> {
      for (const { id, lease_ms } of yield* leased.all(roomId, agentId, t)) {
        yield* renewLease.run(t + lease_ms, iso(t + lease_ms), roomId, id);
      }
      if (yield* holdsClaims.get(t, roomId, agentId)) yield* renewClaims.run(t, roomId, agentId);
    },
    *writeEvents(roomId, b) {
      for (const [i, seq] of b.seq.entries()) {
        yield* insertEvent.run(
          roomId,
          seq,
          b.type[i] as string,
          b.from[i] as string,
          b.to[i] as string,
          b.ts[i] as number,
          b.payload[i] as string,
          b.replyTo[i] ?? null,
          b.posted[i] as number,
          b.deletedBy[i] ?? null,
          b.deletedAt[i] ?? null,
        );
      }
      for (const [i, seq] of b.readSeq.entries())
        yield* insertRead.run(roomId, seq, b.readAgent[i] as string);
      for (const [i, seq] of b.atSeq.entries()) {
        yield* insertDelivered.run(roomId, seq, b.atAgent[i] as string, b.at[i] as number);
      }
    },
  };
}
