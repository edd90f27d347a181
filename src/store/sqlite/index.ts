/**
 * The embedded SQLite driver: one file, any number of roomd processes. Each RoomStore operation is one transaction
 * (BEGIN IMMEDIATE for writes) running its shared body (store/sql/) synchronously (runner.ts); what is SQLite's
 * own is here: the schema, the transactions, the change feed, search, the rate limiter, sessions and the sweep.
 */
import { LIMITS } from "../../protocol/limits.ts";
import { keyRate } from "../../protocol/rate-pair.ts";
import { VALUE_PIECES, type ValuePieces } from "../../protocol/room-values.ts";
import { type Clock, systemClock } from "../../protocol/time.ts";
import { DEFAULT_STORE_LIMITS, type RateRequest, type StoreLimits } from "../access-types.ts";
import { type EventRetention, NO_RETENTION } from "../move-types.ts";
import { agentBucket, chargedAgent, inviteBucket, teamBucket } from "../rate-buckets.ts";
import { createRoomTx } from "../sql/room-tx.ts";
import { createRooms } from "../sql/rooms.ts";
import { runSync } from "../sql/run.ts";
import { createBodies, sqlStore } from "../sql/store.ts";
import type { RoomStore } from "../types.ts";
import { sqliteClient } from "./client.ts";
import { createSqliteDialect } from "./dialect.ts";
import { createSqliteFeed } from "./feed.ts";
import { createRate } from "./rate.ts";
import { frozenClock, sqliteRunner } from "./runner.ts";
import { openDatabase } from "./schema.ts";
import { createSessions } from "./sessions.ts";
import { mapError, transactions } from "./tx.ts";

export interface SqliteStoreOptions {
  /** Database file; its parent directory is created when missing. ":memory:" only for quick experiments. */
  path: string;
  /** Clock for every timestamp and expiry; defaults to the system clock. */
  now?: Clock;
  /** Limits enforced inside the store's transactions; defaults to DEFAULT_STORE_LIMITS. */
  limits?: StoreLimits;
  /**
   * Longest wait for another process's write lock before an operation fails with "Store unavailable" (SQLite
   * busy_timeout; bun:sqlite is synchronous, so this also bounds how long the event loop can stall). Default 5 s;
   * roomd passes STORE_TIMEOUT_MS.
   */
  busyTimeoutMs?: number;
  /** Event retention every append applies (EVENT_RETENTION_DAYS / EVENT_RETENTION_MAX); none by default. */
  retention?: EventRetention;
  /** The kinds of small value the store keeps; protocol/room-values.ts VALUE_PIECES by default. */
  values?: ValuePieces;
}

/** A RoomStore plus the maintenance hook the driver runs on its own timer. */
export interface SqliteRoomStore extends RoomStore {
  /**
   * Deletes every expired room with all its rows and invites, expired invites, ended sessions and rate hits older
   * than an hour; returns how many rooms went.
   */
  sweepExpired(): Promise<number>;
}

/** How often expired rooms are swept (reads and writes already treat them as absent in between). */
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;
/** Kept idempotency results deleted per sweep step. */
const PRUNE_KEPT_BATCH = 500;

/** Opens (and if needed creates) the database at options.path; throws when the file cannot be opened. */
export function createSqliteStore(options: SqliteStoreOptions): SqliteRoomStore {
  const clock = frozenClock(options.now ?? systemClock);
  const now = clock.now;
  const db = openDatabase(options.path, options.busyTimeoutMs);
  const rate = createRate(db, now);
  const changes = createSqliteFeed(db);
  const sql = sqliteClient(db);
  const dialect = createSqliteDialect(db, sql, rate, options.retention ?? NO_RETENTION);
  const base = { sql, now, changes, dialect, values: options.values ?? VALUE_PIECES };
  const rooms = createRooms(base, options.limits ?? DEFAULT_STORE_LIMITS);
  const parts = { ...base, rooms };
  const bodies = createBodies(parts);
  const hooks = {
    afterRead(): void {
      // Best effort, after the read committed: a busy or failed refresh must not fail the read.
      for (const roomId of rooms.takeTouches()) {
        try {
          runSync(rooms.touch(roomId));
        } catch {
          // The next use refreshes the room.
        }
      }
    },
    afterWrite: (committed: boolean) => (committed ? changes.committed() : changes.rolledBack()),
    mark: changes.mark,
    discard: changes.discard,
  };
  const run = sqliteRunner(db, createRoomTx(parts), hooks, clock);
  // Operations of this driver's own, written synchronously: they run in the same transactions.
  const { read, write } = transactions(db, hooks);
  const { keys, invites } = bodies;

  // Auth without a rate charge writes nothing, so it takes no write lock; with one it is a write (committed with
  // the other writes of the same turn, group-commit.ts).
  const resolveKeyRead = run.read(keys.resolveKey);
  /** The team's window and, with RateRequest.agent, its agent's (rate-buckets.ts chargedAgent), both or neither. */
  const chargeTeam = (teamId: string, request: RateRequest, bound?: string) => {
    const agent = chargedAgent(request, bound);
    const own = agent === undefined ? undefined : agentBucket(teamId, agent, request.bucket);
    return rate.chargePair(teamBucket(teamId, request.bucket), own, request);
  };
  // The charged lookup is a request's admission: it records the key's use, when due, in the same transaction.
  const resolveKeyCharged = write(function resolveKey(teamId: string, digest: string, request: RateRequest) {
    const found = runSync(keys.useKey(teamId, digest));
    if (!found.key) return found;
    // The key's own agent budget replaces the request's (protocol/rate-pair.ts keyRate).
    return { key: found.key, rate: chargeTeam(teamId, keyRate(request, found.key), found.key.boundAgentId) };
  });
  const resolveInviteRead = run.read(invites.resolveInvite);
  const resolveInviteCharged = write(function resolveInvite(
    roomId: string,
    digest: string,
    request: RateRequest,
  ) {
    const found = runSync(invites.resolveInvite(roomId, digest));
    if (!found.invite) return found;
    return {
      ...found,
      rate: rate.charge(inviteBucket(roomId, found.invite.tokenId, request.bucket), request),
    };
  });

  const sessions = createSessions(db, now);
  const [peekSession, renewSession] = [read(sessions.peekSession), write(sessions.renewSession)];

  const pruneKept = db.query<unknown, [number, number]>(
    "DELETE FROM idempotency WHERE rowid IN (SELECT rowid FROM idempotency WHERE at < ? LIMIT ?)",
  );
  // Up to a batch of expired rooms with all their rows, in one write.
  const sweepBatch = write(function sweepRooms() {
    const ids = runSync(rooms.expired());
    for (const id of ids) runSync(rooms.purge(id));
    return ids.length;
  });
  const pruneBatches = [
    write(() => runSync(invites.pruneBatch())),
    write(rate.pruneBatch),
    write(() => pruneKept.run(now() - LIMITS.idempotencyKeepMs, PRUNE_KEPT_BATCH).changes),
    write(sessions.pruneBatch),
  ];
  async function sweepExpired(): Promise<number> {
    let total = 0;
    // Batches keep each write transaction short, so other processes are never blocked for long.
    for (let n = await sweepBatch(); n > 0; n = await sweepBatch()) total += n;
    for (const prune of pruneBatches) while ((await prune()) > 0);
    return total;
  }
  const timer = setInterval(() => sweepExpired().catch(() => {}), SWEEP_INTERVAL_MS);
  timer.unref();
  const ping = db.query("SELECT 1");

  return {
    driver: "sqlite",
    changes: changes.feed,
    ...sqlStore(bodies, run),
    resolveKey: (teamId, digest, request) =>
      request ? resolveKeyCharged(teamId, digest, request) : resolveKeyRead(teamId, digest),
    consumeRate: write(function consumeRate(teamId: string, request: RateRequest) {
      return chargeTeam(teamId, request);
    }),
    resolveInvite: (roomId, digest, request) =>
      request ? resolveInviteCharged(roomId, digest, request) : resolveInviteRead(roomId, digest),
    createSession: write(sessions.createSession),
    // A read, and a write only when the session's end is due to move (at most once a minute) or it has ended.
    async touchSession(digest, ttlMs) {
      const seen = await peekSession(digest);
      if (seen === null) return null;
      if (seen !== "ended" && !seen.due) return seen.session;
      return renewSession(digest, ttlMs);
    },
    deleteSession: write(sessions.deleteSession),
    sweepExpired,
    async ping() {
      try {
        ping.get();
      } catch (error) {
        mapError(error);
      }
    },
    async close() {
      clearInterval(timer);
      changes.close();
      db.close();
    },
  };
}
