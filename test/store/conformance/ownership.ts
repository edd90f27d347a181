/**
 * Ownership by first write: other teams are denied, reads and failed writes never claim (docs/protocol.md#ownership).
 * The operations checked are every operation of RoomStore: OPERATIONS is typed over the interface, so a new operation
 * fails the typecheck until it is given a call here or a written reason why it names no room of a team; and the
 * suite fails when a store has an operation OPERATIONS does not know.
 */
import { expect, test } from "bun:test";
import { ACCESS_DENIED } from "../../../src/protocol/errors.ts";
import { iso } from "../../../src/protocol/time.ts";
import type { RoomSnapshot } from "../../../src/store/move-types.ts";
import type { RoomScope, RoomStore } from "../../../src/store/types.ts";
import {
  expectRoomError,
  newDigest,
  newInvite,
  newScope,
  newTask,
  newTeam,
  notePayload,
  type Suite,
  snapshot,
  toolsRate,
} from "./harness.ts";

/** Ids of records of the owner's room, so a call names what exists (the denial must come first all the same). */
interface Ids {
  task: string;
  context: string;
  event: string;
  review: string;
  approval: string;
  handoff: string;
  webhook: string;
  invite: string;
}

/**
 * How another team's call of an operation on an owned room is checked: `denied` (RoomError denied, nothing changed)
 * or `answer` (a value that reveals nothing of the room and changes nothing); or why the operation is `exempt`
 * (it names no room of a team: the team's own records, sessions, the webhook worker's, the store itself).
 */
type Check =
  | { denied: (store: RoomStore, intruder: RoomScope, ids: Ids) => Promise<unknown> }
  | {
      answer: (store: RoomStore, intruder: RoomScope, ids: Ids) => Promise<unknown>;
      expected: (owner: RoomScope) => unknown;
    }
  | { exempt: string };

/** Every operation of RoomStore (its methods, not `driver` or `changes`). */
type Operation = {
  [K in keyof RoomStore]: RoomStore[K] extends (...args: never[]) => unknown ? K : never;
}[keyof RoomStore];

const note = {
  type: "note" as const,
  summary: "s",
  consuming_agents: ["a"],
  payload: notePayload(),
  author: "x",
};
const TEAM = "the team's own records: another team's call never reaches this team's";
const AT = iso(Date.now());
const webhookId = () => `wh_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;

/** The snapshot of a room holding nothing. */
const emptyRoom = (): RoomSnapshot => ({
  createdAt: AT,
  forkedFrom: null,
  head: 0,
  trimmedBefore: null,
  plan: { createdAt: null, updatedAt: null },
  counters: { tasks: 0, contexts: 0, contextChanges: 0 },
  driver: { holder: null, holderKind: null, epoch: 0, since: null },
  tasks: [],
  contexts: [],
  vars: [],
  reviews: [],
  approvals: [],
  handoffs: [],
  verdicts: [],
  cursors: [],
  marks: [],
  fences: [],
  claims: [],
  values: [],
});

/** Every operation, with its check. */
export const OPERATIONS: Record<Operation, Check> = {
  readPlan: { denied: (s, i) => s.readPlan(i) },
  addTask: { denied: (s, i) => s.addTask(i, newTask("intruder", { agentId: "x" })) },
  updateTask: { denied: (s, i, ids) => s.updateTask(i, { taskId: ids.task, status: "done", agentId: "x" }) },
  getTask: { denied: (s, i, ids) => s.getTask(i, ids.task) },
  summary: { denied: (s, i) => s.summary(i, "a", 100) },
  writeContext: { denied: (s, i) => s.writeContext(i, note) },
  readContext: { denied: (s, i, ids) => s.readContext(i, ids.context) },
  contextHistory: { denied: (s, i, ids) => s.contextHistory(i, ids.context) },
  listContext: { denied: (s, i) => s.listContext(i, {}) },
  updateContext: {
    denied: (s, i, ids) => s.updateContext(i, { id: ids.context, author: "x", summary: "mine" }),
  },
  postEvent: {
    denied: (s, i, ids) =>
      s.postEvent(i, { type: "e", from: "x", to: "a", payload: {}, replyToId: ids.event }),
  },
  readEvents: { denied: (s, i) => s.readEvents(i, { limit: 100 }) },
  readLog: { denied: (s, i) => s.readLog(i, 0, 100) },
  consumeEvents: { denied: (s, i) => s.consumeEvents(i, "a", 100) },
  markEventRead: { denied: (s, i, ids) => s.markEventRead(i, ids.event, "x") },
  getEventReads: { denied: (s, i, ids) => s.getEventReads(i, ids.event) },
  heartbeat: { denied: (s, i) => s.heartbeat(i, "x", "here") },
  getPresence: { denied: (s, i) => s.getPresence(i) },
  acquireLock: { denied: (s, i) => s.acquireLock(i, "r", "x", 30_000) },
  releaseLock: { denied: (s, i) => s.releaseLock(i, "r", "a") },
  listLocks: { denied: (s, i) => s.listLocks(i) },
  setVar: { denied: (s, i) => s.setVar(i, "k", "stolen", "x") },
  getVar: { denied: (s, i) => s.getVar(i, "k") },
  listVars: { denied: (s, i) => s.listVars(i) },
  readValues: { denied: (s, i) => s.readValues(i, "test_note") },
  writeValue: { denied: (s, i) => s.writeValue(i, { piece: "test_note", key: "", value: "stolen" }) },
  deleteTask: { denied: (s, i, ids) => s.deleteTask(i, { taskId: ids.task, agentId: "x", force: true }) },
  addDependency: { denied: (s, i, ids) => s.addDependency(i, { taskId: ids.task, dependsOn: ids.task }) },
  deleteContext: { denied: (s, i, ids) => s.deleteContext(i, { id: ids.context, agentId: "x" }) },
  contextVersions: { denied: (s, i, ids) => s.contextVersions(i, ids.context) },
  deleteEvent: { denied: (s, i, ids) => s.deleteEvent(i, { eventId: ids.event, by: "x" }) },
  usableRooms: {
    answer: (s, i) => s.usableRooms(i.teamId),
    expected: () => [],
  },
  seedRoom: { denied: (s, i) => s.seedRoom(i, { template: "t", tasks: [], contexts: [] }, "x") },
  requestReview: {
    denied: (s, i) => s.requestReview(i, { requester: "x", reviewer: "a", subject: "s", details: "" }),
  },
  decideReview: {
    denied: (s, i, ids) => s.decideReview(i, { reviewId: ids.review, agentId: "a", status: "approved" }),
  },
  listReviews: { denied: (s, i) => s.listReviews(i, {}) },
  search: { denied: (s, i) => s.search(i, { terms: ["s"], types: ["task", "context", "event"], limit: 10 }) },
  analyticsLog: { denied: (s, i) => s.analyticsLog(i) },
  claimTask: { denied: (s, i, ids) => s.claimTask(i, { taskId: ids.task, agentId: "x", leaseMs: 60_000 }) },
  renewLeases: { denied: (s, i) => s.renewLeases(i, "a") },
  leaveRoom: { denied: (s, i) => s.leaveRoom(i, "a") },
  suspendAgent: { denied: (s, i) => s.suspendAgent(i, { agentId: "a", by: "b", reason: "r" }) },
  resumeAgent: { denied: (s, i) => s.resumeAgent(i, { agentId: "a", by: "b" }) },
  listSuspensions: { denied: (s, i) => s.listSuspensions(i) },
  claimFiles: { denied: (s, i) => s.claimFiles(i, { agentId: "x", paths: ["src/a.ts"], ttlMs: 60_000 }) },
  releaseFiles: { denied: (s, i) => s.releaseFiles(i, "a") },
  listClaims: { denied: (s, i) => s.listClaims(i, {}) },
  checkFiles: { denied: (s, i) => s.checkFiles(i, "x", ["src/a.ts"]) },
  roomState: { denied: (s, i) => s.roomState(i) },
  broadcast: { denied: (s, i) => s.broadcast(i, { agentId: "x", message: "m" }) },
  ping: { exempt: "the store itself" },
  close: { exempt: "the store itself" },
  // access
  resolveKey: { exempt: TEAM },
  createKey: { exempt: TEAM },
  provisionTeam: { exempt: TEAM },
  listKeys: { exempt: TEAM },
  deleteKey: { exempt: TEAM },
  rotateKey: { exempt: TEAM },
  createOAuthGrant: { exempt: TEAM },
  exchangeOAuthGrant: { exempt: TEAM },
  resolveOAuthToken: { exempt: TEAM },
  listOAuthGrants: { exempt: TEAM },
  revokeOAuthGrant: { exempt: TEAM },
  listTeams: { exempt: "the operators' list of every team, for operators only (http/admin)" },
  consumeRate: { exempt: TEAM },
  createInvite: {
    denied: (s, i) =>
      s.createInvite({ ...newInvite({ clock: { now: Date.now } } as Suite, i), teamId: i.teamId }, 10),
  },
  resolveInvite: {
    answer: (s, i) => s.resolveInvite(i.roomId, newDigest(), toolsRate(10)),
    expected: () => ({ invite: null }),
  },
  listInvites: { denied: (s, i) => s.listInvites(i) },
  deleteInvite: { denied: (s, i, ids) => s.deleteInvite(i, ids.invite) },
  createRoom: { denied: (s, i) => s.createRoom(i) },
  listRooms: { answer: (s, i) => s.listRooms(i.teamId), expected: () => [] },
  deleteRoom: { denied: (s, i) => s.deleteRoom(i) },
  deleteIdleRoom: { answer: (s, i) => s.deleteIdleRoom(i, Date.now() + 60_000), expected: () => false },
  roomStats: { exempt: "the operators' view of any room, for operators only (http/admin)" },
  roomSummary: { answer: (s, i) => s.roomSummary(i.roomId, i.teamId), expected: () => null },
  // webhooks
  createWebhook: {
    denied: (s, i) =>
      s.createWebhook(
        i,
        { webhookId: webhookId(), url: "https://x.example.com", types: [], createdAt: AT },
        10,
      ),
  },
  listWebhooks: { denied: (s, i) => s.listWebhooks(i) },
  deleteWebhook: { denied: (s, i, ids) => s.deleteWebhook(i, ids.webhook) },
  webhookDeliveries: { denied: (s, i, ids) => s.webhookDeliveries(i, ids.webhook) },
  logTestDelivery: {
    denied: (s, i, ids) =>
      s.logTestDelivery(i, ids.webhook, {
        eventSeq: 0,
        attempt: 1,
        outcome: "delivered",
        durationMs: 1,
        at: AT,
      }),
  },
  webhookRooms: { exempt: "the delivery worker's: it acts for no team" },
  claimDeliveries: { exempt: "the delivery worker's: it acts for no team" },
  recordDelivery: { exempt: "the delivery worker's: it records a claim it holds, for no team" },
  // people
  getDriver: { denied: (s, i) => s.getDriver(i) },
  takeDriver: { denied: (s, i) => s.takeDriver(i, { holder: "human:x", kind: "human", force: true }) },
  releaseDriver: { denied: (s, i) => s.releaseDriver(i, { holder: "human:ann", epoch: 1 }) },
  driverAct: {
    denied: (s, i) => s.driverAct(i, { type: "steer", by: "human:ann", epoch: 1, to: "a", text: "t" }),
  },
  requestApproval: {
    denied: (s, i) =>
      s.requestApproval(i, { requestedBy: "x", action: "a", details: {}, expiresInMs: 60_000 }),
  },
  getApproval: { denied: (s, i, ids) => s.getApproval(i, ids.approval) },
  listApprovals: { denied: (s, i) => s.listApprovals(i) },
  decideApproval: {
    denied: (s, i, ids) =>
      s.decideApproval(i, { id: ids.approval, decidedBy: "human:x", decision: "approve" }),
  },
  offerHandoff: {
    denied: (s, i) =>
      s.offerHandoff(i, {
        from: "x",
        to: "a",
        taskIds: [],
        contextIds: [],
        note: "n",
        offeredBy: "x",
        agentOffer: true,
      }),
  },
  acceptHandoff: { denied: (s, i, ids) => s.acceptHandoff(i, { id: ids.handoff, agentId: "b" }) },
  declineHandoff: {
    denied: (s, i, ids) => s.declineHandoff(i, { id: ids.handoff, agentId: "b", reason: "r" }),
  },
  cancelHandoff: { denied: (s, i, ids) => s.cancelHandoff(i, { id: ids.handoff, by: "a" }) },
  listHandoffs: { denied: (s, i) => s.listHandoffs(i) },
  recordVerdict: {
    denied: (s, i) => s.recordVerdict(i, { by: "x", verdict: "pass", summary: "s", details: "", ref: null }),
  },
  listVerdicts: { denied: (s, i) => s.listVerdicts(i) },
  forkRoom: { denied: (s, i) => s.forkRoom(i, { newRoomId: `${i.roomId}-stolen`, by: "x" }) },
  roomInfo: { denied: (s, i) => s.roomInfo(i) },
  bridge: { denied: (s, i) => s.bridge(i, { agentId: "a", hook: "SessionStart" }) },
  // moving
  exportRoom: { denied: (s, i) => s.exportRoom(i) },
  exportLog: { denied: (s, i) => s.exportLog(i, 0, 100) },
  importRoom: { denied: (s, i) => s.importRoom(i, { snapshot: emptyRoom(), events: () => [] }) },
  teamsToMove: { exempt: "a migration's list of every team (roomctl migrate, operators only)" },
  keyDigests: { exempt: TEAM },
  inviteDigests: { denied: (s, i) => s.inviteDigests(i) },
  // sessions
  createSession: { exempt: "a person's web session: it names no room" },
  touchSession: { exempt: "a person's web session: it names no room" },
  deleteSession: { exempt: "a person's web session: it names no room" },
};

/**
 * Operations a driver has beyond RoomStore, each with the reason it is not checked here (the suite fails on one it
 * does not know, so nothing a store can do to a room goes unchecked).
 */
const DRIVER_EXTRAS: Record<string, string> = {
  sweepExpired: "the driver's own timer: purges expired rooms of every team (conformance room-state.ts)",
};

/** Everything a room holds that a refused call might have changed, as its owner sees it. */
async function everything(store: RoomStore, owner: RoomScope) {
  return {
    reads: await snapshot(store, owner),
    export: await store.exportRoom(owner),
    invites: await store.listInvites(owner),
    webhooks: await store.listWebhooks(owner),
    driver: await store.getDriver(owner),
    values: await store.readValues(owner, "test_note"),
  };
}

/** A room of `owner` holding a record of each kind the operations name. */
async function ownedRoom(suite: Suite, owner: RoomScope): Promise<Ids> {
  const s = suite.store;
  const task = await s.addTask(owner, newTask("t"));
  const entry = await s.writeContext(owner, { ...note, consuming_agents: [], author: "a" });
  const event = await s.postEvent(owner, { type: "e", from: "a", to: "all", payload: {} });
  await s.acquireLock(owner, "r", "a", 30_000);
  await s.setVar(owner, "k", "v", "a");
  await s.heartbeat(owner, "a");
  await s.writeValue(owner, { piece: "test_note", key: "", value: "mine" });
  await s.claimFiles(owner, { agentId: "a", paths: ["src/a.ts"], ttlMs: 60_000 });
  const review = await s.requestReview(owner, { requester: "a", reviewer: "b", subject: "s", details: "" });
  const approval = await s.requestApproval(owner, {
    requestedBy: "a",
    action: "deploy",
    details: {},
    expiresInMs: 60_000,
  });
  const handoff = await s.offerHandoff(owner, {
    from: "a",
    to: "b",
    taskIds: [],
    contextIds: [],
    note: "n",
    offeredBy: "a",
    agentOffer: true,
  });
  await s.takeDriver(owner, { holder: "human:ann", kind: "human" });
  const webhook = webhookId();
  await s.createWebhook(
    owner,
    { webhookId: webhook, url: "https://hooks.example.com", types: [], createdAt: AT },
    10,
  );
  const invite = newInvite(suite, owner);
  await s.createInvite(invite, 10);
  return {
    task: task.id,
    context: entry.id,
    event: event.id,
    review: review.id,
    approval: approval.id,
    handoff: handoff.id,
    webhook,
    invite: invite.tokenId,
  };
}

export function ownershipTests(suite: Suite): void {
  test("every operation of the store is checked here or exempt with a reason", () => {
    const known = new Set([...Object.keys(OPERATIONS), ...Object.keys(DRIVER_EXTRAS)]);
    const operations = Object.keys(suite.store).filter(
      (name) => typeof (suite.store as unknown as Record<string, unknown>)[name] === "function",
    );
    expect(operations.filter((name) => !known.has(name))).toEqual([]);
    expect(Object.keys(OPERATIONS).filter((name) => !operations.includes(name))).toEqual([]);
  });

  test("another team is denied every operation on an owned room, and changes nothing", async () => {
    const owner = newScope();
    const ids = await ownedRoom(suite, owner);
    const before = await everything(suite.store, owner);
    const intruder = { roomId: owner.roomId, teamId: newTeam() };
    for (const [name, check] of Object.entries(OPERATIONS) as [Operation, Check][]) {
      if ("exempt" in check) continue;
      const failure = (e: unknown) => new Error(`${name}: ${e instanceof Error ? e.message : String(e)}`);
      if ("denied" in check) {
        await expectRoomError(check.denied(suite.second, intruder, ids), "denied", ACCESS_DENIED).catch(
          (e) => {
            throw failure(e);
          },
        );
      } else {
        const answer = await check.answer(suite.second, intruder, ids);
        expect({ name, answer }).toEqual({ name, answer: check.expected(owner) });
      }
    }
    expect(await everything(suite.store, owner)).toEqual(before);
    // The intruder's consumeEvents as "a" moved nothing: a still gets every event.
    const forA = before.reads.events.filter((e) => e.to === "all" || e.to === "a").length;
    const head = before.reads.events.length;
    expect(await suite.store.consumeEvents(owner, "a", 100)).toMatchObject({ count: forA, cursor: head });
  });

  test("reads on a fresh room see an empty room and do not claim it", async () => {
    const reader = newScope();
    const store = suite.store;
    expect(await store.readPlan(reader)).toEqual({
      project: reader.roomId,
      created_at: null,
      updated_at: null,
      tasks: [],
    });
    expect(await store.listContext(reader, {})).toEqual([]);
    expect(await store.readEvents(reader, { limit: 100 })).toEqual([]);
    expect(await store.consumeEvents(reader, "a", 100)).toEqual({
      events: [],
      cursor: null,
      count: 0,
      remaining: 0,
    });
    expect(await store.getPresence(reader)).toEqual([]);
    expect(await store.listLocks(reader)).toEqual([]);
    expect(await store.listVars(reader)).toEqual({});
    expect(await store.getVar(reader, "k")).toBeNull();
    expect(await store.readValues(reader, "test_note")).toEqual({});
    expect(await store.releaseLock(reader, "r", "a")).toEqual({ released: false });
    await expectRoomError(store.getTask(reader, "t1"), "not_found", "Task not found: t1");
    await expectRoomError(store.readContext(reader, "c1"), "not_found", "Context entry not found: c1");
    await expectRoomError(store.contextHistory(reader, "c1"), "not_found", "Context entry not found: c1");
    await expectRoomError(store.getEventReads(reader, "e1"), "not_found", "Event not found: e1");

    const claimer = { roomId: reader.roomId, teamId: newTeam() };
    await suite.second.addTask(claimer, newTask("claimed"));
    await expectRoomError(store.readPlan(reader), "denied", ACCESS_DENIED);
    expect((await store.readPlan(claimer)).tasks).toHaveLength(1);
  });

  test("a failed write does not claim the room", async () => {
    const failing = newScope();
    const store = suite.store;
    await expectRoomError(
      store.updateTask(failing, { taskId: "t1", status: "done" }),
      "not_found",
      "Task not found: t1",
    );
    await expectRoomError(
      store.updateContext(failing, { id: "c1", author: "a", summary: "x" }),
      "not_found",
      "Context entry not found: c1",
    );
    await expectRoomError(store.markEventRead(failing, "e1", "a"), "not_found", "Event not found: e1");
    await expectRoomError(
      store.postEvent(failing, { type: "e", from: "a", to: "all", payload: {}, replyToId: "e1" }),
      "not_found",
      "Event not found: e1",
    );
    await expectRoomError(
      store.writeValue(failing, { piece: "test_note", key: "", value: 1 }),
      "invalid",
      /^Invalid test_note: /,
    );
    const claimer = { roomId: failing.roomId, teamId: newTeam() };
    await suite.second.setVar(claimer, "k", "v", "b");
    expect(await store.getVar(claimer, "k")).toBe("v");
    await expectRoomError(store.getVar(failing, "k"), "denied", ACCESS_DENIED);
    expect(await store.readEvents(claimer, { limit: 100 })).toHaveLength(1);
  });
}
