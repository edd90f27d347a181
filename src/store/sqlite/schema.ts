/**
 * Opening the SQLite file and creating the schema (idempotent, so every process sharing the file may run it).
 *
 * Schema — every table is STRICT and keyed by room_id first, so a room's rows sit together in each B-tree:
 *
 *   rooms          room_id PK, owner (team), created_at, last_activity (ms; expiry is last_activity + ROOM_TTL),
 *                  plan_created_at / plan_updated_at (ms or NULL), and the per-room counters:
 *                  task_n (last "task-<n>"), ctx_n (last "ctx-<n>"), ctx_seq (context change counter),
 *                  event_seq (last event seq; the next event gets exactly event_seq + 1); plan_base and plan_rev
 *                  (the plan's revision, kept by triggers on tasks: PLAN_REVISIONS).
 *   tasks          (room_id, id) PK, n (plan order), owner (for myTasks), json (the Task record),
 *                  lease_expires_at and lease_ms (ms; NULL unless leased by claim_task). Partial indexes on
 *                  (room_id, lease_expires_at) and (room_id, owner) of leased tasks only; rev (the room's
 *                  plan_rev at the row's last write), indexed by (room_id, rev); index (room_id, owner, n).
 *   claims         (room_id, path) PK, agent_id, expires_at (ms), ttl_ms, claimed_at (ms), reason (or NULL).
 *                  Indexes (room_id, agent_id) and (room_id, expires_at).
 *   contexts       (room_id, id) PK, n (creation order), type, author, changed_seq (rooms.ctx_seq at the last
 *                  write or update, compared with cursors.ctx_mark), json (the ContextEntry record). Indexes
 *                  (room_id, changed_seq) and (room_id, type, n): VIEW_INDEXES.
 *   context_history  one row per earlier version, rowid = insertion order; json (a ContextVersion).
 *   events         (room_id, seq) PK, type, from_agent, to_agent, ts (ms), payload (JSON text), reply_to (id or
 *                  NULL). The id is "evt-<seq>". Index (room_id, to_agent, seq) serves consume and remaining.
 *   event_reads    (room_id, seq, agent_id) PK; rowid keeps insertion order for read_by.
 *   cursors        (room_id, agent_id) PK, seq (last consumed, NULL before the first), ctx_mark (rooms.ctx_seq
 *                  at the agent's previous summary, 0 before the first).
 *   presence       (room_id, agent_id) PK, last_seen (ms), status_text (NULL when never given), left_at (ms of
 *                  leave_room, NULL once the agent calls again).
 *   locks          (room_id, resource) PK, holder (NULL once released), expires_at (ms), fence. The row is kept
 *                  after release or expiry so the fence only grows.
 *   vars           (room_id, key) PK, value (TEXT, byte for byte).
 *   idempotency    (room_id, key) PK, fingerprint (sha256 hex of tool + arguments), result (the operation's
 *                  result as JSON), at (ms); kept 24 h (LIMITS.idempotencyKeepMs), then ignored and swept.
 *   invites        (room_id, token_id) PK, team_id (issuer), digest (sha256 hex of the token), created_at and
 *                  expires_at (ms), agent_id (NULL = bound to "invite:<tokenId>"), hint. Index (room_id, digest).
 *
 * Team and limiter rows (not room rows):
 *
 *   keys           key_id PK, team_id, kind ("dynamic" | "operator"), digest UNIQUE (sha256 hex of the secret),
 *                  created_at (ms), note, bound_agent_id (NULL when absent), hint; from KEY_LIFE on, expires_at and
 *                  last_used_at (ms), scope (JSON), rotated_to. Index team_id.
 *   rate_counts    per bucket: n = rate_hits rows currently kept for it, last_at = its newest hit (for the sweep).
 *   rate_hits      one row per admitted request: bucket ("team:<teamId>:<tools|meta>",
 *                  "agent:<teamId>:<agentId>:tools" or "invite:<roomId>:<tokenId>:<tools|meta>"), at (ms). Index (bucket, at) serves the sliding window.
 *
 * rooms is also indexed by (owner, last_activity): the per-team room count and listRooms.
 */
import { Database } from "bun:sqlite";
import { dirname } from "node:path";
import { keepPrivate, makePrivateDir, privateFile } from "../../files.ts";
import { roomTables } from "../room-state.ts";

/** Schema version 1: the tables as first shipped (idempotent, so it also runs on files made before versions). */
const V1 = `
CREATE TABLE IF NOT EXISTS rooms (
  room_id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_activity INTEGER NOT NULL,
  plan_created_at INTEGER,
  plan_updated_at INTEGER,
  task_n INTEGER NOT NULL DEFAULT 0,
  ctx_n INTEGER NOT NULL DEFAULT 0,
  ctx_seq INTEGER NOT NULL DEFAULT 0,
  event_seq INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX IF NOT EXISTS rooms_by_activity ON rooms (last_activity);
CREATE INDEX IF NOT EXISTS rooms_by_owner ON rooms (owner, last_activity);
CREATE TABLE IF NOT EXISTS tasks (
  room_id TEXT NOT NULL,
  id TEXT NOT NULL,
  n INTEGER NOT NULL,
  owner TEXT,
  json TEXT NOT NULL,
  PRIMARY KEY (room_id, id)
) STRICT;
CREATE INDEX IF NOT EXISTS tasks_by_order ON tasks (room_id, n);
CREATE TABLE IF NOT EXISTS contexts (
  room_id TEXT NOT NULL,
  id TEXT NOT NULL,
  n INTEGER NOT NULL,
  type TEXT NOT NULL,
  author TEXT NOT NULL,
  changed_seq INTEGER NOT NULL,
  json TEXT NOT NULL,
  PRIMARY KEY (room_id, id)
) STRICT;
CREATE INDEX IF NOT EXISTS contexts_by_order ON contexts (room_id, n);
CREATE TABLE IF NOT EXISTS context_history (
  room_id TEXT NOT NULL,
  id TEXT NOT NULL,
  json TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS context_history_by_entry ON context_history (room_id, id);
CREATE TABLE IF NOT EXISTS events (
  room_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  from_agent TEXT NOT NULL,
  to_agent TEXT NOT NULL,
  ts INTEGER NOT NULL,
  payload TEXT NOT NULL,
  reply_to TEXT,
  PRIMARY KEY (room_id, seq)
) STRICT;
CREATE INDEX IF NOT EXISTS events_by_address ON events (room_id, to_agent, seq);
CREATE TABLE IF NOT EXISTS event_reads (
  room_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  agent_id TEXT NOT NULL,
  PRIMARY KEY (room_id, seq, agent_id)
) STRICT;
CREATE TABLE IF NOT EXISTS cursors (
  room_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  seq INTEGER,
  ctx_mark INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (room_id, agent_id)
) STRICT;
CREATE TABLE IF NOT EXISTS presence (
  room_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  last_seen INTEGER NOT NULL,
  status_text TEXT,
  PRIMARY KEY (room_id, agent_id)
) STRICT;
CREATE TABLE IF NOT EXISTS locks (
  room_id TEXT NOT NULL,
  resource TEXT NOT NULL,
  holder TEXT,
  expires_at INTEGER NOT NULL,
  fence INTEGER NOT NULL,
  PRIMARY KEY (room_id, resource)
) STRICT;
CREATE TABLE IF NOT EXISTS vars (
  room_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (room_id, key)
) STRICT;
CREATE TABLE IF NOT EXISTS idempotency (
  room_id TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  result TEXT NOT NULL,
  at INTEGER NOT NULL,
  PRIMARY KEY (room_id, key)
) STRICT;
CREATE INDEX IF NOT EXISTS idempotency_by_age ON idempotency (at);
CREATE TABLE IF NOT EXISTS invites (
  room_id TEXT NOT NULL,
  token_id TEXT NOT NULL,
  team_id TEXT NOT NULL,
  digest TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  agent_id TEXT,
  hint TEXT NOT NULL,
  PRIMARY KEY (room_id, token_id)
) STRICT;
CREATE INDEX IF NOT EXISTS invites_by_digest ON invites (room_id, digest);
CREATE TABLE IF NOT EXISTS keys (
  key_id TEXT PRIMARY KEY,
  team_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  digest TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  note TEXT,
  bound_agent_id TEXT,
  hint TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS keys_by_team ON keys (team_id);
CREATE TABLE IF NOT EXISTS rate_hits (
  bucket TEXT NOT NULL,
  at INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS rate_hits_by_bucket ON rate_hits (bucket, at);
CREATE TABLE IF NOT EXISTS rate_counts (
  bucket TEXT PRIMARY KEY,
  n INTEGER NOT NULL,
  last_at INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS rate_counts_by_last ON rate_counts (last_at);
`;

/**
 * Version 2: counts kept as the room changes, so the public summary and `remaining` cost
 * O(1) instead of O(room) — task counts by status and the context count on the room row, the number of events
 * addressed to each recipient, and per cursor the number of addressed events consumed so far. Backfilled from the
 * rows of files made by version 1.
 */
const V2 = `
ALTER TABLE rooms ADD COLUMN n_pending INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rooms ADD COLUMN n_in_progress INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rooms ADD COLUMN n_done INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rooms ADD COLUMN n_blocked INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rooms ADD COLUMN n_contexts INTEGER NOT NULL DEFAULT 0;
UPDATE rooms SET
  n_pending = (SELECT count(*) FROM tasks t WHERE t.room_id = rooms.room_id AND json_extract(t.json, '$.status') = 'pending'),
  n_in_progress = (SELECT count(*) FROM tasks t WHERE t.room_id = rooms.room_id AND json_extract(t.json, '$.status') = 'in_progress'),
  n_done = (SELECT count(*) FROM tasks t WHERE t.room_id = rooms.room_id AND json_extract(t.json, '$.status') = 'done'),
  n_blocked = (SELECT count(*) FROM tasks t WHERE t.room_id = rooms.room_id AND json_extract(t.json, '$.status') = 'blocked'),
  n_contexts = (SELECT count(*) FROM contexts c WHERE c.room_id = rooms.room_id);
CREATE TABLE addr_counts (
  room_id TEXT NOT NULL,
  to_agent TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (room_id, to_agent)
) STRICT;
INSERT INTO addr_counts (room_id, to_agent, n) SELECT room_id, to_agent, count(*) FROM events GROUP BY room_id, to_agent;
ALTER TABLE cursors ADD COLUMN delivered INTEGER NOT NULL DEFAULT 0;
UPDATE cursors SET delivered = (SELECT count(*) FROM events e WHERE e.room_id = cursors.room_id
  AND e.seq <= coalesce(cursors.seq, 0) AND e.to_agent IN ('all', cursors.agent_id));
`;

/**
 * Signals (types.ts SignalKind): a counter per room and kind, bumped in the writing transaction, so another process
 * sharing the file notices a signal by comparing counters (sqlite/feed.ts).
 */
const SIGNALS = `
CREATE TABLE signals (
  room_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  v INTEGER NOT NULL,
  PRIMARY KEY (room_id, kind)
) STRICT;
`;

/**
 * The rest of the earlier server's tools (search, deletions, reviews, analytics):
 * - events: `posted` (1 for events posted by agents with post_event/reply_to_event: only those may be deleted),
 *   `deleted_by` / `deleted_at` (a tombstone: payload {} and who deleted it when).
 * - search_docs: one row per searchable document of a room (doc = task, context or event id): len (tokens), terms
 *   (JSON token → count), room ("r" + hex of the room id: one FTS5 token naming the room) and body (the document's
 *   tokens, FTS-encoded, protocol/search.ts ftsToken). search_fts is its FTS5 index (external content, kept by
 *   triggers), so deleting a room's search_docs rows empties its part of the index.
 * - reviews: (room_id, id) PK, n (request order), json (the Review record).
 * - context_reads: when each context event was first delivered to each agent (analytics).
 */
const TOOLS = `
ALTER TABLE events ADD COLUMN posted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE events ADD COLUMN deleted_by TEXT;
ALTER TABLE events ADD COLUMN deleted_at INTEGER;
CREATE TABLE search_docs (
  room_id TEXT NOT NULL,
  doc TEXT NOT NULL,
  len INTEGER NOT NULL,
  terms TEXT NOT NULL,
  room TEXT NOT NULL,
  body TEXT NOT NULL,
  UNIQUE (room_id, doc)
) STRICT;
CREATE VIRTUAL TABLE search_fts USING fts5(
  room, body, content = 'search_docs', content_rowid = 'rowid', tokenize = 'unicode61 remove_diacritics 0'
);
CREATE TRIGGER search_docs_added AFTER INSERT ON search_docs BEGIN
  INSERT INTO search_fts (rowid, room, body) VALUES (new.rowid, new.room, new.body);
END;
CREATE TRIGGER search_docs_removed AFTER DELETE ON search_docs BEGIN
  INSERT INTO search_fts (search_fts, rowid, room, body) VALUES ('delete', old.rowid, old.room, old.body);
END;
CREATE TABLE reviews (
  room_id TEXT NOT NULL,
  id TEXT NOT NULL,
  n INTEGER NOT NULL,
  json TEXT NOT NULL,
  PRIMARY KEY (room_id, id)
) STRICT;
CREATE TABLE context_reads (
  room_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  agent_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  PRIMARY KEY (room_id, seq, agent_id)
) STRICT;
`;

/**
 *  * Leases, file claims and leave_room (docs/protocol.md#task-leases, #file-claims): a leased task keeps its lease's expiry and length in
 * columns (the JSON carries lease_expires_at too), with partial indexes so an agent holding no lease costs one
 * index probe; claims are rows of their own; presence remembers when an agent left.
 */
const CLAIMS = `
ALTER TABLE tasks ADD COLUMN lease_expires_at INTEGER;
ALTER TABLE tasks ADD COLUMN lease_ms INTEGER;
CREATE INDEX tasks_leased_by_expiry ON tasks (room_id, lease_expires_at) WHERE lease_expires_at IS NOT NULL;
CREATE INDEX tasks_leased_by_owner ON tasks (room_id, owner) WHERE lease_expires_at IS NOT NULL;
ALTER TABLE presence ADD COLUMN left_at INTEGER;
CREATE TABLE claims (
  room_id TEXT NOT NULL,
  path TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  ttl_ms INTEGER NOT NULL,
  claimed_at INTEGER NOT NULL,
  reason TEXT,
  PRIMARY KEY (room_id, path)
) STRICT;
CREATE INDEX claims_by_agent ON claims (room_id, agent_id);
CREATE INDEX claims_by_expiry ON claims (room_id, expires_at);
`;

/**
 * Webhooks (store/types.ts WebhookStore), all room rows:
 *
 *   webhooks        (room_id, webhook_id) PK, n (creation order), url, types (JSON array, [] = every type),
 *                   description, created_at (ms), active (1/0), drops (events dropped in a row), last_delivery_at
 *                   (ms or NULL), log_n (attempts logged so far). No secret: it is derived from the id.
 *   webhook_outbox  (room_id, seq, webhook_id) PK: one row per event still to deliver to a webhook; attempt (the
 *                   next try's number) and due_at (ms: when it is due, or — while claimed — when the claim's lease
 *                   runs out; the lease's value is the claim's token). Index (room_id, due_at).
 *   webhook_log     (room_id, webhook_id, n) PK: the webhook's attempt number n (1-based, log_n at the time) as
 *                   JSON; only the newest 100 are kept.
 */
const WEBHOOKS = `
CREATE TABLE webhooks (
  room_id TEXT NOT NULL,
  webhook_id TEXT NOT NULL,
  n INTEGER NOT NULL,
  url TEXT NOT NULL,
  types TEXT NOT NULL,
  description TEXT,
  created_at INTEGER NOT NULL,
  active INTEGER NOT NULL DEFAULT 1,
  drops INTEGER NOT NULL DEFAULT 0,
  last_delivery_at INTEGER,
  log_n INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (room_id, webhook_id)
) STRICT;
CREATE TABLE webhook_outbox (
  room_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  webhook_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  due_at INTEGER NOT NULL,
  PRIMARY KEY (room_id, seq, webhook_id)
) STRICT;
CREATE INDEX webhook_outbox_by_due ON webhook_outbox (room_id, due_at);
CREATE TABLE webhook_log (
  room_id TEXT NOT NULL,
  webhook_id TEXT NOT NULL,
  n INTEGER NOT NULL,
  json TEXT NOT NULL,
  PRIMARY KEY (room_id, webhook_id, n)
) STRICT;
`;

/**
 * People in the room (docs/people.md): the driver of each room, approvals, handoffs and verdicts (each record's JSON,
 * numbered in creation order), each agent's marks of what the bridge and get_my_summary delivered to it, the
 * event index by type (people's messages, steers and interrupts are found without walking the log), the room a
 * fork came from, and the log head at which each context version became current (so a fork rebuilds context as
 * it stood at any seq; rows written before this version have NULL and are placed by their timestamp). Human keys
 * and invites carry a humanId.
 */
const PEOPLE = `
CREATE TABLE drivers (
  room_id TEXT PRIMARY KEY,
  holder TEXT,
  holder_kind TEXT,
  epoch INTEGER NOT NULL,
  since INTEGER NOT NULL
) STRICT;
CREATE TABLE approvals (
  room_id TEXT NOT NULL,
  id TEXT NOT NULL,
  n INTEGER NOT NULL,
  json TEXT NOT NULL,
  PRIMARY KEY (room_id, id)
) STRICT;
CREATE TABLE handoffs (
  room_id TEXT NOT NULL,
  id TEXT NOT NULL,
  n INTEGER NOT NULL,
  json TEXT NOT NULL,
  PRIMARY KEY (room_id, id)
) STRICT;
CREATE TABLE verdicts (
  room_id TEXT NOT NULL,
  id TEXT NOT NULL,
  n INTEGER NOT NULL,
  json TEXT NOT NULL,
  PRIMARY KEY (room_id, id)
) STRICT;
CREATE TABLE agent_marks (
  room_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (room_id, agent_id, kind)
) STRICT;
CREATE INDEX events_by_type ON events (room_id, type, seq);
ALTER TABLE rooms ADD COLUMN forked_from TEXT;
ALTER TABLE contexts ADD COLUMN at_seq INTEGER;
ALTER TABLE context_history ADD COLUMN at_seq INTEGER;
ALTER TABLE keys ADD COLUMN human_id TEXT;
ALTER TABLE invites ADD COLUMN human_id TEXT;
`;

/**
 * Integration of forks with the other records: `rooms.id_floors` (JSON {handoff, approval, verdict}: the highest n
 * of each such id a fork's copied log names), so a fork's own handoffs, approvals and verdicts never reuse an id its
 * log already names (those records are not copied).
 */
const FORK_FLOORS = `
ALTER TABLE rooms ADD COLUMN id_floors TEXT;
`;

/**
 * Event retention (EVENT_RETENTION_DAYS / EVENT_RETENTION_MAX, trimmed by the appends themselves): rooms.trimmed_seq
 * is the last seq trimmed (0: nothing trimmed; every event up to it is gone), and addr_counts.trimmed how many of
 * the events addressed to each recipient went, so `remaining` stays exact for a cursor left behind the trimmed range.
 */
const RETENTION = `
ALTER TABLE rooms ADD COLUMN trimmed_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE addr_counts ADD COLUMN trimmed INTEGER NOT NULL DEFAULT 0;
`;

/**
 * The web surfaces (docs/web.md). People's sessions: one row per signed-in browser, keyed by the SHA-256 digest of the
 * session id (the id itself is never stored), with the record as JSON, its end and when that end last moved. The
 * teams a key was ever stored for (the operators' team list), filled from the keys already there. Not room tables.
 */
const WEB = `
CREATE TABLE sessions (
  digest TEXT PRIMARY KEY,
  json TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  renewed_at INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_by_expiry ON sessions (expires_at);
CREATE TABLE teams (
  team_id TEXT PRIMARY KEY,
  first_key_at INTEGER NOT NULL
) STRICT;
INSERT INTO teams (team_id, first_key_at) SELECT team_id, min(created_at) FROM keys GROUP BY team_id;
`;

/**
 * A room's small values (protocol/room-values.ts): every declared kind in this one table, the value its JSON text,
 * so a new kind needs no migration.
 */
const VALUES = `
CREATE TABLE room_values (
  room_id TEXT NOT NULL,
  piece TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (room_id, piece, key)
) STRICT;
`;

/** Suspended agents (protocol/suspensions.ts): one row per agent suspended in a room, `at` in ms. */
const SUSPENSIONS = `
CREATE TABLE suspensions (
  room_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  by_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  reason TEXT NOT NULL,
  PRIMARY KEY (room_id, agent_id)
) STRICT;
`;

/**
 * Keys with a lifetime and a scope (docs/security.md#key-lifetime-and-scopes): when a key stops working (ms; NULL:
 * never), its last admitted use (ms, written at most once a minute), its scope as JSON {rooms?, readOnly?} (NULL:
 * the whole team) and, once rotated, its successor's id. Not room tables.
 */
const KEY_LIFE = `
ALTER TABLE keys ADD COLUMN expires_at INTEGER;
ALTER TABLE keys ADD COLUMN last_used_at INTEGER;
ALTER TABLE keys ADD COLUMN scope TEXT;
ALTER TABLE keys ADD COLUMN rotated_to TEXT;
`;

/**
 * OAuth grants (store/oauth-types.ts), team records like keys: each grant as JSON, and every digest of a code or token
 * it holds or held (role "code", "access", "refresh" or "spent"). Not room tables: a grant's room is in its JSON.
 */
const OAUTH = `
CREATE TABLE oauth_grants (
  grant_id TEXT PRIMARY KEY,
  team_id TEXT NOT NULL,
  key_id TEXT,
  json TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX oauth_grants_by_team ON oauth_grants (team_id, expires_at);
CREATE TABLE oauth_digests (
  digest TEXT PRIMARY KEY,
  team_id TEXT NOT NULL,
  grant_id TEXT NOT NULL,
  role TEXT NOT NULL
) STRICT;
CREATE INDEX oauth_digests_by_grant ON oauth_digests (team_id, grant_id);
`;

/**
 * The plan's revision (store/sql/task-cache.ts): `rooms.plan_rev` counts the writes to the room's tasks and each task
 * row keeps the count of its last write (`tasks.rev`, indexed), so a process that kept a room's plan at revision R
 * reads only the rows written since. `rooms.plan_base` names the room's run of revisions: made anew when the room is
 * made, and whenever a task row is deleted (a delete leaves no row to read), so a plan kept under another base is read
 * whole. Triggers keep both, so no write path can forget them: a write of a task's json, owner or order (the columns
 * a plan is made of; the lease columns travel in its json) or a new task takes the next revision, a deleted one a new
 * base.
 */
const PLAN_REVISIONS = `
ALTER TABLE rooms ADD COLUMN plan_base TEXT NOT NULL DEFAULT '';
ALTER TABLE rooms ADD COLUMN plan_rev INTEGER NOT NULL DEFAULT 0;
UPDATE rooms SET plan_base = lower(hex(randomblob(8)));
ALTER TABLE tasks ADD COLUMN rev INTEGER NOT NULL DEFAULT 0;
CREATE INDEX tasks_by_rev ON tasks (room_id, rev);
CREATE TRIGGER tasks_rev_insert AFTER INSERT ON tasks BEGIN
  UPDATE rooms SET plan_rev = plan_rev + 1 WHERE room_id = NEW.room_id;
  UPDATE tasks SET rev = coalesce((SELECT plan_rev FROM rooms WHERE room_id = NEW.room_id), 0)
    WHERE room_id = NEW.room_id AND id = NEW.id;
END;
CREATE TRIGGER tasks_rev_update AFTER UPDATE OF json, owner, n ON tasks BEGIN
  UPDATE rooms SET plan_rev = plan_rev + 1 WHERE room_id = NEW.room_id;
  UPDATE tasks SET rev = coalesce((SELECT plan_rev FROM rooms WHERE room_id = NEW.room_id), 0)
    WHERE room_id = NEW.room_id AND id = NEW.id;
END;
CREATE TRIGGER tasks_rev_delete AFTER DELETE ON tasks BEGIN
  UPDATE rooms SET plan_rev = plan_rev + 1, plan_base = lower(hex(randomblob(8))) WHERE room_id = OLD.room_id;
END;
`;

/**
 * Views read from indexes: how many context entries changed since an agent's mark (its summary) is a range of
 * (room_id, changed_seq), the entries of one type (list_context by type) a range of (room_id, type, n) in order, and
 * an agent's own tasks (its summary, the bridge's digest) a range of (room_id, owner, n); each read every entry or
 * task of the room before.
 */
const VIEW_INDEXES = `
CREATE INDEX contexts_by_change ON contexts (room_id, changed_seq);
CREATE INDEX contexts_by_type ON contexts (room_id, type, n);
CREATE INDEX tasks_by_owner ON tasks (room_id, owner, n);
`;

/**
 * Migrations by PRAGMA user_version: MIGRATIONS[i] takes a file from version i to i + 1. Append only; a branch
 * adding one puts it last.
 */
const MIGRATIONS = [
  V1,
  V2,
  SIGNALS,
  TOOLS,
  CLAIMS,
  WEBHOOKS,
  PEOPLE,
  FORK_FLOORS,
  RETENTION,
  WEB,
  VALUES,
  KEY_LIFE,
  SUSPENSIONS,
  OAUTH,
  PLAN_REVISIONS,
  VIEW_INDEXES,
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Every table holding room rows, from the declaration of room state; purging a room deletes from each. */
export const ROOM_TABLES = roomTables("sqlite");

/** How long a statement waits for another connection's write lock before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * Brings the file to SCHEMA_VERSION, one migration per transaction. The version is read again inside the
 * IMMEDIATE transaction, so processes opening the file at once apply each step exactly once. A file written by a
 * newer roomd is refused rather than misread.
 */
function migrate(db: Database): void {
  const version = () =>
    db.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version ?? 0;
  if (version() > SCHEMA_VERSION) {
    throw new Error(
      `the file has schema version ${version()}, newer than this roomd (${SCHEMA_VERSION}); upgrade roomd`,
    );
  }
  for (let step = 0; step < SCHEMA_VERSION; step++) {
    db.transaction(() => {
      if (version() !== step) return;
      db.exec(MIGRATIONS[step] as string);
      db.exec(`PRAGMA user_version = ${step + 1}`);
    }).immediate();
  }
}

/**
 * Opens (creating if needed) the database file with the PRAGMAs every connection needs and creates the schema.
 * The busy timeout is set before anything else, so a second process opening the file mid-write waits. The file is
 * its owner's only (0600) before SQLite opens it, and its directory 0700 when this makes it; SQLite gives the
 * -wal and -shm it creates the database file's mode.
 */
export function openDatabase(path: string, busyTimeoutMs = BUSY_TIMEOUT_MS): Database {
  let db: Database | undefined;
  try {
    if (path !== ":memory:") {
      makePrivateDir(dirname(path));
      privateFile(path);
      keepPrivate([`${path}-wal`, `${path}-shm`]);
    }
    db = new Database(path, { create: true, strict: true });
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    db.exec("PRAGMA journal_mode = WAL");
    // NORMAL is durable across application crashes in WAL mode; only an OS crash may lose the last commits.
    db.exec("PRAGMA synchronous = NORMAL");
    migrate(db);
    return db;
  } catch (cause) {
    db?.close();
    // Fail at construction with what to fix, keeping SQLite's own error as the cause.
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new Error(`Cannot open the SQLite store at ${path} (check SQLITE_PATH): ${reason}`, { cause });
  }
}
