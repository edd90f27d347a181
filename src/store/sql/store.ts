/**
 * The RoomStore of both SQL drivers, built once from the shared bodies: each operation's body and how it runs — a
 * room write (alone on its room, with the idempotency key and the actor's presence), a room read, or a write or
 * read of team and access records. A driver supplies the Runner (its transactions) and what is its own: the rate
 * limiter's charges, web sessions, the sweep, the connection.
 */
import type { RoomStore } from "../types.ts";
import { createAdminRooms } from "./admin-rooms.ts";
import { createApprovals } from "./approvals.ts";
import { createClaims } from "./claims.ts";
import { createContext } from "./context.ts";
import { createContextEdits } from "./context-edits.ts";
import { createDriver } from "./driver.ts";
import { createEventEdits } from "./event-edits.ts";
import { createEvents } from "./events.ts";
import { createFork } from "./fork.ts";
import { createHandoffs } from "./handoffs.ts";
import { createInvites } from "./invites.ts";
import { createKeys } from "./keys.ts";
import { createLeases } from "./leases.ts";
import { createLeave } from "./leave.ts";
import { createLocks } from "./locks.ts";
import { createMailbox } from "./mailbox.ts";
import { createExport } from "./moving-export.ts";
import { createImport } from "./moving-import.ts";
import { createOAuth } from "./oauth.ts";
import { roomLock, teamLock } from "./parts.ts";
import { createPlan } from "./plan.ts";
import { createPlanEdits } from "./plan-edits.ts";
import { createPresence } from "./presence.ts";
import { createReviews } from "./reviews.ts";
import { createRoomInfo } from "./room-info.ts";
import { createRoomOps } from "./room-ops.ts";
import { createRoomTools } from "./room-tools.ts";
import type { RoomBody } from "./room-tx.ts";
import { createValues } from "./room-values.ts";
import type { SqlParts } from "./rooms.ts";
import type { Op } from "./run.ts";
import { createSuspensionCheck, createSuspensions } from "./suspensions.ts";
import { createVars } from "./vars.ts";
import { createVerdicts } from "./verdicts.ts";
import { createWebhooks } from "./webhooks.ts";

/** How a driver runs the bodies: each call is one transaction. */
export interface Runner {
  /** A room write: alone on its room, with its idempotency key and its actor's presence (room-tx.ts). */
  roomWrite<A extends unknown[], T>(
    body: RoomBody<A, T>,
    keep?: (result: T) => boolean,
  ): (...args: Parameters<RoomBody<A, T>>) => Promise<T>;
  /** A room read: one snapshot; its actor's presence is recorded after it. */
  roomRead<A extends unknown[], T>(body: RoomBody<A, T>): (...args: Parameters<RoomBody<A, T>>) => Promise<T>;
  /** Any other write, holding the records `locks` names from its first argument (roomLock, teamLock). */
  write<A extends unknown[], T>(
    locks: (first: NoInfer<A>[0]) => string[],
    body: (...args: A) => Op<T>,
  ): (...args: A) => Promise<T>;
  /** Any other read, in one snapshot. */
  read<A extends unknown[], T>(body: (...args: A) => Op<T>): (...args: A) => Promise<T>;
}

/** What each driver adds itself: the charged lookups, sessions, the sweep, the connection. */
type DriverOwn =
  | "driver"
  | "changes"
  | "resolveKey"
  | "resolveInvite"
  | "consumeRate"
  | "createSession"
  | "touchSession"
  | "deleteSession"
  | "ping"
  | "close";

/** The shared bodies a driver runs itself too (its charged lookups, its sweep). */
export function createBodies(parts: SqlParts) {
  const events = createEvents(parts);
  const locks = createLocks(parts);
  const presence = createPresence(parts);
  const leases = createLeases(parts, events, locks);
  const plan = createPlan(parts, events, locks, leases);
  const context = createContext(parts, events);
  const claims = createClaims(parts, events, presence.list);
  const driver = createDriver(parts, events);
  const admin = createAdminRooms(parts, presence.list);
  const mailbox = createMailbox(parts, { events, driver, plan, presence });
  const eventEdits = createEventEdits(parts, events);
  const values = createValues(parts);
  const leave = createLeave(
    parts,
    events,
    leases,
    claims,
    driver,
    createSuspensionCheck(parts).refuseSuspended,
  );
  return {
    events,
    locks,
    presence,
    leases,
    plan,
    context,
    claims,
    driver,
    admin,
    mailbox,
    eventEdits,
    roomOps: createRoomOps(parts, { events, eventEdits, plan, context, presence, mailbox }),
    vars: createVars(parts, events),
    values,
    planEdits: createPlanEdits(parts, events, locks, leases),
    contextEdits: createContextEdits(parts, events),
    reviews: createReviews(parts, events),
    roomTools: createRoomTools(parts, { events, locks, plan, context }),
    webhooks: createWebhooks(parts, events),
    leave,
    suspensions: createSuspensions(parts, events, leave),
    approvals: createApprovals(parts, events),
    handoffs: createHandoffs(parts, events, locks, leases),
    verdicts: createVerdicts(parts, events),
    fork: createFork(parts, events, driver, values),
    info: createRoomInfo(parts, driver, admin.taskCounts),
    exporting: createExport(parts, driver, values),
    importing: createImport(parts, driver, values),
    keys: createKeys(parts),
    invites: createInvites(parts),
    oauth: createOAuth(parts),
  };
}

export type Bodies = ReturnType<typeof createBodies>;

/** Every RoomStore operation but the driver's own, each its body run the way the Runner runs it. */
export function sqlStore(b: Bodies, run: Runner): Omit<RoomStore, DriverOwn> {
  const { roomWrite, roomRead, write, read } = run;
  const byTeam = (teamId: string) => [teamLock(teamId)];
  const byKeyTeam = (key: { teamId: string }) => [teamLock(key.teamId)];
  const byRoom = (scope: { roomId: string }) => [roomLock(scope.roomId)];
  const leaveRoom = roomWrite(b.leave.leaveRoom);
  return {
    readPlan: roomRead(b.plan.readPlan),
    addTask: roomWrite(b.roomOps.addTask),
    updateTask: roomWrite(b.roomOps.updateTask),
    getTask: roomRead(b.plan.getTask),
    summary: roomWrite(b.roomOps.summary),
    writeContext: roomWrite(b.roomOps.writeContext),
    readContext: roomRead(b.context.readContext),
    contextHistory: roomRead(b.context.contextHistory),
    listContext: roomRead(b.context.listContext),
    updateContext: roomWrite(b.roomOps.updateContext),
    postEvent: roomWrite(b.roomOps.postEvent),
    readEvents: roomRead(b.events.readEvents),
    consumeEvents: roomWrite(b.roomOps.consumeEvents, (batch) => batch.count > 0),
    readLog: roomRead(b.events.readLog),
    markEventRead: roomWrite(b.events.markEventRead),
    getEventReads: roomRead(b.events.getEventReads),
    heartbeat: roomWrite(b.presence.heartbeat),
    getPresence: roomRead(b.presence.getPresence),
    acquireLock: roomWrite(b.locks.acquireLock),
    releaseLock: roomWrite(b.locks.releaseLock),
    listLocks: roomRead(b.locks.listLocks),
    setVar: roomWrite(b.vars.setVar),
    getVar: roomRead(b.vars.getVar),
    listVars: roomRead(b.vars.listVars),
    readValues: roomRead(b.values.readValues),
    writeValue: roomWrite(b.values.writeValue),
    deleteTask: roomWrite(b.planEdits.deleteTask),
    addDependency: roomWrite(b.planEdits.addDependency),
    deleteContext: roomWrite(b.contextEdits.deleteContext),
    contextVersions: roomRead(b.contextEdits.contextVersions),
    deleteEvent: roomWrite(b.eventEdits.deleteEvent),
    usableRooms: read(b.roomTools.usableRooms),
    seedRoom: roomWrite(b.roomTools.seedRoom),
    requestReview: roomWrite(b.reviews.requestReview),
    decideReview: roomWrite(b.reviews.decideReview),
    listReviews: roomRead(b.reviews.listReviews),
    search: roomRead(b.roomOps.searchRoom),
    analyticsLog: roomRead(b.roomTools.analyticsLog),
    claimTask: roomWrite(b.leases.claimTask),
    renewLeases: roomWrite(b.leases.renewLeases),
    // Leaving is not a visit: the actor's presence would undo "left" (the kept result still applies).
    leaveRoom: (scope, agentId) => leaveRoom({ ...scope, actor: undefined }, agentId),
    suspendAgent: roomWrite(b.suspensions.suspendAgent),
    resumeAgent: roomWrite(b.suspensions.resumeAgent),
    listSuspensions: roomRead(b.suspensions.listSuspensions),
    claimFiles: roomWrite(b.claims.claimFiles),
    releaseFiles: roomWrite(b.claims.releaseFiles),
    listClaims: roomRead(b.claims.listClaims),
    checkFiles: roomRead(b.claims.checkFiles),
    roomState: roomRead(b.claims.roomState),
    broadcast: roomWrite(b.claims.broadcast),
    createKey: write(byKeyTeam, b.keys.createKey),
    provisionTeam: write(byKeyTeam, b.keys.provisionTeam),
    listKeys: read(b.keys.listKeys),
    createOAuthGrant: write(byKeyTeam, b.oauth.createOAuthGrant),
    exchangeOAuthGrant: write(byTeam, b.oauth.exchangeOAuthGrant),
    resolveOAuthToken: read(b.oauth.resolveOAuthToken),
    listOAuthGrants: read(b.oauth.listOAuthGrants),
    revokeOAuthGrant: write(byTeam, b.oauth.revokeOAuthGrant),
    deleteKey: write(byTeam, b.keys.deleteKey),
    rotateKey: write(byTeam, b.keys.rotateKey),
    listTeams: read(b.keys.listTeams),
    createInvite: write(byRoom, b.invites.createInvite),
    listInvites: read(b.invites.listInvites),
    deleteInvite: write(byRoom, b.invites.deleteInvite),
    // Claiming a room also holds the team's records (rooms.ts atLimit), so the room count is exact.
    createRoom: write(byRoom, b.admin.createRoom),
    listRooms: read(b.admin.listRooms),
    deleteRoom: write(byRoom, b.admin.deleteRoom),
    deleteIdleRoom: write(byRoom, b.admin.deleteIdleRoom),
    roomStats: read(b.admin.roomStats),
    roomSummary: read(function* roomSummary(roomId: string, teamId?: string) {
      const view = yield* b.admin.roomSummary(roomId, teamId);
      const forkedFrom = view && (yield* b.info.forkedFrom(roomId));
      return view && forkedFrom ? { ...view, forkedFrom } : view;
    }),
    createWebhook: write(byRoom, b.webhooks.createWebhook),
    listWebhooks: read(b.webhooks.listWebhooks),
    deleteWebhook: write(byRoom, b.webhooks.deleteWebhook),
    webhookDeliveries: read(b.webhooks.webhookDeliveries),
    logTestDelivery: write(byRoom, b.webhooks.logTestDelivery),
    webhookRooms: read(b.webhooks.webhookRooms),
    claimDeliveries: write((roomId: string) => [roomLock(roomId)], b.webhooks.claimDeliveries),
    recordDelivery: write((claim) => [roomLock(claim.roomId)], b.webhooks.recordDelivery),
    getDriver: roomRead(b.driver.getDriver),
    takeDriver: roomWrite(b.driver.takeDriver),
    releaseDriver: roomWrite(b.driver.releaseDriver),
    driverAct: roomWrite(b.driver.driverAct),
    requestApproval: roomWrite(b.approvals.requestApproval),
    getApproval: roomRead(b.approvals.getApproval),
    listApprovals: roomRead(b.approvals.listApprovals),
    decideApproval: roomWrite(b.approvals.decideApproval),
    offerHandoff: roomWrite(b.handoffs.offerHandoff),
    acceptHandoff: roomWrite(b.handoffs.acceptHandoff),
    declineHandoff: roomWrite(b.handoffs.declineHandoff),
    cancelHandoff: roomWrite(b.handoffs.cancelHandoff),
    listHandoffs: roomRead(b.handoffs.listHandoffs),
    recordVerdict: roomWrite(b.verdicts.recordVerdict),
    listVerdicts: roomRead(b.verdicts.listVerdicts),
    forkRoom: roomWrite(b.fork.forkRoom),
    roomInfo: roomRead(b.info.roomInfo),
    bridge: roomWrite(b.mailbox.bridge),
    exportRoom: roomRead(b.exporting.exportRoom),
    exportLog: roomRead(b.exporting.exportLog),
    // Claiming the room also holds the team's records (rooms.ts atLimit), so the room limit holds.
    importRoom: roomWrite(b.importing.importRoom),
    teamsToMove: read(b.exporting.teamsToMove),
    keyDigests: read(b.exporting.keyDigests),
    inviteDigests: read(b.exporting.inviteDigests),
  };
}
