/**
 * The PostgreSQL driver: any number of roomd processes on one database. Each RoomStore operation is one
 * transaction (db.ts) running its shared body (store/sql/) with every statement awaited (runner.ts): a write holds
 * the advisory lock of its room (and of its team when it may claim a room or changes team records), so writes to
 * one room take turns across every process while different rooms proceed in parallel; a read is one REPEATABLE
 * READ snapshot. What is PostgreSQL's own is here: the schema, the connection, the change feed, search, the rate
 * limiter, sessions and the sweep.
 */
import { errors, RoomError, StoreFault } from "../../protocol/errors.ts";
import { LIMITS } from "../../protocol/limits.ts";
import { VALUE_PIECES, type ValuePieces } from "../../protocol/room-values.ts";
import { type Clock, systemClock } from "../../protocol/time.ts";
import { DEFAULT_STORE_LIMITS, type StoreLimits } from "../access-types.ts";
import { type EventRetention, NO_RETENTION } from "../move-types.ts";
import { agentBucket, chargedAgent, teamBucket } from "../rate-buckets.ts";
import { roomLock } from "../sql/parts.ts";
import { createRoomTx } from "../sql/room-tx.ts";
import { createRooms } from "../sql/rooms.ts";
import { type Op, runAsync } from "../sql/run.ts";
import { createBodies, sqlStore } from "../sql/store.ts";
import type { RoomStore } from "../types.ts";
import { createChargedLookups } from "./charged.ts";
import { pgClient } from "./client.ts";
import { mapError, openPg } from "./db.ts";
import { createPgDialect } from "./dialect.ts";
import { createPgFeed } from "./feed.ts";
import { createRate } from "./rate.ts";
import { pgRunner } from "./runner.ts";
import { migrate } from "./schema.ts";
import { createSessions } from "./sessions.ts";

export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database[?sslmode=…] */
  url: string;
  /** Clock for every timestamp and expiry; defaults to the system clock. */
  now?: Clock;
  /** Limits enforced inside the store's transactions; defaults to DEFAULT_STORE_LIMITS. */
  limits?: StoreLimits;
  /** STORE_TIMEOUT_MS: the longest any statement, lock wait or connection attempt may take. Default 5 s. */
  timeoutMs?: number;
  /** Connections in this process's pool (DATABASE_POOL_SIZE); default 10. */
  poolSize?: number;
  /** Event retention every append applies (EVENT_RETENTION_DAYS / EVENT_RETENTION_MAX); none by default. */
  retention?: EventRetention;
  /** The kinds of small value the store keeps; protocol/room-values.ts VALUE_PIECES by default. */
  values?: ValuePieces;
}

/** A RoomStore plus the maintenance step the driver runs on its own timer. */
export interface PostgresRoomStore extends RoomStore {
  /**
   * Purges every expired room (one transaction each), then expired invites, idle rate windows, old kept results and
   * ended sessions.
   */
  sweepExpired(): Promise<number>;
}

/** How often expired rooms are swept (reads and writes already treat them as absent in between). */
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;
/** Kept idempotency results deleted per sweep step. */
const PRUNE_KEPT_BATCH = 500;

/**
 * Opens the pool and brings the schema up to date. A database that cannot be reached yet does not stop the start:
 * every operation answers store_unavailable until it can, and the migration runs before the first that succeeds.
 * Any other migration failure (a schema newer than this roomd, missing privileges) is thrown.
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresRoomStore> {
  const clock = options.now ?? systemClock;
  const pg = openPg({ url: options.url, timeoutMs: options.timeoutMs ?? 5000, max: options.poolSize });
  // One instant per transaction, as a Redis script has (its NOW) and the SQLite driver's writes: the renewal after
  // an operation sets the same expiries the operation just wrote, and every time a write records is the same.
  const now: Clock = () => pg.txValue("now", () => clock()) ?? clock();
  const rate = createRate(pg, now);
  const changes = createPgFeed(pg);
  const sql = pgClient(pg);
  const dialect = createPgDialect(pg, sql, rate, options.retention ?? NO_RETENTION);
  const base = { sql, now, changes, dialect, values: options.values ?? VALUE_PIECES };
  const rooms = createRooms(base, options.limits ?? DEFAULT_STORE_LIMITS);
  const parts = { ...base, rooms };
  const bodies = createBodies(parts);
  const run = pgRunner(pg, now, rooms, createRoomTx(parts));
  const charged = createChargedLookups(sql, now, rooms, bodies.keys, rate);
  const sessions = createSessions(pg, now);
  const pruneKept = pg.query<unknown, [number, number]>(
    `DELETE FROM idempotency WHERE (room_id, key) IN
     (SELECT room_id, key FROM idempotency WHERE at < ? LIMIT ?)`,
  );
  const ping = pg.query("SELECT 1");
  const sweepTimeout = pg.query("SET LOCAL statement_timeout = '10min'");

  /** An operation of one statement, in a transaction of its own (autocommit), its errors mapped. */
  const alone =
    <A extends unknown[], T>(fn: (...args: A) => Promise<T>, name = fn.name) =>
    async (...args: A): Promise<T> => {
      try {
        return await fn(...args);
      } catch (error) {
        mapError(error, name);
      }
    };
  const aloneBody = <A extends unknown[], T>(body: (...args: A) => Op<T>) =>
    alone((...args: A) => runAsync(body(...args)), body.name);

  // Auth without a rate charge writes nothing, so it is a read; with one it is one statement (the lookup and the
  // charge), so no transaction is wrapped around it.
  const [resolveKeyRead, resolveKeyCharged] = [
    run.read(bodies.keys.resolveKey),
    aloneBody(charged.resolveKey),
  ];
  const [resolveInviteRead, resolveInviteCharged] = [
    run.read(bodies.invites.resolveInvite),
    aloneBody(charged.resolveInvite),
  ];

  // A rate charge, a prune, locks its own rows (rate.ts): nothing else to lock.
  const none = () => [];
  const expiredRooms = run.read(rooms.expired);
  const purgeExpired = (roomId: string) =>
    pg.write(
      [roomLock(roomId)],
      async () => {
        // Checked again under the room's lock: a write may have used it since it was listed.
        if (await runAsync(rooms.live(roomId))) return false;
        // A long-lived room can have more rows than STORE_TIMEOUT_MS lets one DELETE remove; nobody waits on it.
        await sweepTimeout.run();
        await runAsync(rooms.purge(roomId));
        return true;
      },
      "purgeExpired",
    );
  const pruneBatches = [
    run.write(none, bodies.invites.pruneBatch),
    (): Promise<number> => pg.write([], rate.pruneBatch, "pruneBatch"),
    (): Promise<number> =>
      pg.write(
        [],
        async () => (await pruneKept.run(now() - LIMITS.idempotencyKeepMs, PRUNE_KEPT_BATCH)).changes,
        "pruneKept",
      ),
    alone(sessions.pruneBatch),
  ];
  async function sweepExpired(): Promise<number> {
    let total = 0;
    // One room per transaction, so a sweep never holds more than one room's lock for long.
    for (let ids = await expiredRooms(); ids.length > 0; ids = await expiredRooms()) {
      let purged = 0;
      for (const roomId of ids) if (await purgeExpired(roomId)) purged++;
      total += purged;
      if (purged === 0) break;
    }
    for (const prune of pruneBatches) while ((await prune()) > 0);
    return total;
  }

  const store: PostgresRoomStore = {
    driver: "postgres",
    changes: changes.feed,
    ...sqlStore(bodies, run),
    resolveKey: (teamId, digest, request) =>
      request ? resolveKeyCharged(teamId, digest, request) : resolveKeyRead(teamId, digest),
    // One statement (rate.ts), so no transaction around it: no BEGIN and COMMIT round trips.
    consumeRate: alone(function consumeRate(teamId, request) {
      const agent = chargedAgent(request);
      const own = agent === undefined ? undefined : agentBucket(teamId, agent, request.bucket);
      return rate.chargePair(teamBucket(teamId, request.bucket), own, request);
    }),
    resolveInvite: (roomId, digest, request) =>
      request ? resolveInviteCharged(roomId, digest, request) : resolveInviteRead(roomId, digest),
    // Each one statement (sessions.ts): no transaction around them. A touch reads, and writes only when the
    // session's end is due to move (at most once a minute) or it has ended.
    createSession: alone(sessions.createSession),
    touchSession: alone(sessions.touchSession),
    deleteSession: alone(sessions.deleteSession),
    sweepExpired,
    async ping() {
      try {
        await ping.get();
      } catch (error) {
        mapError(error, "ping");
      }
    },
    async close() {
      clearInterval(timer);
      await changes.close();
      await pg.close();
    },
  };

  const schema = await schemaGate(() => migrate(pg));
  const timer = setInterval(() => {
    (schema ?? (async () => {}))()
      .then(sweepExpired)
      .catch(() => {});
  }, SWEEP_INTERVAL_MS);
  timer.unref();
  return schema ? gate(store, schema) : store;
}

/**
 * Runs the migration now (null: done). When the database cannot be reached yet, returns a gate that runs it before
 * the next operation, answering store_unavailable until it succeeds. Any other failure is thrown.
 */
async function schemaGate(run: () => Promise<void>): Promise<(() => Promise<void>) | null> {
  try {
    await run();
    return null;
  } catch (error) {
    if (!(error instanceof RoomError && error.kind === "store_unavailable")) throw error;
  }
  let done = false;
  let pending: Promise<void> | undefined;
  return async () => {
    if (done) return;
    pending ??= run()
      .then(() => {
        done = true;
      })
      .finally(() => {
        pending = undefined;
      });
    try {
      await pending;
    } catch (error) {
      if (error instanceof RoomError || error instanceof StoreFault) throw error;
      throw errors.storeUnavailable(error);
    }
  };
}

/** The store with every operation (but close) waiting for the schema gate first. */
function gate<T extends object>(store: T, ready: () => Promise<void>): T {
  const gated: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(store)) {
    gated[name] =
      typeof value === "function" && name !== "close"
        ? async (...args: unknown[]) => {
            await ready();
            return (value as (...a: unknown[]) => unknown)(...args);
          }
        : value;
  }
  return gated as T;
}
