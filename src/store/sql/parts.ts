/**
 * What every shared body gets from its driver: the statements' client, the clock, the change feed, and the few
 * parts that are truly dialect-bound (Dialect), each written once per driver (sqlite/dialect.ts,
 * postgres/dialect.ts).
 */
import type { TaskStatus } from "../../protocol/records.ts";
import type { ValuePieces } from "../../protocol/room-values.ts";
import type { SearchFields, SearchHit } from "../../protocol/search.ts";
import type { Clock } from "../../protocol/time.ts";
import type { SearchQuery, SignalKind } from "../types.ts";
import type { Op, SqlClient } from "./run.ts";

/** The key of a room's writes and of a team's records, for the locks a write holds (PostgreSQL's advisory locks). */
export const roomLock = (roomId: string) => `room:${roomId}`;
export const teamLock = (teamId: string) => `team:${teamId}`;

/** Inside a write: the room's changes (log head, signals), reported once the transaction commits. */
export interface Changes {
  appended(roomId: string, seq: number): void;
  signal(roomId: string, kind: SignalKind): void;
}

/**
 * Full-text search over a room's tasks, context entries and posted events (protocol/search.ts ranks them the same
 * on every driver), kept by the writing operations inside their own transaction. SQLite keeps an FTS5 index,
 * PostgreSQL a table of (room, token, document).
 */
export interface Search {
  /** Indexes (or re-indexes) a document of the room. */
  put(roomId: string, id: string, fields: SearchFields): Op<void>;
  /** Removes a document from the index (absent: nothing). */
  drop(roomId: string, id: string): Op<void>;
  /** Indexes the documents of a room being built (a fork, an import), none of them indexed yet. */
  putNew(roomId: string, docs: Iterable<{ id: string; fields: SearchFields }>): Op<void>;
  /** Ranked hits of a live room. */
  search(roomId: string, query: SearchQuery): Op<SearchHit[]>;
}

/**
 * The lookups the plan's dependency rules (protocol/plan-rules.ts) make, which take synchronous functions. SQLite
 * answers each lookup with one indexed statement when the rule asks; PostgreSQL reads what a check may look at in
 * one statement first (the named tasks, or every task for the cycle check), decoding the stored JSON itself.
 */
export interface PlanGraph {
  /** A task's status by id for the named tasks (undefined: no such task). */
  statuses(roomId: string, ids: readonly string[]): Op<(id: string) => TaskStatus | undefined>;
  /** A task's dependencies by id over the whole plan (undefined: no such task), for the cycle check. */
  dependencies(roomId: string): Op<(id: string) => readonly string[] | undefined>;
  /** The ids of the tasks that depend on `taskId`, in plan order. */
  dependents(roomId: string, taskId: string): Op<string[]>;
}

/** A batch of imported events as column arrays, with their read receipts (in read order) and first-delivery times. */
export interface EventBatch {
  seq: number[];
  type: string[];
  from: string[];
  to: string[];
  ts: number[];
  payload: string[];
  replyTo: (string | null)[];
  posted: number[];
  deletedBy: (string | null)[];
  deletedAt: (number | null)[];
  readSeq: number[];
  readAgent: string[];
  atSeq: number[];
  atAgent: string[];
  at: number[];
}

export const newEventBatch = (): EventBatch => ({
  seq: [],
  type: [],
  from: [],
  to: [],
  ts: [],
  payload: [],
  replyTo: [],
  posted: [],
  deletedBy: [],
  deletedAt: [],
  readSeq: [],
  readAgent: [],
  atSeq: [],
  atAgent: [],
  at: [],
});

/** Where the dialects part: what each driver writes for itself, behind one shape. */
export interface Dialect {
  /** Every table holding a room's rows (store/room-state.ts roomTables), emptied when the room is purged. */
  readonly roomTables: readonly string[];
  /**
   * Inside a write that may claim a room: holds the team's records still (PostgreSQL takes the team's advisory
   * lock, so a room count is exact across processes; a SQLite write holds the whole file already).
   */
  lockTeam(teamId: string): Op<void>;
  /**
   * Free text (a shared variable's value, a key's note) as the dialect stores it and back: PostgreSQL's text cannot
   * hold U+0000, so it keeps the JSON string (JSON escapes it); SQLite keeps the text as it is.
   */
  readonly text: { store(value: string): string; load(stored: string): string };
  /** Forgets every rate window whose bucket starts with `prefix` (a purged room's or deleted invite's). */
  dropRateWindows(prefix: string): Op<void>;
  /**
   * Records that the agent was seen at t (a call of it: last_seen moves forward, a leave_room ends) and returns its
   * presence row as it was before, or null when it was never seen in the room.
   */
  markSeen(
    roomId: string,
    agentId: string,
    t: number,
  ): Op<{ lastSeen: number; leftAt: number | null } | null>;
  /**
   * Renews the agent's live task leases (to t + each one's length) and live file claims (to t + each one's TTL),
   * inside a write; expired ones are left for the next write that records them.
   */
  renew(roomId: string, agentId: string, t: number): Op<void>;
  /**
   * Event retention, inside an append: trims the room's oldest events that retention lets go after event `head`
   * was appended at `now` (a bounded number per append, never `head`), with everything keyed by their seq and
   * their search documents; returns how many went.
   */
  trim(roomId: string, head: number, now: number): Op<number>;
  readonly search: Search;
  readonly graph: PlanGraph;
  /** Inside a write: holds a second room still (a fork's new room; PostgreSQL takes its advisory lock). */
  lockRoom(roomId: string): Op<void>;
  /** Writes a batch of an import's events with their read receipts and first-delivery times. */
  writeEvents(roomId: string, batch: EventBatch): Op<void>;
}

export interface SqlBase {
  sql: SqlClient;
  now: Clock;
  changes: Changes;
  dialect: Dialect;
  /** The kinds of small value the store keeps (protocol/room-values.ts VALUE_PIECES, unless a test adds its own). */
  values: ValuePieces;
}
