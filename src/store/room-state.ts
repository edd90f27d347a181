/**
 * Every piece of room state, declared once: where each store keeps it (SQL tables, Redis key parts) and whether
 * it travels with a room's export (and so with an import and a migration) and with a fork — or why not. The
 * parts of the stores follow from it or are checked against it:
 *
 * - the SQL drivers' ROOM_TABLES, which a room's purge empties (deleted, expired), are `roomTables(dialect)`;
 * - every table with a `room_id` column must be declared here, and every declared table must exist in its
 *   dialect's schema (src/store/room-state.test.ts);
 * - the Redis parts declared here are exactly redis/keys.ts ROOM_KEY_PARTS, whose keys a room's purge deletes and
 *   its TTL refresh renews (src/store/room-state.test.ts);
 * - on every store, a room holding every piece holds rows or keys in every declared place and nowhere else; once
 *   deleted, nothing; exported and imported under a new id, what is `moved` and nothing else; forked, what is
 *   `forked` and nothing else (test/store/conformance/room-state.ts).
 *
 * Small values a room keeps (a topic, a setting) need no piece of their own: they are declared in
 * protocol/room-values.ts and kept by the `values` piece, whose storage, purge, export, import and fork are
 * written once for all of them.
 */

/** How a piece travels with a room's export and import: as these lines of the file (protocol/export-format.ts). */
export interface Lines {
  lines: readonly (
    | "room"
    | "task"
    | "context_version"
    | "context"
    | "var"
    | "review"
    | "approval"
    | "handoff"
    | "verdict"
    | "cursor"
    | "mark"
    | "fence"
    | "claim"
    | "value"
    | "event"
  )[];
}

/** Left behind, for this reason. */
export interface Stays {
  not: string;
}

/**
 * How a piece reaches a fork: `copied` as it is; `rebuilt` from the copied log as the room stood at the fork point
 * (protocol/fork-rebuild.ts); `derived` anew from what the fork holds (an index); `new` made for the fork itself.
 */
export type Forked = "copied" | "rebuilt" | "derived" | "new" | Stays;

export interface RoomStatePiece {
  /** What the piece is. */
  what: string;
  /** Tables holding its rows in both SQL dialects (each keyed by room_id first). */
  tables: readonly string[];
  /** Tables of one dialect only (SQLite's signals; PostgreSQL's search terms, which SQLite keeps in FTS5). */
  sqlite?: readonly string[];
  postgres?: readonly string[];
  /** Parts of the room's Redis keys (redis/keys.ts ROOM_KEY_PARTS) holding it. */
  parts: readonly string[];
  /**
   * Where else it lives and how that goes with the room: rows or keys that are not the room's tables or parts
   * (the conformance test looks there too).
   */
  elsewhere?: string;
  /**
   * With an export and import (and so a migration): carried as `lines`, `derived` by the import from what it
   * carries (an index, a count), or left behind.
   */
  moved: Lines | "derived" | Stays;
  forked: Forked;
}

/** The pieces of a room. A table or part may serve two pieces (a lock's row holds its holder and its fence). */
export const ROOM_STATE = {
  room: {
    what: "the room itself: its owner, times, counters, origin (forkedFrom), retention mark and the counts reads use",
    tables: ["rooms"],
    parts: ["meta"],
    moved: { lines: ["room"] },
    forked: "new",
  },
  plan: {
    what: "tasks in plan order",
    tables: ["tasks"],
    parts: ["tasks"],
    moved: { lines: ["task"] },
    forked: "rebuilt",
  },
  leases: {
    what: "task leases: a leased task's expiry and length (SQL: columns of tasks), and what each agent holds",
    tables: [],
    parts: ["leases", "holdings"],
    moved: { lines: ["task"] },
    forked: {
      not: "a lease is held by an agent of the source: the fork's task is released (pending, unowned) as at its expiry",
    },
  },
  context: {
    what: "context entries with their history and the log head each version became current at",
    tables: ["contexts", "context_history"],
    parts: ["ctx", "ctx_payload", "ctx_hist", "ctx_changes", "ctx_seqs"],
    moved: { lines: ["context", "context_version"] },
    forked: "rebuilt",
  },
  contextIndex: {
    what: "Redis: context entries by type and author, for filtered lists",
    tables: [],
    parts: ["ctx_by"],
    moved: { not: "an index: the first filtered list of the new room builds it again" },
    forked: { not: "an index: the first filtered list of the fork builds it again" },
  },
  log: {
    what: "the event log: events with tombstones and whether an agent posted them, and who each was addressed to",
    tables: ["events", "addr_counts"],
    parts: ["events", "event_idx", "event_addr", "posted", "mailbox"],
    moved: { lines: ["event"] },
    forked: "copied",
  },
  readReceipts: {
    what: "who read each event (read_by)",
    tables: ["event_reads"],
    parts: ["event_reads"],
    moved: { lines: ["event"] },
    forked: { not: "a fork is a new room: nobody has read its log yet" },
  },
  deliveries: {
    what: "when each context event first reached each agent (analytics)",
    tables: ["context_reads"],
    parts: ["ctx_reads"],
    moved: { lines: ["event"] },
    forked: { not: "a fork is a new room: its log has reached nobody yet" },
  },
  cursors: {
    what: "each agent's cursor (the last event it consumed) and its summary's context mark",
    tables: ["cursors"],
    parts: ["cursors", "ctx_marks"],
    moved: { lines: ["cursor"] },
    forked: { not: "a fork is a new room: its agents receive its log from the start" },
  },
  marks: {
    what: "the last message, steer and interrupt the bridge or get_my_summary delivered to each agent",
    tables: ["agent_marks"],
    parts: ["marks"],
    moved: { lines: ["mark"] },
    forked: { not: "a fork is a new room: its mail has reached nobody yet" },
  },
  presence: {
    what: "who was seen when, their status text, and who left",
    tables: ["presence"],
    parts: ["presence"],
    moved: { not: "liveness: agents show up again with their next call" },
    forked: { not: "liveness: agents show up again with their next call" },
  },
  fences: {
    what: "each lock's fencing counter, which only grows",
    tables: ["locks"],
    parts: ["fences"],
    moved: { lines: ["fence"] },
    forked: { not: "a fork's locks are its own: nothing it fences was ever locked there" },
  },
  lockHolders: {
    what: "who holds each lock until when (SQL: the holder and expiry columns of the fences' rows)",
    tables: [],
    parts: ["locks"],
    moved: { not: "a lock is a lease on seconds; a move takes longer (the fence is carried)" },
    forked: { not: "a lock is a lease on seconds, held in the source" },
  },
  vars: {
    what: "shared variables",
    tables: ["vars"],
    parts: ["vars"],
    moved: { lines: ["var"] },
    forked: { not: "variables are not in the log, so the room's at the fork point is unknown" },
  },
  idempotency: {
    what: "the kept results of calls with an idempotency key (24 h)",
    tables: ["idempotency"],
    parts: ["idem", "idem_at"],
    moved: { not: "a retry belongs to the room it was made in" },
    forked: { not: "a retry belongs to the room it was made in" },
  },
  invites: {
    what: "invites to the room (digests of their tokens) and their rate windows",
    tables: ["invites"],
    parts: ["invites", "invite_digests"],
    elsewhere:
      "each invite's rate windows: SQL rate_hits and rate_counts rows whose bucket starts with invite:<roomId>:, " +
      "dropped with the room; Redis keys room:{<roomId>}:rl:<fingerprint>:<bucket>, which expire on their own " +
      "within their window",
    moved: { not: "secrets' digests do not belong in a file handed around (a migration copies them itself)" },
    forked: { not: "an invite is to one room" },
  },
  search: {
    what: "the full-text index of tasks, context entries and posted events",
    tables: ["search_docs"],
    postgres: ["search_terms"],
    parts: ["search_post", "search_len", "search_fields"],
    moved: "derived",
    forked: "derived",
  },
  reviews: {
    what: "review requests and their decisions",
    tables: ["reviews"],
    parts: ["reviews"],
    moved: { lines: ["review"] },
    forked: "rebuilt",
  },
  claims: {
    what: "file claims",
    tables: ["claims"],
    parts: ["claims", "claim_exp", "holdings"],
    moved: { lines: ["claim"] },
    forked: { not: "a claim is a lease held by an agent of the source" },
  },
  webhooks: {
    what: "webhooks with their delivery state, their queued deliveries and their attempt logs",
    tables: ["webhooks", "webhook_outbox", "webhook_log"],
    parts: ["webhooks", "wh_state", "wh_outbox", "wh_log"],
    elsewhere:
      "Redis: the room's entry in the index of rooms with webhooks (webhooks:{index}:rooms), which a delivery " +
      "worker drops once it finds the room without webhooks",
    moved: {
      not: "URLs vetted against this deployment, secrets derived from its signing key (a migration copies them itself)",
    },
    forked: { not: "a fork's watchers register their own" },
  },
  driver: {
    what: "who drives the room (the wheel) and its epoch (Redis: fields of meta)",
    tables: ["drivers"],
    parts: [],
    moved: { lines: ["room"] },
    // Nobody drives a fork; its epoch is rebuilt from the log (+ 1 when the wheel was held), so it never goes back.
    forked: "rebuilt",
  },
  approvals: {
    what: "approval requests and people's decisions",
    tables: ["approvals"],
    parts: ["approvals"],
    moved: { lines: ["approval"] },
    forked: "rebuilt",
  },
  handoffs: {
    what: "handoffs of tasks and context between agents",
    tables: ["handoffs"],
    parts: ["handoffs"],
    moved: { lines: ["handoff"] },
    forked: "rebuilt",
  },
  verdicts: {
    what: "people's verdicts",
    tables: ["verdicts"],
    parts: ["verdicts"],
    moved: { lines: ["verdict"] },
    forked: "rebuilt",
  },
  signals: {
    what: "SQLite: a counter per room and kind of signal, so processes sharing the file notice changes (Redis: meta)",
    tables: [],
    sqlite: ["signals"],
    parts: [],
    moved: { not: "a notice to the watchers of the moment" },
    forked: { not: "a notice to the watchers of the moment" },
  },
  suspensions: {
    what: "agents suspended in the room: who suspended each, when and why (protocol/suspensions.ts)",
    tables: ["suspensions"],
    parts: ["suspended"],
    moved: {
      not: "an act on an agent of this room, now: an imported or migrated room starts with every agent free (suspend it again there)",
    },
    forked: { not: "a fork is a new room: its agents start free, as after a resume" },
  },
  values: {
    what: "the small values declared in protocol/room-values.ts (one table and one hash for all of them)",
    tables: ["room_values"],
    parts: ["values"],
    moved: { lines: ["value"] },
    forked: "copied",
  },
} as const satisfies Record<string, RoomStatePiece>;

export type RoomStateName = keyof typeof ROOM_STATE;

/** The declared pieces as entries, typed loosely (the declaration's literal types are for its own checks). */
export const roomStatePieces = (): [RoomStateName, RoomStatePiece][] =>
  Object.entries(ROOM_STATE) as [RoomStateName, RoomStatePiece][];

/** The tables of a piece in one SQL dialect. */
export function tablesOf(piece: RoomStatePiece, dialect: "sqlite" | "postgres"): string[] {
  return [...piece.tables, ...(piece[dialect] ?? [])];
}

/**
 * Every table holding a room's rows in a dialect, each once, `rooms` last (a purge deletes in this order, so a
 * purge cut short leaves the room row, and the room, to be purged again).
 */
export function roomTables(dialect: "sqlite" | "postgres"): readonly string[] {
  const all = new Set(roomStatePieces().flatMap(([, piece]) => tablesOf(piece, dialect)));
  all.delete("rooms");
  return [...all, "rooms"];
}

/** Every Redis part declared, each once, in declaration order. */
export function roomParts(): readonly string[] {
  return [...new Set(roomStatePieces().flatMap(([, piece]) => piece.parts))];
}
