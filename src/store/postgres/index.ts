/**
 * The PostgreSQL driver: any number of roomd processes on one database. Each RoomStore operation is one
 * transaction (db.ts): a write holds the advisory lock of its room (and of its team when it may claim a room or
 * changes team records), so writes to one room take turns across every process while different rooms proceed in
 * parallel; a read is one REPEATABLE READ snapshot. Built from the per-area modules next to this file, which port
 * the SQLite driver's statement for statement.
 */
import { errors, RoomError, StoreFault } from "../../protocol/errors.ts";
import { LIMITS } from "../../protocol/limits.ts";
import type { Summary } from "../../protocol/records.ts";
import { contextFields, eventFields, taskFields } from "../../protocol/search.ts";
import { type Clock, systemClock } from "../../protocol/time.ts";
import { DEFAULT_STORE_LIMITS, type StoreLimits } from "../access-types.ts";
import { type EventRetention, NO_RETENTION } from "../move-types.ts";
import { awaited } from "../sql/adapt.ts";
import { createAdminRooms } from "../sql/admin-rooms.ts";
import { createApprovals } from "../sql/approvals.ts";
import { createClaims } from "../sql/claims.ts";
import { createContext } from "../sql/context.ts";
import { createContextEdits } from "../sql/context-edits.ts";
import { createDriver } from "../sql/driver.ts";
import { createEventEdits } from "../sql/event-edits.ts";
import { createEvents } from "../sql/events.ts";
import { createHandoffs } from "../sql/handoffs.ts";
import { createLeases } from "../sql/leases.ts";
import { createLeave } from "../sql/leave.ts";
import { createLocks } from "../sql/locks.ts";
import { createMailbox } from "../sql/mailbox.ts";
import type { SqlBase } from "../sql/parts.ts";
import { createPlan } from "../sql/plan.ts";
import { createPlanEdits } from "../sql/plan-edits.ts";
import { createPresence } from "../sql/presence.ts";
import { createReviews } from "../sql/reviews.ts";
import { createRoomInfo } from "../sql/room-info.ts";
import { createRoomTools } from "../sql/room-tools.ts";
import { createRoomTx } from "../sql/room-tx.ts";
import { createRooms, type SqlParts } from "../sql/rooms.ts";
import { createVars } from "../sql/vars.ts";
import { createVerdicts } from "../sql/verdicts.ts";
import type {
  ContextUpdate,
  NewContext,
  NewEvent,
  NewTask,
  RoomScope,
  RoomStore,
  SearchQuery,
  TaskUpdate,
} from "../types.ts";
import { pgClient } from "./client.ts";
import { mapError, openPg } from "./db.ts";
import { createPgDialect } from "./dialect.ts";
import { createPgFeed } from "./feed.ts";
import { createFork } from "./fork.ts";
import { createInvites } from "./invites.ts";
import { createKeys } from "./keys.ts";
import { createMoving } from "./moving.ts";
import { createRate } from "./rate.ts";
import { roomTransactions } from "./room-tx.ts";
import { roomLock, type StoreParts, teamLock } from "./rooms.ts";
import { migrate } from "./schema.ts";
import { createSessions } from "./sessions.ts";
import { createWebhooks } from "./webhooks.ts";

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
}

/** A RoomStore plus the maintenance step the driver runs on its own timer. */
export interface PostgresRoomStore extends RoomStore {
  /**
   * Purges every expired room (one transaction each), then expired invites, idle rate windows, old kept results and
   * ended sessions.
   */
  sweepExpired(): Promise<number>;
}

/** The summary of a room with no state yet. */
const emptySummary = (scope: RoomScope, agentId: string) => ({
  agentId,
  roomId: scope.roomId,
  roomExists: false,
  myTasks: [],
  newContextCount: 0,
  presence: [],
  cursor: null,
  messages: [],
});

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
  const base: SqlBase = { sql, now, changes, dialect };
  const sharedRooms = createRooms(base, options.limits ?? DEFAULT_STORE_LIMITS);
  const rooms = awaited(sharedRooms);
  const parts: StoreParts = { pg, now, rooms, changes };
  const keys = createKeys(pg, rate, now);
  const invites = createInvites(parts, rate);
  const shared: SqlParts = { ...base, rooms: sharedRooms };
  const sharedEvents = createEvents(shared);
  const events = awaited(sharedEvents);
  const sharedLocks = createLocks(shared);
  const locks = awaited(sharedLocks);
  const sharedLeases = createLeases(shared, sharedEvents, sharedLocks);
  const leases = awaited(sharedLeases);
  const sharedPlan = createPlan(shared, sharedEvents, sharedLocks, sharedLeases);
  const plan = awaited(sharedPlan);
  const sharedContext = createContext(shared, sharedEvents);
  const context = awaited(sharedContext);
  const sharedPresence = createPresence(shared);
  const presence = awaited(sharedPresence);
  const sharedClaims = createClaims(shared, sharedEvents, sharedPresence.list);
  const claims = awaited(sharedClaims);
  const renewal = awaited({ renew: dialect.renew });
  const vars = awaited(createVars(shared, sharedEvents));
  const sharedAdmin = createAdminRooms(shared, sharedPresence.list);
  const admin = awaited(sharedAdmin);
  const search = awaited(dialect.search);
  const planEdits = awaited(createPlanEdits(shared, sharedEvents, sharedLocks, sharedLeases));
  const contextEdits = awaited(createContextEdits(shared, sharedEvents));
  const eventEdits = awaited(createEventEdits(shared, sharedEvents));
  const reviews = awaited(createReviews(shared, sharedEvents));
  const roomTools = awaited(
    createRoomTools(shared, {
      events: sharedEvents,
      locks: sharedLocks,
      plan: sharedPlan,
      context: sharedContext,
    }),
  );
  const webhooks = createWebhooks(parts, events);
  const sharedDriver = createDriver(shared, sharedEvents);
  const driver = awaited(sharedDriver);
  const leave = awaited(createLeave(shared, sharedEvents, sharedLeases, sharedClaims, sharedDriver));
  const approvals = awaited(createApprovals(shared, sharedEvents));
  const handoffs = awaited(createHandoffs(shared, sharedEvents, sharedLocks, sharedLeases));
  const verdicts = awaited(createVerdicts(shared, sharedEvents));
  const sharedMailbox = createMailbox(shared, {
    events: sharedEvents,
    driver: sharedDriver,
    plan: sharedPlan,
    presence: sharedPresence,
  });
  const mailbox = awaited(sharedMailbox);
  const fork = createFork(parts, events, driver, search);
  const info = awaited(createRoomInfo(shared, sharedDriver, sharedAdmin.taskCounts));
  const moving = createMoving(parts, driver, search);
  const sessions = createSessions(pg, now);
  const room = roomTransactions(pg, now, sharedRooms, createRoomTx(shared));
  const { read, write } = room.plain;
  const leaveRoom = room.write(leave.leaveRoom);
  const pruneKept = pg.query<unknown, [number, number]>(
    `DELETE FROM idempotency WHERE (room_id, key) IN
     (SELECT room_id, key FROM idempotency WHERE at < ? LIMIT ?)`,
  );
  const markContext = pg.query<unknown, [string, string, number]>(
    `INSERT INTO cursors (room_id, agent_id, seq, ctx_mark) VALUES (?1, ?2, NULL, ?3)
     ON CONFLICT (room_id, agent_id) DO UPDATE SET ctx_mark = excluded.ctx_mark`,
  );
  const contextMark = pg.query<{ ctx_mark: number }, [string, string]>(
    "SELECT ctx_mark FROM cursors WHERE room_id = ? AND agent_id = ?",
  );
  const ping = pg.query("SELECT 1");
  const sweepTimeout = pg.query("SET LOCAL statement_timeout = '10min'");

  /** get_my_summary: heartbeat, consume, and the context count since the previous summary, all in one tx. */
  async function summary(scope: RoomScope, agentId: string, limit: number): Promise<Summary> {
    // Never claims (revisions §3.11): a room not owned yet answers the empty summary and records nothing.
    if (!(await rooms.check(scope))) {
      const unread = { events: [], cursor: null, count: 0, remaining: 0 };
      return { ...emptySummary(scope, agentId), unreadEvents: unread };
    }
    const room = await rooms.claim(scope);
    await presence.beat(scope.roomId, agentId);
    // Taken before the cursor moves: people's messages lead the summary whatever the backlog (humans.md §2).
    const messages = await mailbox.takeMessages(scope.roomId, agentId);
    // The summary is a heartbeat: it renews the agent's leases and claims like any call naming it.
    await renewal.renew(scope.roomId, agentId, now());
    const unreadEvents = await events.deliver(scope, room, agentId, limit, true);
    await eventEdits.delivered(scope.roomId, agentId, unreadEvents.events);
    const mark = (await contextMark.get(scope.roomId, agentId))?.ctx_mark ?? 0;
    const newContextCount = await context.countChangedSince(scope.roomId, mark);
    await markContext.run(scope.roomId, agentId, room.ctx_seq);
    return {
      agentId,
      roomId: scope.roomId,
      roomExists: true,
      messages,
      myTasks: await plan.myTasks(scope.roomId, agentId),
      unreadEvents,
      newContextCount,
      presence: await presence.list(scope.roomId),
      cursor: unreadEvents.cursor,
    };
  }

  // The writes that keep the search index (and the deletable-event mark, the delivery times) in step, inside the
  // same transaction as the write itself.
  async function addTask(scope: RoomScope, input: NewTask) {
    const task = await plan.addTask(scope, input);
    await search.put(scope.roomId, task.id, taskFields(task));
    return task;
  }
  async function updateTask(scope: RoomScope, input: TaskUpdate) {
    const task = await plan.updateTask(scope, input);
    if (input.title !== undefined || input.description !== undefined) {
      await search.put(scope.roomId, task.id, taskFields(task));
    }
    return task;
  }
  async function writeContext(scope: RoomScope, input: NewContext) {
    const entry = await context.writeContext(scope, input);
    await search.put(scope.roomId, entry.id, contextFields(entry));
    return entry;
  }
  async function updateContext(scope: RoomScope, input: ContextUpdate) {
    const entry = await context.updateContext(scope, input);
    if (input.summary !== undefined || input.payload !== undefined) {
      await search.put(scope.roomId, entry.id, contextFields(entry));
    }
    return entry;
  }
  async function postEvent(scope: RoomScope, input: NewEvent) {
    const event = await events.postEvent(scope, input);
    await eventEdits.posted(scope.roomId, event.seq);
    await search.put(scope.roomId, event.id, eventFields(event));
    return event;
  }
  async function consumeEvents(scope: RoomScope, agentId: string, limit: number) {
    const batch = await events.consumeEvents(scope, agentId, limit);
    await eventEdits.delivered(scope.roomId, agentId, batch.events);
    return batch;
  }
  async function searchRoom(scope: RoomScope, query: SearchQuery) {
    const found = await rooms.read(scope);
    return found ? search.search(found.room_id, query) : [];
  }
  async function roomSummary(roomId: string, teamId?: string) {
    const view = await admin.roomSummary(roomId, teamId);
    const forkedFrom = view && (await info.forkedFrom(roomId));
    return view && forkedFrom ? { ...view, forkedFrom } : view;
  }

  /** An operation of one statement, in a transaction of its own (autocommit), its errors mapped. */
  const alone =
    <A extends unknown[], T>(fn: (...args: A) => Promise<T>) =>
    async (...args: A): Promise<T> => {
      try {
        return await fn(...args);
      } catch (error) {
        mapError(error, fn.name);
      }
    };

  // Lock keys of the non-room writes: team records under the team's lock, a room's records under the room's;
  // a rate charge locks its bucket's row itself (rate.ts).
  const none = () => [];
  const byTeam = (teamId: string) => [teamLock(teamId)];
  const byKeyTeam = (key: { teamId: string }) => [teamLock(key.teamId)];
  const byRoom = (scope: { roomId: string }) => [roomLock(scope.roomId)];

  // Auth without a rate charge writes nothing, so it is a read; with one it is one statement (the lookup and the
  // charge), so no transaction is wrapped around it.
  const [resolveKeyRead, resolveKeyCharged] = [read(keys.resolveKey), alone(keys.resolveKeyCharged)];
  const [resolveInviteRead, resolveInviteCharged] = [
    read(invites.resolveInvite),
    alone(invites.resolveInviteCharged),
  ];

  const expiredRooms = read(rooms.expired);
  const purgeExpired = write(
    (roomId: string) => [roomLock(roomId)],
    async (roomId: string) => {
      // Checked again under the room's lock: a write may have used it since it was listed.
      if (await rooms.live(roomId)) return false;
      // A long-lived room can have more rows than STORE_TIMEOUT_MS lets one DELETE remove; nobody waits on it.
      await sweepTimeout.run();
      await rooms.purge(roomId);
      return true;
    },
  );
  const pruneBatches = [
    write(none, invites.pruneBatch),
    write(none, rate.pruneBatch),
    write(
      none,
      async () => (await pruneKept.run(now() - LIMITS.idempotencyKeepMs, PRUNE_KEPT_BATCH)).changes,
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
    readPlan: room.read(plan.readPlan),
    addTask: room.write(addTask),
    updateTask: room.write(updateTask),
    getTask: room.read(plan.getTask),
    summary: room.write(summary),
    writeContext: room.write(writeContext),
    readContext: room.read(context.readContext),
    contextHistory: room.read(context.contextHistory),
    listContext: room.read(context.listContext),
    updateContext: room.write(updateContext),
    postEvent: room.write(postEvent),
    readEvents: room.read(events.readEvents),
    consumeEvents: room.write(consumeEvents, (batch) => batch.count > 0),
    readLog: room.read(events.readLog),
    markEventRead: room.write(events.markEventRead),
    getEventReads: room.read(events.getEventReads),
    heartbeat: room.write(presence.heartbeat),
    getPresence: room.read(presence.getPresence),
    acquireLock: room.write(locks.acquireLock),
    releaseLock: room.write(locks.releaseLock),
    listLocks: room.read(locks.listLocks),
    setVar: room.write(vars.setVar),
    getVar: room.read(vars.getVar),
    listVars: room.read(vars.listVars),
    deleteTask: room.write(planEdits.deleteTask),
    addDependency: room.write(planEdits.addDependency),
    deleteContext: room.write(contextEdits.deleteContext),
    contextVersions: room.read(contextEdits.contextVersions),
    deleteEvent: room.write(eventEdits.deleteEvent),
    usableRooms: read(roomTools.usableRooms),
    seedRoom: room.write(roomTools.seedRoom),
    requestReview: room.write(reviews.requestReview),
    decideReview: room.write(reviews.decideReview),
    listReviews: room.read(reviews.listReviews),
    search: room.read(searchRoom),
    analyticsLog: room.read(roomTools.analyticsLog),
    claimTask: room.write(leases.claimTask),
    renewLeases: room.write(leases.renewLeases),
    // Leaving is not a visit: the actor's presence would undo "left" (the kept result still applies).
    leaveRoom: (scope, agentId) => leaveRoom({ ...scope, actor: undefined }, agentId),
    claimFiles: room.write(claims.claimFiles),
    releaseFiles: room.write(claims.releaseFiles),
    listClaims: room.read(claims.listClaims),
    checkFiles: room.read(claims.checkFiles),
    roomState: room.read(claims.roomState),
    broadcast: room.write(claims.broadcast),
    resolveKey: (teamId, digest, request) =>
      request ? resolveKeyCharged(teamId, digest, request) : resolveKeyRead(teamId, digest),
    createKey: write(byKeyTeam, keys.createKey),
    provisionTeam: write(byKeyTeam, keys.provisionTeam),
    listKeys: read(keys.listKeys),
    deleteKey: write(byTeam, keys.deleteKey),
    listTeams: read(keys.listTeams),
    // One statement (rate.ts), so no transaction around it: no BEGIN and COMMIT round trips.
    consumeRate: alone(keys.consumeRate),
    createInvite: write(byRoom, invites.createInvite),
    resolveInvite: (roomId, digest, request) =>
      request ? resolveInviteCharged(roomId, digest, request) : resolveInviteRead(roomId, digest),
    listInvites: read(invites.listInvites),
    deleteInvite: write(byRoom, invites.deleteInvite),
    // The room's lock; claiming it takes the team's as well (rooms.ts atLimit), so the room count is exact.
    createRoom: write(byRoom, admin.createRoom),
    listRooms: read(admin.listRooms),
    deleteRoom: write(byRoom, admin.deleteRoom),
    deleteIdleRoom: write(byRoom, admin.deleteIdleRoom),
    roomStats: read(admin.roomStats),
    roomSummary: read(roomSummary),
    createWebhook: write(byRoom, webhooks.createWebhook),
    listWebhooks: read(webhooks.listWebhooks),
    deleteWebhook: write(byRoom, webhooks.deleteWebhook),
    webhookDeliveries: read(webhooks.webhookDeliveries),
    logTestDelivery: write(byRoom, webhooks.logTestDelivery),
    webhookRooms: read(webhooks.webhookRooms),
    claimDeliveries: write((roomId: string) => [roomLock(roomId)], webhooks.claimDeliveries),
    recordDelivery: write((claim) => [roomLock(claim.roomId)], webhooks.recordDelivery),
    getDriver: room.read(driver.getDriver),
    takeDriver: room.write(driver.takeDriver),
    releaseDriver: room.write(driver.releaseDriver),
    driverAct: room.write(driver.driverAct),
    requestApproval: room.write(approvals.requestApproval),
    getApproval: room.read(approvals.getApproval),
    listApprovals: room.read(approvals.listApprovals),
    decideApproval: room.write(approvals.decideApproval),
    offerHandoff: room.write(handoffs.offerHandoff),
    acceptHandoff: room.write(handoffs.acceptHandoff),
    declineHandoff: room.write(handoffs.declineHandoff),
    cancelHandoff: room.write(handoffs.cancelHandoff),
    listHandoffs: room.read(handoffs.listHandoffs),
    recordVerdict: room.write(verdicts.recordVerdict),
    listVerdicts: room.read(verdicts.listVerdicts),
    forkRoom: room.write(fork.forkRoom),
    roomInfo: room.read(info.roomInfo),
    bridge: room.write(mailbox.bridge),
    exportRoom: room.read(moving.exportRoom),
    exportLog: room.read(moving.exportLog),
    // The room's lock; claiming it takes the team's as well (rooms.ts atLimit), so the room limit holds.
    importRoom: room.write(moving.importRoom),
    teamsToMove: read(moving.teamsToMove),
    keyDigests: read(moving.keyDigests),
    inviteDigests: read(moving.inviteDigests),
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
