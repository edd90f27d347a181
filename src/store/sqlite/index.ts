/**
 * The embedded SQLite driver: one file, any number of roomd processes. Each RoomStore operation is one
 * transaction (BEGIN IMMEDIATE for writes), built from the per-area modules next to this file.
 */
import { LIMITS } from "../../protocol/limits.ts";
import type { Summary } from "../../protocol/records.ts";
import { contextFields, eventFields, taskFields } from "../../protocol/search.ts";
import { type Clock, systemClock } from "../../protocol/time.ts";
import { DEFAULT_STORE_LIMITS, type StoreLimits } from "../access-types.ts";
import { type EventRetention, NO_RETENTION } from "../move-types.ts";
import { synced } from "../sql/adapt.ts";
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
import { runSync } from "../sql/run.ts";
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
import { sqliteClient } from "./client.ts";
import { createSqliteDialect } from "./dialect.ts";
import { createSqliteFeed } from "./feed.ts";
import { createFork } from "./fork.ts";
import { createInvites } from "./invites.ts";
import { createKeys } from "./keys.ts";
import { createMoving } from "./moving.ts";
import { createRate } from "./rate.ts";
import { frozenClock, roomTransactions } from "./room-tx.ts";
import type { StoreParts } from "./rooms.ts";
import { openDatabase } from "./schema.ts";
import { createSessions } from "./sessions.ts";
import { mapError } from "./tx.ts";
import { createWebhooks } from "./webhooks.ts";

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
}

/** A RoomStore plus the maintenance hook the driver runs on its own timer. */
export interface SqliteRoomStore extends RoomStore {
  /**
   * Deletes every expired room with all its rows and invites, expired invites, ended sessions and rate hits older than an hour;
   * returns how many rooms went.
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

/** Opens (and if needed creates) the database at options.path; throws when the file cannot be opened. */
export function createSqliteStore(options: SqliteStoreOptions): SqliteRoomStore {
  // One instant per room write, as a Redis script has (its NOW): the renewal after the operation sets the same
  // expiries the operation just wrote, and every time a write records is the same.
  const clock = frozenClock(options.now ?? systemClock);
  const now = clock.now;
  const db = openDatabase(options.path, options.busyTimeoutMs);
  const rate = createRate(db, now);
  const changes = createSqliteFeed(db);
  const sql = sqliteClient(db);
  const dialect = createSqliteDialect(db, sql, rate, options.retention ?? NO_RETENTION);
  const base: SqlBase = { sql, now, changes, dialect };
  const sharedRooms = createRooms(base, options.limits ?? DEFAULT_STORE_LIMITS);
  const rooms = synced(sharedRooms);
  const parts: StoreParts = { db, now, rooms, changes };
  /** Best-effort refresh after a read committed; a busy or failed touch must not fail the read. */
  const flushReadTouch = () => {
    for (const roomId of sharedRooms.takeTouches()) {
      try {
        runSync(sharedRooms.touch(roomId));
      } catch {
        // The read already succeeded; the next use refreshes the room.
      }
    }
  };
  /** Deletes up to a batch of expired rooms with all their rows; returns how many (inside a write). */
  const sweepRooms = () => {
    const ids = rooms.expired();
    for (const id of ids) rooms.purge(id);
    return ids.length;
  };
  const keys = createKeys(db, rate);
  const invites = createInvites(parts, rate);
  const shared: SqlParts = { ...base, rooms: sharedRooms };
  const sharedEvents = createEvents(shared);
  const events = synced(sharedEvents);
  const sharedLocks = createLocks(shared);
  const locks = synced(sharedLocks);
  const sharedLeases = createLeases(shared, sharedEvents, sharedLocks);
  const leases = synced(sharedLeases);
  const sharedPlan = createPlan(shared, sharedEvents, sharedLocks, sharedLeases);
  const plan = synced(sharedPlan);
  const sharedContext = createContext(shared, sharedEvents);
  const context = synced(sharedContext);
  const sharedPresence = createPresence(shared);
  const presence = synced(sharedPresence);
  const sharedClaims = createClaims(shared, sharedEvents, sharedPresence.list);
  const claims = synced(sharedClaims);
  const renewal = synced({ renew: dialect.renew });
  const vars = synced(createVars(shared, sharedEvents));
  const sharedAdmin = createAdminRooms(shared, sharedPresence.list);
  const admin = synced(sharedAdmin);
  const search = synced(dialect.search);
  const planEdits = synced(createPlanEdits(shared, sharedEvents, sharedLocks, sharedLeases));
  const contextEdits = synced(createContextEdits(shared, sharedEvents));
  const eventEdits = synced(createEventEdits(shared, sharedEvents));
  const reviews = synced(createReviews(shared, sharedEvents));
  const roomTools = synced(
    createRoomTools(shared, {
      events: sharedEvents,
      locks: sharedLocks,
      plan: sharedPlan,
      context: sharedContext,
    }),
  );
  const webhooks = createWebhooks(parts, events);
  const sharedDriver = createDriver(shared, sharedEvents);
  const driver = synced(sharedDriver);
  const leave = synced(createLeave(shared, sharedEvents, sharedLeases, sharedClaims, sharedDriver));
  const approvals = synced(createApprovals(shared, sharedEvents));
  const handoffs = synced(createHandoffs(shared, sharedEvents, sharedLocks, sharedLeases));
  const verdicts = synced(createVerdicts(shared, sharedEvents));
  const sharedMailbox = createMailbox(shared, {
    events: sharedEvents,
    driver: sharedDriver,
    plan: sharedPlan,
    presence: sharedPresence,
  });
  const mailbox = synced(sharedMailbox);
  const fork = createFork(parts, events, driver, search);
  const info = synced(createRoomInfo(shared, sharedDriver, sharedAdmin.taskCounts));
  const moving = createMoving(parts, driver, search);
  const room = roomTransactions(
    db,
    createRoomTx(shared),
    {
      afterRead: flushReadTouch,
      afterWrite: (committed) => (committed ? changes.committed() : changes.rolledBack()),
      mark: changes.mark,
      discard: changes.discard,
    },
    clock,
  );
  const { read, write } = room.plain;
  const leaveRoom = room.write(leave.leaveRoom);
  const pruneKept = db.query<unknown, [number]>(
    "DELETE FROM idempotency WHERE rowid IN (SELECT rowid FROM idempotency WHERE at < ? LIMIT 500)",
  );

  const markContext = db.query<unknown, [string, string, number]>(
    `INSERT INTO cursors (room_id, agent_id, seq, ctx_mark) VALUES (?1, ?2, NULL, ?3)
     ON CONFLICT (room_id, agent_id) DO UPDATE SET ctx_mark = excluded.ctx_mark`,
  );
  const contextMark = db.query<{ ctx_mark: number }, [string, string]>(
    "SELECT ctx_mark FROM cursors WHERE room_id = ? AND agent_id = ?",
  );
  const ping = db.query("SELECT 1");

  /** get_my_summary: heartbeat, consume, and the context count since the previous summary, all in one tx. */
  function summary(scope: RoomScope, agentId: string, limit: number): Summary {
    // Never claims (revisions §3.11): a room not owned yet answers the empty summary and records nothing.
    if (!rooms.check(scope)) {
      const unread = { events: [], cursor: null, count: 0, remaining: 0 };
      return { ...emptySummary(scope, agentId), unreadEvents: unread };
    }
    const room = rooms.claim(scope);
    presence.beat(scope.roomId, agentId);
    // Taken before the cursor moves: people's messages lead the summary whatever the backlog (humans.md §2).
    const messages = mailbox.takeMessages(scope.roomId, agentId);
    // The summary is a heartbeat: it renews the agent's leases and claims like any call naming it.
    renewal.renew(scope.roomId, agentId, now());
    const unreadEvents = events.deliver(scope, room, agentId, limit, true);
    eventEdits.delivered(scope.roomId, agentId, unreadEvents.events);
    const mark = contextMark.get(scope.roomId, agentId)?.ctx_mark ?? 0;
    const newContextCount = context.countChangedSince(scope.roomId, mark);
    markContext.run(scope.roomId, agentId, room.ctx_seq);
    return {
      agentId,
      roomId: scope.roomId,
      roomExists: true,
      messages,
      myTasks: plan.myTasks(scope.roomId, agentId),
      unreadEvents,
      newContextCount,
      presence: presence.list(scope.roomId),
      cursor: unreadEvents.cursor,
    };
  }

  // The writes that keep the search index (and the deletable-event mark, the delivery times) in step, inside the
  // same transaction as the write itself.
  function addTask(scope: RoomScope, input: NewTask) {
    const task = plan.addTask(scope, input);
    search.put(scope.roomId, task.id, taskFields(task));
    return task;
  }
  function updateTask(scope: RoomScope, input: TaskUpdate) {
    const task = plan.updateTask(scope, input);
    if (input.title !== undefined || input.description !== undefined) {
      search.put(scope.roomId, task.id, taskFields(task));
    }
    return task;
  }
  function writeContext(scope: RoomScope, input: NewContext) {
    const entry = context.writeContext(scope, input);
    search.put(scope.roomId, entry.id, contextFields(entry));
    return entry;
  }
  function updateContext(scope: RoomScope, input: ContextUpdate) {
    const entry = context.updateContext(scope, input);
    if (input.summary !== undefined || input.payload !== undefined) {
      search.put(scope.roomId, entry.id, contextFields(entry));
    }
    return entry;
  }
  function postEvent(scope: RoomScope, input: NewEvent) {
    const event = events.postEvent(scope, input);
    eventEdits.posted(scope.roomId, event.seq);
    search.put(scope.roomId, event.id, eventFields(event));
    return event;
  }
  function consumeEvents(scope: RoomScope, agentId: string, limit: number) {
    const batch = events.consumeEvents(scope, agentId, limit);
    eventEdits.delivered(scope.roomId, agentId, batch.events);
    return batch;
  }
  function searchRoom(scope: RoomScope, query: SearchQuery) {
    const room = rooms.read(scope);
    return room ? search.search(room.room_id, query) : [];
  }

  // Auth without a rate charge writes nothing, so it takes no write lock; with one it is a write (committed with
  // the other writes of the same turn, group-commit.ts).
  const [resolveKeyRead, resolveKeyCharged] = [read(keys.resolveKey), write(keys.resolveKey)];
  const [resolveInviteRead, resolveInviteCharged] = [
    read(invites.resolveInvite),
    write(invites.resolveInvite),
  ];

  const sessions = createSessions(db, now);
  const [peekSession, renewSession] = [read(sessions.peekSession), write(sessions.renewSession)];

  const sweepBatch = write(sweepRooms);
  const pruneBatches = [
    write(invites.pruneBatch),
    write(rate.pruneBatch),
    write(() => pruneKept.run(now() - LIMITS.idempotencyKeepMs).changes),
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

  return {
    driver: "sqlite",
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
      (request ? resolveKeyCharged : resolveKeyRead)(teamId, digest, request),
    createKey: write(keys.createKey),
    provisionTeam: write(keys.provisionTeam),
    listKeys: read(keys.listKeys),
    deleteKey: write(keys.deleteKey),
    listTeams: read(keys.listTeams),
    consumeRate: write(keys.consumeRate),
    createInvite: write(invites.createInvite),
    resolveInvite: (roomId, digest, request) =>
      (request ? resolveInviteCharged : resolveInviteRead)(roomId, digest, request),
    listInvites: read(invites.listInvites),
    deleteInvite: write(invites.deleteInvite),
    createRoom: write(admin.createRoom),
    listRooms: read(admin.listRooms),
    deleteRoom: write(admin.deleteRoom),
    deleteIdleRoom: write(admin.deleteIdleRoom),
    roomStats: read(admin.roomStats),
    roomSummary: read((roomId: string, teamId?: string) => {
      const view = admin.roomSummary(roomId, teamId);
      const forkedFrom = view && info.forkedFrom(roomId);
      return view && forkedFrom ? { ...view, forkedFrom } : view;
    }),
    createWebhook: write(webhooks.createWebhook),
    listWebhooks: read(webhooks.listWebhooks),
    deleteWebhook: write(webhooks.deleteWebhook),
    webhookDeliveries: read(webhooks.webhookDeliveries),
    logTestDelivery: write(webhooks.logTestDelivery),
    webhookRooms: read(webhooks.webhookRooms),
    claimDeliveries: write(webhooks.claimDeliveries),
    recordDelivery: write(webhooks.recordDelivery),
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
    importRoom: room.write(moving.importRoom),
    teamsToMove: read(moving.teamsToMove),
    keyDigests: read(moving.keyDigests),
    inviteDigests: read(moving.inviteDigests),
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
