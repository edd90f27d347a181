/**
 * The PostgreSQL schema: the same tables as the SQLite driver's (src/store/sqlite/schema.ts describes each column),
 * with PostgreSQL types — BIGINT for times in ms, sequence numbers and counters; TEXT in the "C" collation
 * (byte order, like SQLite and Redis, whatever the database's locale); an explicit `rowid` BIGSERIAL where the
 * SQLite driver relies on insertion order. Search keeps its documents in `search_docs` and ranks them in TS
 * (protocol/search.ts); candidate documents are found through `search_terms` (one row per token of a document).
 *
 * Versioned migrations in `roomd_schema`, applied at start under an advisory lock, so processes starting at once
 * apply each step exactly once; a database written by a newer roomd is refused rather than misread.
 */
import { roomTables } from "../room-state.ts";
import type { Pg } from "./db.ts";

const V1 = `
CREATE DOMAIN rtext AS text COLLATE "C";
CREATE TABLE rooms (
  room_id rtext PRIMARY KEY,
  owner rtext NOT NULL,
  created_at BIGINT NOT NULL,
  last_activity BIGINT NOT NULL,
  plan_created_at BIGINT,
  plan_updated_at BIGINT,
  task_n BIGINT NOT NULL DEFAULT 0,
  ctx_n BIGINT NOT NULL DEFAULT 0,
  ctx_seq BIGINT NOT NULL DEFAULT 0,
  event_seq BIGINT NOT NULL DEFAULT 0,
  n_pending BIGINT NOT NULL DEFAULT 0,
  n_in_progress BIGINT NOT NULL DEFAULT 0,
  n_done BIGINT NOT NULL DEFAULT 0,
  n_blocked BIGINT NOT NULL DEFAULT 0,
  n_contexts BIGINT NOT NULL DEFAULT 0,
  forked_from rtext
);
CREATE INDEX rooms_by_activity ON rooms (last_activity);
CREATE INDEX rooms_by_owner ON rooms (owner, last_activity);
CREATE TABLE tasks (
  room_id rtext NOT NULL,
  id rtext NOT NULL,
  n BIGINT NOT NULL,
  owner rtext,
  json rtext NOT NULL,
  lease_expires_at BIGINT,
  lease_ms BIGINT,
  PRIMARY KEY (room_id, id)
);
CREATE INDEX tasks_by_order ON tasks (room_id, n);
CREATE INDEX tasks_leased_by_expiry ON tasks (room_id, lease_expires_at) WHERE lease_expires_at IS NOT NULL;
CREATE INDEX tasks_leased_by_owner ON tasks (room_id, owner) WHERE lease_expires_at IS NOT NULL;
CREATE TABLE contexts (
  room_id rtext NOT NULL,
  id rtext NOT NULL,
  n BIGINT NOT NULL,
  type rtext NOT NULL,
  author rtext NOT NULL,
  changed_seq BIGINT NOT NULL,
  json rtext NOT NULL,
  at_seq BIGINT,
  PRIMARY KEY (room_id, id)
);
CREATE INDEX contexts_by_order ON contexts (room_id, n);
CREATE TABLE context_history (
  rowid BIGSERIAL PRIMARY KEY,
  room_id rtext NOT NULL,
  id rtext NOT NULL,
  json rtext NOT NULL,
  at_seq BIGINT
);
CREATE INDEX context_history_by_entry ON context_history (room_id, id, rowid);
CREATE TABLE events (
  room_id rtext NOT NULL,
  seq BIGINT NOT NULL,
  type rtext NOT NULL,
  from_agent rtext NOT NULL,
  to_agent rtext NOT NULL,
  ts BIGINT NOT NULL,
  payload rtext NOT NULL,
  reply_to rtext,
  posted BIGINT NOT NULL DEFAULT 0,
  deleted_by rtext,
  deleted_at BIGINT,
  PRIMARY KEY (room_id, seq)
);
CREATE INDEX events_by_address ON events (room_id, to_agent, seq);
CREATE INDEX events_by_type ON events (room_id, type, seq);
CREATE TABLE event_reads (
  rowid BIGSERIAL,
  room_id rtext NOT NULL,
  seq BIGINT NOT NULL,
  agent_id rtext NOT NULL,
  PRIMARY KEY (room_id, seq, agent_id)
);
CREATE TABLE cursors (
  room_id rtext NOT NULL,
  agent_id rtext NOT NULL,
  seq BIGINT,
  ctx_mark BIGINT NOT NULL DEFAULT 0,
  delivered BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (room_id, agent_id)
);
CREATE TABLE addr_counts (
  room_id rtext NOT NULL,
  to_agent rtext NOT NULL,
  n BIGINT NOT NULL,
  PRIMARY KEY (room_id, to_agent)
);
CREATE TABLE presence (
  room_id rtext NOT NULL,
  agent_id rtext NOT NULL,
  last_seen BIGINT NOT NULL,
  status_text rtext,
  left_at BIGINT,
  PRIMARY KEY (room_id, agent_id)
);
CREATE TABLE locks (
  room_id rtext NOT NULL,
  resource rtext NOT NULL,
  holder rtext,
  expires_at BIGINT NOT NULL,
  fence BIGINT NOT NULL,
  PRIMARY KEY (room_id, resource)
);
CREATE TABLE vars (
  room_id rtext NOT NULL,
  key rtext NOT NULL,
  value rtext NOT NULL,
  PRIMARY KEY (room_id, key)
);
CREATE TABLE idempotency (
  rowid BIGSERIAL,
  room_id rtext NOT NULL,
  key rtext NOT NULL,
  fingerprint rtext NOT NULL,
  result rtext NOT NULL,
  at BIGINT NOT NULL,
  PRIMARY KEY (room_id, key)
);
CREATE INDEX idempotency_by_age ON idempotency (at);
CREATE TABLE invites (
  rowid BIGSERIAL,
  room_id rtext NOT NULL,
  token_id rtext NOT NULL,
  team_id rtext NOT NULL,
  digest rtext NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  agent_id rtext,
  hint rtext NOT NULL,
  human_id rtext,
  PRIMARY KEY (room_id, token_id)
);
CREATE INDEX invites_by_digest ON invites (room_id, digest);
CREATE INDEX invites_by_expiry ON invites (expires_at);
CREATE TABLE keys (
  rowid BIGSERIAL,
  key_id rtext PRIMARY KEY,
  team_id rtext NOT NULL,
  kind rtext NOT NULL,
  digest rtext NOT NULL UNIQUE,
  created_at BIGINT NOT NULL,
  note rtext,
  bound_agent_id rtext,
  hint rtext NOT NULL,
  human_id rtext
);
CREATE INDEX keys_by_team ON keys (team_id);
CREATE TABLE rate_hits (
  rowid BIGSERIAL PRIMARY KEY,
  bucket rtext NOT NULL,
  at BIGINT NOT NULL
);
CREATE INDEX rate_hits_by_bucket ON rate_hits (bucket, at);
CREATE TABLE rate_counts (
  bucket rtext PRIMARY KEY,
  n BIGINT NOT NULL,
  last_at BIGINT NOT NULL
);
CREATE INDEX rate_counts_by_last ON rate_counts (last_at);
-- One charge of a sliding window (rate.ts): the bucket's rate_counts row, locked, serialises its charges, so a
-- charge is one statement and holds the lock only while it runs. Its commit need not wait for the disk: losing
-- the last moments of a rate window in a crash admits a few requests more, nothing else.
CREATE FUNCTION roomd_rate_charge(p_bucket text, p_now bigint, p_window bigint, p_limit bigint)
RETURNS TABLE (allowed boolean, remaining bigint, reset_ms bigint) LANGUAGE plpgsql AS $$
DECLARE
  kept bigint;
  expired bigint;
  live bigint;
  first_at bigint;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  LOOP
    SELECT rc.n INTO kept FROM rate_counts rc WHERE rc.bucket = p_bucket FOR UPDATE;
    EXIT WHEN FOUND;
    INSERT INTO rate_counts (bucket, n, last_at) VALUES (p_bucket, 0, p_now - p_window)
      ON CONFLICT (bucket) DO NOTHING;
  END LOOP;
  DELETE FROM rate_hits h WHERE h.bucket = p_bucket AND h.at <= p_now - p_window;
  GET DIAGNOSTICS expired = ROW_COUNT;
  live := kept - expired;
  IF live >= p_limit THEN
    UPDATE rate_counts rc SET n = live, last_at = greatest(rc.last_at, p_now - p_window) WHERE rc.bucket = p_bucket;
  ELSE
    INSERT INTO rate_hits (bucket, at) VALUES (p_bucket, p_now);
    UPDATE rate_counts rc SET n = live + 1, last_at = greatest(rc.last_at, p_now) WHERE rc.bucket = p_bucket;
    IF p_limit - live - 1 > 0 THEN
      RETURN QUERY SELECT true, p_limit - live - 1, 0::bigint;
      RETURN;
    END IF;
  END IF;
  SELECT h.at INTO first_at FROM rate_hits h WHERE h.bucket = p_bucket ORDER BY h.at LIMIT 1;
  RETURN QUERY SELECT live < p_limit, 0::bigint, greatest(1, coalesce(first_at, p_now) + p_window - p_now);
END
$$;
CREATE TABLE claims (
  rowid BIGSERIAL,
  room_id rtext NOT NULL,
  path rtext NOT NULL,
  agent_id rtext NOT NULL,
  expires_at BIGINT NOT NULL,
  ttl_ms BIGINT NOT NULL,
  claimed_at BIGINT NOT NULL,
  reason rtext,
  PRIMARY KEY (room_id, path)
);
CREATE INDEX claims_by_agent ON claims (room_id, agent_id);
CREATE INDEX claims_by_expiry ON claims (room_id, expires_at);
CREATE TABLE search_docs (
  rowid BIGSERIAL,
  room_id rtext NOT NULL,
  doc rtext NOT NULL,
  len BIGINT NOT NULL,
  terms rtext NOT NULL,
  PRIMARY KEY (room_id, doc)
);
CREATE TABLE search_terms (
  room_id rtext NOT NULL,
  token rtext NOT NULL,
  doc rtext NOT NULL,
  PRIMARY KEY (room_id, token, doc)
);
CREATE TABLE reviews (
  room_id rtext NOT NULL,
  id rtext NOT NULL,
  n BIGINT NOT NULL,
  json rtext NOT NULL,
  PRIMARY KEY (room_id, id)
);
CREATE TABLE context_reads (
  room_id rtext NOT NULL,
  seq BIGINT NOT NULL,
  agent_id rtext NOT NULL,
  at BIGINT NOT NULL,
  PRIMARY KEY (room_id, seq, agent_id)
);
CREATE TABLE webhooks (
  room_id rtext NOT NULL,
  webhook_id rtext NOT NULL,
  n BIGINT NOT NULL,
  url rtext NOT NULL,
  types rtext NOT NULL,
  description rtext,
  created_at BIGINT NOT NULL,
  active BIGINT NOT NULL DEFAULT 1,
  drops BIGINT NOT NULL DEFAULT 0,
  last_delivery_at BIGINT,
  log_n BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (room_id, webhook_id)
);
CREATE TABLE webhook_outbox (
  room_id rtext NOT NULL,
  seq BIGINT NOT NULL,
  webhook_id rtext NOT NULL,
  attempt BIGINT NOT NULL,
  due_at BIGINT NOT NULL,
  PRIMARY KEY (room_id, seq, webhook_id)
);
CREATE INDEX webhook_outbox_by_due ON webhook_outbox (room_id, due_at);
CREATE TABLE webhook_log (
  room_id rtext NOT NULL,
  webhook_id rtext NOT NULL,
  n BIGINT NOT NULL,
  json rtext NOT NULL,
  PRIMARY KEY (room_id, webhook_id, n)
);
CREATE TABLE drivers (
  room_id rtext PRIMARY KEY,
  holder rtext,
  holder_kind rtext,
  epoch BIGINT NOT NULL,
  since BIGINT NOT NULL
);
CREATE TABLE approvals (
  room_id rtext NOT NULL,
  id rtext NOT NULL,
  n BIGINT NOT NULL,
  json rtext NOT NULL,
  PRIMARY KEY (room_id, id)
);
CREATE TABLE handoffs (
  room_id rtext NOT NULL,
  id rtext NOT NULL,
  n BIGINT NOT NULL,
  json rtext NOT NULL,
  PRIMARY KEY (room_id, id)
);
CREATE TABLE verdicts (
  room_id rtext NOT NULL,
  id rtext NOT NULL,
  n BIGINT NOT NULL,
  json rtext NOT NULL,
  PRIMARY KEY (room_id, id)
);
CREATE TABLE agent_marks (
  room_id rtext NOT NULL,
  agent_id rtext NOT NULL,
  kind rtext NOT NULL,
  seq BIGINT NOT NULL,
  PRIMARY KEY (room_id, agent_id, kind)
);
`;

/**
 * What the SQLite driver gained in its migrations FORK_FLOORS, RETENTION and WEB (src/store/sqlite/schema.ts):
 * - `rooms.id_floors` (JSON {handoff, approval, verdict}): the highest n of each such id a fork's copied log names,
 *   so a fork's own handoffs, approvals and verdicts never reuse an id its log already names;
 * - event retention: `rooms.trimmed_seq`, the last seq trimmed (0: none; every event up to it is gone), and
 *   `addr_counts.trimmed`, how many of the events addressed to each recipient went, so `remaining` stays exact for
 *   a cursor left behind the trimmed range;
 * - the web surfaces: people's sessions by the SHA-256 digest of their id (the id itself is never stored), and the
 *   teams a key was ever stored for (the operators' team list), filled from the keys already there. Neither is a
 *   room table.
 */
const V2 = `
ALTER TABLE rooms ADD COLUMN id_floors rtext;
ALTER TABLE rooms ADD COLUMN trimmed_seq BIGINT NOT NULL DEFAULT 0;
ALTER TABLE addr_counts ADD COLUMN trimmed BIGINT NOT NULL DEFAULT 0;
CREATE TABLE sessions (
  digest rtext PRIMARY KEY,
  json rtext NOT NULL,
  expires_at BIGINT NOT NULL,
  renewed_at BIGINT NOT NULL
);
CREATE INDEX sessions_by_expiry ON sessions (expires_at);
CREATE TABLE teams (
  team_id rtext PRIMARY KEY,
  first_key_at BIGINT NOT NULL
);
INSERT INTO teams (team_id, first_key_at) SELECT team_id, min(created_at) FROM keys GROUP BY team_id;
`;

/**
 * A room's small values (protocol/room-values.ts): every declared kind in this one table, the value its JSON text,
 * so a new kind needs no migration.
 */
const V3 = `
CREATE TABLE room_values (
  room_id rtext NOT NULL,
  piece rtext NOT NULL,
  key rtext NOT NULL,
  value rtext NOT NULL,
  PRIMARY KEY (room_id, piece, key)
);
`;

/**
 * Keys with a lifetime and a scope, as the SQLite driver's KEY_LIFE migration (src/store/sqlite/schema.ts): expiry
 * and last use (ms), the scope as JSON {rooms?, readOnly?} and, once rotated, the successor's id.
 */
const V4 = `
ALTER TABLE keys ADD COLUMN expires_at BIGINT;
ALTER TABLE keys ADD COLUMN last_used_at BIGINT;
ALTER TABLE keys ADD COLUMN scope rtext;
ALTER TABLE keys ADD COLUMN rotated_to rtext;
`;

/**
 * Suspended agents (protocol/suspensions.ts): one row per agent suspended in a room, `at` in ms.
 *
 * A request charged to its team's window and its agent's (AGENT_RATE_LIMIT_PER_MINUTE, protocol/rate-pair.ts):
 * roomd_rate_window locks a bucket's count row (made when missing) and forgets its expired hits, giving the requests
 * it holds now; roomd_rate_charge_pair measures the team's bucket, then the agent's (always in that order, so two
 * charges never wait on each other crosswise), and records the request in both or in neither. With p_agent NULL it
 * charges the team's bucket alone, as roomd_rate_charge does (and `shown` is NULL). `shown` names the window the answer
 * describes: the refusing one ("team" first), else the one with fewer requests left (the agent's on a tie).
 */
const V5 = `
CREATE TABLE suspensions (
  room_id rtext NOT NULL,
  agent_id rtext NOT NULL,
  by_id rtext NOT NULL,
  at BIGINT NOT NULL,
  reason rtext NOT NULL,
  PRIMARY KEY (room_id, agent_id)
);
CREATE FUNCTION roomd_rate_window(p_bucket text, p_now bigint, p_window bigint)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  kept bigint;
  expired bigint;
BEGIN
  LOOP
    SELECT rc.n INTO kept FROM rate_counts rc WHERE rc.bucket = p_bucket FOR UPDATE;
    EXIT WHEN FOUND;
    INSERT INTO rate_counts (bucket, n, last_at) VALUES (p_bucket, 0, p_now - p_window)
      ON CONFLICT (bucket) DO NOTHING;
  END LOOP;
  DELETE FROM rate_hits h WHERE h.bucket = p_bucket AND h.at <= p_now - p_window;
  GET DIAGNOSTICS expired = ROW_COUNT;
  RETURN kept - expired;
END
$$;
CREATE FUNCTION roomd_rate_charge_pair(
  p_bucket text, p_agent text, p_now bigint, p_window bigint, p_limit bigint, p_agent_limit bigint)
RETURNS TABLE (allowed boolean, remaining bigint, reset_ms bigint, shown text) LANGUAGE plpgsql AS $$
DECLARE
  team_live bigint;
  agent_live bigint := 0;
  pick text;
  shown_as text;
  pick_bucket text;
  left_after bigint;
  first_at bigint;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  team_live := roomd_rate_window(p_bucket, p_now, p_window);
  IF p_agent IS NOT NULL THEN agent_live := roomd_rate_window(p_agent, p_now, p_window); END IF;
  IF team_live >= p_limit OR (p_agent IS NOT NULL AND agent_live >= p_agent_limit) THEN
    UPDATE rate_counts rc SET n = team_live, last_at = greatest(rc.last_at, p_now - p_window)
      WHERE rc.bucket = p_bucket;
    IF p_agent IS NOT NULL THEN
      UPDATE rate_counts rc SET n = agent_live, last_at = greatest(rc.last_at, p_now - p_window)
        WHERE rc.bucket = p_agent;
    END IF;
    pick := CASE WHEN team_live >= p_limit THEN 'team' ELSE 'agent' END;
    shown_as := CASE WHEN p_agent IS NULL THEN NULL ELSE pick END;
    pick_bucket := CASE WHEN pick = 'team' THEN p_bucket ELSE p_agent END;
    SELECT h.at INTO first_at FROM rate_hits h WHERE h.bucket = pick_bucket ORDER BY h.at LIMIT 1;
    RETURN QUERY SELECT false, 0::bigint, greatest(1, coalesce(first_at, p_now) + p_window - p_now), shown_as;
    RETURN;
  END IF;
  INSERT INTO rate_hits (bucket, at) VALUES (p_bucket, p_now);
  UPDATE rate_counts rc SET n = team_live + 1, last_at = greatest(rc.last_at, p_now) WHERE rc.bucket = p_bucket;
  IF p_agent IS NOT NULL THEN
    INSERT INTO rate_hits (bucket, at) VALUES (p_agent, p_now);
    UPDATE rate_counts rc SET n = agent_live + 1, last_at = greatest(rc.last_at, p_now) WHERE rc.bucket = p_agent;
  END IF;
  IF p_agent IS NULL OR p_limit - team_live < p_agent_limit - agent_live THEN
    pick := 'team';
    pick_bucket := p_bucket;
    left_after := p_limit - team_live - 1;
  ELSE
    pick := 'agent';
    pick_bucket := p_agent;
    left_after := p_agent_limit - agent_live - 1;
  END IF;
  shown_as := CASE WHEN p_agent IS NULL THEN NULL ELSE pick END;
  IF left_after > 0 THEN
    RETURN QUERY SELECT true, left_after, 0::bigint, shown_as;
    RETURN;
  END IF;
  SELECT h.at INTO first_at FROM rate_hits h WHERE h.bucket = pick_bucket ORDER BY h.at LIMIT 1;
  RETURN QUERY SELECT true, 0::bigint, greatest(1, coalesce(first_at, p_now) + p_window - p_now), shown_as;
END
$$;
`;

/**
 * OAuth grants (store/oauth-types.ts), team records like keys: each grant as JSON, and every digest of a code or token
 * it holds or held (role "code", "access", "refresh" or "spent"). Not room tables: a grant's room is in its JSON.
 */
const V6 = `
CREATE TABLE oauth_grants (
  grant_id rtext PRIMARY KEY,
  team_id rtext NOT NULL,
  key_id rtext,
  json rtext NOT NULL,
  expires_at BIGINT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX oauth_grants_by_team ON oauth_grants (team_id, expires_at);
CREATE TABLE oauth_digests (
  digest rtext PRIMARY KEY,
  team_id rtext NOT NULL,
  grant_id rtext NOT NULL,
  role rtext NOT NULL
);
CREATE INDEX oauth_digests_by_grant ON oauth_digests (team_id, grant_id);
`;

/**
 * The plan's revision (store/sql/task-cache.ts), as in SQLite's schema (PLAN_REVISIONS): `rooms.plan_rev` counts the
 * writes to the room's tasks, `tasks.rev` (indexed) is the count at a row's last write, `rooms.plan_base` is made anew
 * with the room and whenever a task row is deleted. A write holds the room's row while it takes the next revision, so
 * revisions of one room are committed in order whatever process writes.
 */
const V7 = `
ALTER TABLE rooms ADD COLUMN plan_base rtext NOT NULL DEFAULT '';
ALTER TABLE rooms ADD COLUMN plan_rev BIGINT NOT NULL DEFAULT 0;
UPDATE rooms SET plan_base = md5(gen_random_uuid()::text);
ALTER TABLE tasks ADD COLUMN rev BIGINT NOT NULL DEFAULT 0;
CREATE INDEX tasks_by_rev ON tasks (room_id, rev);
CREATE FUNCTION roomd_task_rev() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE rooms SET plan_rev = plan_rev + 1, plan_base = md5(gen_random_uuid()::text) WHERE room_id = OLD.room_id;
    RETURN OLD;
  END IF;
  UPDATE rooms SET plan_rev = plan_rev + 1 WHERE room_id = NEW.room_id RETURNING plan_rev INTO NEW.rev;
  NEW.rev := coalesce(NEW.rev, 0);
  RETURN NEW;
END
$$;
CREATE TRIGGER tasks_rev_write BEFORE INSERT OR UPDATE OF json, owner, n ON tasks
  FOR EACH ROW EXECUTE FUNCTION roomd_task_rev();
CREATE TRIGGER tasks_rev_delete AFTER DELETE ON tasks FOR EACH ROW EXECUTE FUNCTION roomd_task_rev();
`;

/** Views read from indexes, as in SQLite's schema (VIEW_INDEXES). */
const V8 = `
CREATE INDEX contexts_by_change ON contexts (room_id, changed_seq);
CREATE INDEX contexts_by_type ON contexts (room_id, type, n);
CREATE INDEX tasks_by_owner ON tasks (room_id, owner, n);
`;

/** Migrations: MIGRATIONS[i] takes a database from version i to i + 1. Append only. */
const MIGRATIONS = [V1, V2, V3, V4, V5, V6, V7, V8];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Every table holding room rows, from the declaration of room state (rooms last); a purge deletes from each. */
export const ROOM_TABLES = roomTables("postgres");

/** The advisory lock key migrations run under (any process starting at the same time waits for the first). */
const MIGRATION_LOCK = "roomd:schema";

/**
 * Brings the database to SCHEMA_VERSION (or to `target`, below it: the tests' databases of an earlier version),
 * each step in its own transaction under the migration lock. A step (and the wait of processes starting meanwhile)
 * is not bounded by STORE_TIMEOUT_MS: a migration of a large table may take longer than any one call should.
 */
export async function migrate(pg: Pg, target: number = SCHEMA_VERSION): Promise<void> {
  for (;;) {
    const done = await pg.write(
      [],
      async () => {
        await pg.query("SET LOCAL statement_timeout = 0").run();
        await pg.query("SET LOCAL lock_timeout = 0").run();
        await pg.lock(MIGRATION_LOCK);
        await pg
          .query(
            "CREATE TABLE IF NOT EXISTS roomd_schema (id INT PRIMARY KEY CHECK (id = 1), version INT NOT NULL)",
          )
          .run();
        const row = await pg
          .query<{ version: number }, []>("SELECT version FROM roomd_schema WHERE id = 1")
          .get();
        const version = row?.version ?? 0;
        if (version > SCHEMA_VERSION) {
          throw new Error(
            `the database has schema version ${version}, newer than this roomd (${SCHEMA_VERSION}); upgrade roomd`,
          );
        }
        if (version >= target) return true;
        await pg.query(MIGRATIONS[version] as string).run();
        await pg
          .query(
            "INSERT INTO roomd_schema (id, version) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET version = ?",
          )
          .run(version + 1, version + 1);
        return false;
      },
      "migrate",
    );
    if (done) return;
  }
}
