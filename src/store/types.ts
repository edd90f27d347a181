/**
 * The RoomStore contract. Every driver (SQLite, Redis over TCP, Upstash over REST) implements it and passes
 * the one conformance suite in test/store/conformance.ts, which is the executable definition of this file.
 *
 * Rules that hold for every operation:
 * - Atomic: an operation's reads and writes happen as one unit (one SQLite transaction, one Lua script).
 *   A failing operation (any thrown RoomError) MUST change nothing.
 * - Ownership (first touch): a room belongs to the first team that writes it. An operation on a room owned by
 *   another team MUST throw RoomError("denied", ACCESS_DENIED) before doing anything. An operation that writes
 *   room state claims an unowned room in the same atomic step; one that writes nothing (every read, a consume
 *   that finds nothing, a release that releases nothing) MUST NOT claim it, and sees an empty room.
 * - Time comes from the store's injected clock (ms since epoch); results carry ISO strings.
 * - Expiry: room data expires ROOM_TTL after the room's last use; refreshing it costs the same whatever the
 *   room's size, and never extends a lock or a presence entry (those keep their own expiry times).
 * - Store outages surface as RoomError("store_unavailable") within a bounded time, never a hang.
 *
 * - Room limit: a writing operation that would claim a room for a team already owning the store's
 *   limits.roomsPerTeam rooms throws errors.roomLimit(n) and changes nothing (see access-types.ts StoreLimits).
 *
 * - Leases (protocol/leases.ts): every task a read returns is shown as effectiveTask at the read's time (a lease
 *   that ran out reads as pending and unowned), and every successful plan write (addTask, updateTask, claimTask,
 *   renewLeases, leaveRoom) first records each lease that ran out, with the event task_lease_expired. The acting
 *   agent's successful calls renew its live leases and file claims along with its presence (RoomScope.actor).
 *
 * - Retention (move-types.ts EventRetention, given at construction): every operation that appends an event trims
 *   the room's oldest events in the same atomic step, boundedly, with everything that belongs to them (read
 *   receipts, delivery times, search documents, queued webhook deliveries, the addressee index). Cursors, marks and
 *   `remaining` stay exact; reads say trimmedBefore when they reach below the oldest kept event.
 *
 * This file imports only types, so drivers and the layers above can depend on it freely.
 */

import type { AnalyticsLog } from "../protocol/analytics.ts";
import type { ClaimResult, FileCheck, FileClaim, LeaveResult } from "../protocol/claims.ts";
import type {
  ContextEntry,
  ContextType,
  Heartbeat,
  JsonObject,
  LockInfo,
  LockState,
  Plan,
  Presence,
  Release,
  Review,
  ReviewStatus,
  RoomEvent,
  Summary,
  Task,
  UnreadBatch,
} from "../protocol/records.ts";
import type { SearchHit, SearchKind } from "../protocol/search.ts";
import type { ResumeResult, SuspendResult, Suspension } from "../protocol/suspensions.ts";
import type { TaskChange } from "../protocol/task-rules.ts";
import type { RoomSeed } from "../protocol/templates.ts";
import type { WebhookAttempt } from "../protocol/webhooks.ts";
import type { AccessStore } from "./access-types.ts";
import type { MoveStore } from "./move-types.ts";
import type { OAuthStore } from "./oauth-types.ts";
import type { PeopleStore } from "./people-types.ts";
import type { SessionStore } from "./session-types.ts";

export type StoreDriver = "sqlite" | "redis" | "upstash" | "postgres";

/** Which room, on behalf of which team. Every operation takes one. */
export interface RoomScope {
  roomId: string;
  teamId: string;
  /**
   * false for invite holders, who never claim: on an unowned room a writing operation then throws
   * errors.denied() instead of claiming (reads still see an empty room). Default true.
   */
  mayClaim?: boolean;
  /**
   * true for reads on behalf of someone looking on, not using the room (the dashboard's overview, admin listings):
   * such a read MUST NOT record a use of the room — its last activity and expiry stay as they were. Writes ignore
   * it. Default false: any other read counts as use (recorded at most once a minute).
   */
  observe?: boolean;
  /**
   * The acting agent of the call. A successful operation on a room the team owns (after claiming it, for a write)
   * records this agent's presence (lastSeen = now, status text kept) in the same atomic step, so any call that
   * names the agent keeps it online (docs/protocol.md#presence) — and renews the agent's live task leases and file
   * claims (expiry = now + their own length), at no extra cost for an agent holding none.
   */
  actor?: string;
  /**
   * The agent the call is made by without acting as it: a tool naming no agent (read_plan, list_context, …) called
   * with a key bound to an agent or the X-Roomd-Agent header. Only the suspension check: while it is suspended in a
   * room the team owns, the operation (read or write) is refused with protocol/suspensions.ts suspendedError in its
   * own atomic step, as for `actor`. It records no presence, renews nothing and writes nothing: a read stays a read.
   */
  caller?: string;
  /** Set by mutating calls that carry an idempotencyKey (docs/protocol.md#idempotency); see Idempotency. */
  idempotency?: Idempotency;
}

/**
 * At-most-once writes. Inside the operation's atomic step, the driver looks (room, key) up among the results kept
 * for 24 h: a kept result with the same fingerprint is returned as it was (and `replayed` set to true) without
 * applying anything; with another fingerprint the operation throws errors.idempotencyMismatch(key); otherwise the
 * operation runs and, when it succeeds, its result is kept with the fingerprint. A failed operation keeps nothing.
 */
export interface Idempotency {
  /** 1–128 chars of [A-Za-z0-9_.:-], chosen by the client. */
  key: string;
  /** sha256 hex of the tool name and its canonical arguments. */
  fingerprint: string;
  /** Set by the driver when the kept result was returned. */
  replayed?: boolean;
}

/** writeValue's input: the kind, the key ("" for a kind of one value) and the value, or null to remove it. */
export interface ValueWrite {
  piece: string;
  key: string;
  value: unknown;
}

export interface NewTask {
  title: string;
  description: string;
  depends_on: string[];
  priority: number | null;
  /** Acting agent: the event's `from` ("system" when absent) and the plan-lock identity. */
  agentId?: string;
}

/** An update of one task: what it may change (protocol/task-rules.ts TaskChange), and which version it expects. */
export interface TaskUpdate extends TaskChange {
  taskId: string;
  expectedVersion?: number;
}

export interface NewContext {
  type: ContextType;
  summary: string;
  consuming_agents: string[];
  /** Already validated against the type's schema and size-checked by the caller. */
  payload: JsonObject;
  author: string;
}

export interface ContextUpdate {
  id: string;
  author: string;
  summary?: string;
  consuming_agents?: string[];
  /**
   * Size-checked by the caller; the store MUST validate it against the entry's (unchanged) type with
   * protocol/payloads.ts validatePayload and refuse it with that RoomError, changing nothing.
   */
  payload?: JsonObject;
  /** "1.N": when given and not the current version → errors.contextVersionConflict. */
  expectedVersion?: string;
}

export interface ContextFilter {
  type?: ContextType;
  author?: string;
}

/** One earlier version of a context entry, kept by update_context. */
export type ContextVersion = Omit<ContextEntry, "id" | "type">;

export interface NewEvent {
  type: string;
  from: string;
  to: string;
  payload: JsonObject;
  /** When set, the event MUST exist (errors.eventNotFound otherwise) and the new event carries reply_to_id. */
  replyToId?: string;
}

/**
 * readEvents' answer: the events, and — when the range asked for reaches below the events retention trimmed — the
 * oldest seq the log still has (a plain array satisfies it).
 */
export type EventList = RoomEvent[] & { trimmedBefore?: number };

/** A page of the log for watchers (readLog). */
export interface LogPage {
  events: RoomEvent[];
  head: number;
  exists: boolean;
}

export interface EventQuery {
  /** Only events with seq greater than this. */
  sinceSeq?: number;
  /** Only events whose timestamp is later than this (ms). */
  sinceMs?: number;
  /** Only events with seq lower than this. */
  beforeSeq?: number;
  /** 1–100; filters apply before the limit. */
  limit: number;
}

export interface TaskDeletion {
  taskId: string;
  /** Acting agent: plan-lock and ownership identity, the event's `from` ("system" when absent). */
  agentId?: string;
  /** Delete even while other tasks depend on it (their dependency then counts as unmet). */
  force?: boolean;
  expectedVersion?: number;
}

export interface NewDependency {
  taskId: string;
  /** The task that must be done first. */
  dependsOn: string;
  agentId?: string;
  expectedVersion?: number;
}

export interface ContextDeletion {
  id: string;
  /** Who deletes it: the context_deleted event's `from`. */
  agentId: string;
  /** "1.N": when given and not the current version → errors.contextVersionConflict. */
  expectedVersion?: string;
}

export interface EventRemoval {
  eventId: string;
  /** Who deletes it (the tombstone's `deleted.by` and the event_deleted event's `from`). */
  by: string;
  /** Set for bound keys and invites: only an event whose `from` is this agent may be deleted. */
  onlyAuthor?: string;
}

export interface NewReview {
  requester: string;
  reviewer: string;
  subject: string;
  details: string;
  /** When given, MUST name a task of the room (errors.taskNotFound). */
  taskId?: string;
  /** When given, MUST name a context entry of the room (errors.contextNotFound); its version is recorded. */
  contextId?: string;
}

export interface ReviewDecision {
  reviewId: string;
  /** The deciding agent: MUST be the review's reviewer (toolErrors.notReviewer). */
  agentId: string;
  status: Exclude<ReviewStatus, "pending">;
  comment?: string;
}

export interface ReviewFilter {
  reviewer?: string;
  requester?: string;
  status?: ReviewStatus;
  taskId?: string;
  contextId?: string;
}

export interface SearchQuery {
  /** Distinct folded tokens (protocol/search.ts queryTerms), 1–QUERY_TERMS_MAX of them; every one must occur. */
  terms: string[];
  /** Kinds of documents to return (ranking statistics always cover every kind). */
  types: readonly SearchKind[];
  limit: number;
}

/** A room a team can use, for list_rooms. */
export interface UsableRoom {
  roomId: string;
  /** When the team claimed it. */
  createdAt: string;
}

/** claim_task's input (docs/protocol.md#task-leases). */
export interface TaskClaim {
  taskId: string;
  agentId: string;
  /** Lease length in ms: the lease runs out this long after the owner's last call in the room. */
  leaseMs: number;
  /** When given and not the task's version → errors.taskVersionConflict. */
  expectedVersion?: number;
}

/** claim_files' input (docs/protocol.md#file-claims): paths already normalised (protocol/paths.ts) and distinct. */
export interface FilesClaim {
  agentId: string;
  paths: string[];
  /** How long the claims live past the holder's last call in the room, in ms. */
  ttlMs: number;
  /** Replaces the reason of claims already held when given; kept when absent. */
  reason?: string;
}

/** list_claims' filters: the holder, and/or the claims overlapping one (normalised) path. */
export interface ClaimFilter {
  agentId?: string;
  path?: string;
}

/** room_broadcast: an event `broadcast` {message, status?} and, with status, the sender's status text. */
export interface NewBroadcast {
  agentId: string;
  message: string;
  status?: string;
}

/** room_state: the peer state of a room in one read. */
export interface RoomStateView {
  claims: FileClaim[];
  presence: Presence[];
  /** The seq of the room's newest event (0 for none): room_read with since = this reads what comes after. */
  lastSeq: number;
}

/**
 * Kinds of signal: a change that is not an event of the log (presence, locks, shared variables, file claims, the
 * driver). Signals are not stored or replayed; watchers re-read what they show.
 */
export const SIGNAL_KINDS = ["presence", "locks", "vars", "claims", "driver"] as const;
export type SignalKind = (typeof SIGNAL_KINDS)[number];

/**
 * A change in a room, as the change feed reports it: the log's new head, a signal, or `resync` — the feed has just
 * begun (or resumed) listening, so anything written before that may have gone unreported: read the log again.
 * Seq 0 says the room was deleted (or a new life of it began): every driver MUST report a deletion so, made by
 * any process, before any change of the room's next life (same team or another), so watchers of the old room end
 * before they could see the new one.
 */
export type RoomChange =
  | { roomId: string; seq: number }
  | { roomId: string; signal: SignalKind }
  | { roomId: string; resync: true };

/**
 * The store's change feed, one per store instance (so one per process): it reports the changes of the rooms it
 * watches, made by any process on the same store, within about a second — Redis by sharded pub/sub published
 * inside the write's script, Upstash by one request per tick for all watched rooms, SQLite by an in-process signal
 * plus a cheap check of the file's data_version every 50 ms while anything is watched. A report is a hint:
 * watchers read what changed from the store, by seq. Watching costs no store request per watcher.
 */
export interface ChangeFeed {
  /** Starts reporting the room's changes to `onChange`; the returned function stops. */
  watch(roomId: string, onChange: (change: RoomChange) => void): () => void;
  /**
   * Resolves once the feed's own connection to the store is up (a Redis subscription, a PostgreSQL LISTEN), rejects
   * when it cannot be had now: what GET /readyz checks besides ping(). Absent on feeds that hold no connection of
   * their own (SQLite's in-process signal, a REST client's polls, which ping() already covers).
   */
  probe?(): Promise<void>;
}

// ── webhooks ──────────────────────────────────────────────────────────────────────────────────────────────

/**
 * A webhook of a room, as stored and listed. It holds no secret: the signing secret is derived from webhookId and a
 * server-held key (live/webhooks/signing-key.ts), so nothing secret is stored.
 */
export interface WebhookRecord {
  /** protocol/webhooks.ts WEBHOOK_ID. */
  webhookId: string;
  roomId: string;
  /** The normalised URL (live/webhooks/url-rules.ts). */
  url: string;
  /** The event types delivered, in the order given; empty = every type. */
  types: string[];
  description?: string;
  createdAt: string;
  /** active: events are queued for it; disabled (410 Gone, or too many dropped events): nothing is. */
  status: "active" | "disabled";
  /** Events dropped in a row (every attempt failed); a delivery resets it. */
  consecutiveFailures: number;
  /** ISO time of the last delivered attempt. */
  lastDeliveryAt?: string;
}

/** What createWebhook stores (status active, no failures yet). */
export type NewWebhook = Pick<WebhookRecord, "webhookId" | "url" | "types" | "description" | "createdAt">;

export type { WebhookAttempt };

/** A due delivery given to one caller by claimDeliveries, until `lease`. */
export interface ClaimedDelivery {
  roomId: string;
  webhookId: string;
  /** The webhook's URL, as registered. */
  url: string;
  /** The event, as it is now (read_by included). */
  event: RoomEvent;
  /** 1 for the first try. */
  attempt: number;
  /** ms (store clock) until which the claim is this caller's; also the token recordDelivery checks. */
  lease: number;
}

export interface ClaimBatch {
  deliveries: ClaimedDelivery[];
  /** Earliest time (ms) at which something of this room's outbox is due or a lease runs out; null when empty. */
  nextDueMs: number | null;
  /** False when the room has no webhook at all (a worker may stop looking at it). */
  hasWebhooks: boolean;
}

/** What one attempt of a claimed delivery came to. */
export interface DeliveryReport {
  /** From live/webhooks/send.ts: a 2xx, anything else, or 410 Gone. */
  outcome: "delivered" | "failed" | "gone";
  /** For `failed`: ms until the next try (schedule.ts nextAttemptDelay), or null when this was the last. */
  retryInMs: number | null;
  httpStatus?: number;
  error?: string;
  durationMs: number;
  /** ISO time the attempt started. */
  at: string;
}

export interface RecordedDelivery {
  /** False when the claim was no longer the caller's (its lease ran out and another caller claimed it, or the webhook is gone). */
  recorded: boolean;
  /** The outcome the delivery log got. */
  logged?: WebhookAttempt["outcome"];
  /** True when this attempt disabled the webhook. */
  disabled?: boolean;
}

/**
 * Webhooks and their outbox (docs/http.md#webhooks). Admin operations take the room owner's scope: RoomError "denied"
 * (ACCESS_DENIED) when another team owns the room or it is unowned; they never claim a room. The outbox
 * operations are the delivery worker's and act for no team.
 *
 * The outbox: appending an event to a room (any operation that appends, webhook_disabled included) MUST, in the
 * same atomic step, queue one delivery (attempt 1, due now) for every active webhook of the room whose `types` is
 * empty or lists the event's type. A room without webhooks pays one O(1) check for it, nothing more.
 */
export interface WebhookStore {
  /**
   * Registers a webhook, active, unless the room already has `maxPerRoom` webhooks (active or disabled):
   * errors.webhookLimit(maxPerRoom). Concurrent registrations never exceed the limit.
   */
  createWebhook(
    scope: { roomId: string; teamId: string },
    webhook: NewWebhook,
    maxPerRoom: number,
  ): Promise<WebhookRecord>;
  /** The room's webhooks, oldest first. */
  listWebhooks(scope: { roomId: string; teamId: string }): Promise<WebhookRecord[]>;
  /**
   * Deletes the webhook and its log; its queued deliveries are never claimed again. False when there is no such
   * webhook.
   */
  deleteWebhook(scope: { roomId: string; teamId: string }, webhookId: string): Promise<boolean>;
  /** The webhook's last WEBHOOK_LIMITS.logSize attempts, newest first; null when the room has no such webhook. */
  webhookDeliveries(
    scope: { roomId: string; teamId: string },
    webhookId: string,
  ): Promise<WebhookAttempt[] | null>;
  /** Adds a test delivery's attempt to the log (nothing else changes); false when there is no such webhook. */
  logTestDelivery(
    scope: { roomId: string; teamId: string },
    webhookId: string,
    attempt: WebhookAttempt,
  ): Promise<boolean>;
  /**
   * Rooms that may have webhooks, for the worker to look at (a room whose last webhook went may stay listed until
   * a claimDeliveries on it answers hasWebhooks false). Not atomic with registration; every room with a webhook
   * is listed once its registration has returned.
   */
  webhookRooms(): Promise<string[]>;
  /**
   * Gives up to `limit` due deliveries of the room (due time ≤ now, or a lease run out) to this caller, leased
   * until now + leaseMs, in one atomic step: across callers and processes a delivery is held by at most one caller
   * at a time. Deliveries of deleted or disabled webhooks, and of events that no longer exist, are dropped.
   */
  claimDeliveries(roomId: string, request: { limit: number; leaseMs: number }): Promise<ClaimBatch>;
  /**
   * Records one attempt of a claimed delivery, only while the claim is still the caller's (else {recorded:
   * false}, nothing changed): the log gets it; delivered → done, consecutiveFailures 0, lastDeliveryAt; failed
   * with retryInMs → attempt + 1 due at now + retryInMs; failed without → dropped, consecutiveFailures + 1, and at
   * WEBHOOK_LIMITS.disableAfterDropped the webhook is disabled; gone → dropped and disabled at once. Disabling
   * appends `webhook_disabled` {webhookId, reason: "gone"|"failing", consecutiveFailures} from "system" to "all".
   */
  recordDelivery(claim: ClaimedDelivery, report: DeliveryReport): Promise<RecordedDelivery>;
}

export interface RoomStore
  extends AccessStore,
    WebhookStore,
    PeopleStore<RoomScope>,
    MoveStore<RoomScope>,
    SessionStore,
    OAuthStore {
  readonly driver: StoreDriver;
  /** The change feed of this store instance. */
  readonly changes: ChangeFeed;

  // ── plan ──────────────────────────────────────────────────────────────────────────────────────────────
  /** The plan, tasks in creation order. A room without tasks gives `{project: roomId, created_at: null, updated_at: null, tasks: []}`. */
  readPlan(scope: RoomScope): Promise<Plan>;
  /**
   * Appends a pending, unowned task (version 1) and the event `task_added` {task} (to "all").
   * Plan lock: when the `plan` lock is live and held by someone other than `agentId` → errors.planLocked.
   * depends_on (duplicates dropped) must name tasks of the room (planErrors.unknownDependency).
   */
  addTask(scope: RoomScope, input: NewTask): Promise<Task>;
  /**
   * Applies the given fields, bumps `version` by 1 and `updated_at`, appends `task_updated`
   * {task, previousStatus, changes} where `changes` holds the supplied fields (and `note`).
   * Checks, in this order: plan lock (errors.planLocked), existence (errors.taskNotFound), version
   * (errors.taskVersionConflict), ownership (protocol/plan-rules.ts checkOwnership: another agent's task needs
   * expectedVersion), dependencies (checkDependencies: known tasks, no cycle), status (checkStatus: in_progress
   * or done only when every dependency — the new ones when depends_on changes — is done).
   */
  updateTask(scope: RoomScope, input: TaskUpdate): Promise<Task>;
  /** errors.taskNotFound when absent. */
  getTask(scope: RoomScope, taskId: string): Promise<Task>;
  /**
   * get_my_summary in one atomic step: records a heartbeat for agentId (keeping its status text),
   * consumes up to `limit` unread events exactly like consumeEvents, and counts the context entries written or
   * updated since this agent's previous summary (all of them on its first). On a room the team does not own yet
   * it writes nothing and claims nothing: the empty summary with roomExists false.
   */
  summary(scope: RoomScope, agentId: string, limit: number): Promise<Summary>;

  // ── context ───────────────────────────────────────────────────────────────────────────────────────────
  /**
   * Stores a new entry (version "1.0", timestamp now). When consuming_agents is non-empty, appends
   * `context_available` {contextId, contextType, summary, consuming_agents} from the author, to the single
   * consumer or to "all" when there are several.
   */
  writeContext(scope: RoomScope, input: NewContext): Promise<ContextEntry>;
  /** errors.contextNotFound when absent. */
  readContext(scope: RoomScope, id: string): Promise<ContextEntry>;
  /** Earlier versions, oldest first (empty for an entry never updated); errors.contextNotFound when absent. */
  contextHistory(scope: RoomScope, id: string): Promise<ContextVersion[]>;
  /** Entries in creation order (oldest first), filtered by exact type and/or current author. */
  listContext(scope: RoomScope, filter: ContextFilter): Promise<ContextEntry[]>;
  /**
   * Revises an entry in place: same id and type; version "1.N" → "1.(N+1)"; author and timestamp become the
   * updater's; the previous version goes to history. When the (new) consuming_agents is non-empty, appends
   * `context_updated` {contextId, contextType, summary, previousVersion, version} addressed like writeContext.
   * Concurrent updates are serialised; none is lost.
   */
  updateContext(scope: RoomScope, input: ContextUpdate): Promise<ContextEntry>;

  // ── events ────────────────────────────────────────────────────────────────────────────────────────────
  /** Appends an event with the next seq (exactly +1) and a room-unique string id. */
  postEvent(scope: RoomScope, input: NewEvent): Promise<RoomEvent>;
  /**
   * Newest first; never moves a cursor. When retention trimmed the room's log and the range asked for starts below
   * its oldest kept event (sinceSeq absent or below it, or a time), the list carries trimmedBefore = that seq.
   */
  readEvents(scope: RoomScope, query: EventQuery): Promise<EventList>;
  /**
   * The log in order, for watchers: up to `limit` (1–100) events with seq > `after`, oldest first, the room's head
   * (last seq, 0 for none) and whether the scope's team owns the room (false: unowned, nothing to read). Never
   * moves a cursor or claims a room; another team's room is denied.
   */
  readLog(scope: RoomScope, after: number, limit: number): Promise<LogPage>;
  /**
   * Delivers, oldest first, up to `limit` events after the agent's cursor that are addressed to "all" or to
   * agentId, and moves the cursor to the seq of the last one delivered, in one atomic step: across any number
   * of concurrent callers and processes every event is delivered to an agent exactly once.
   * `remaining` counts the addressed events still after the new cursor. A consume that delivers nothing keeps
   * nothing under the scope's idempotency key (the key stays free for the retry that delivers).
   * A cursor behind the events retention trimmed carries on from the oldest kept event (each delivered exactly
   * once) and the batch says trimmedBefore (that seq); `remaining` never counts trimmed events.
   */
  consumeEvents(scope: RoomScope, agentId: string, limit: number): Promise<UnreadBatch>;
  /** Adds agentId to the event's read_by (idempotent). errors.eventNotFound when absent. */
  markEventRead(scope: RoomScope, eventId: string, agentId: string): Promise<void>;
  /** errors.eventNotFound when absent. */
  getEventReads(scope: RoomScope, eventId: string): Promise<string[]>;

  // ── presence ──────────────────────────────────────────────────────────────────────────────────────────
  /** Records lastSeen = now; statusText replaces the previous one when given, else is kept. */
  /** On a room the team does not own yet: records nothing, claims nothing (roomExists false). */
  heartbeat(scope: RoomScope, agentId: string, statusText?: string): Promise<Heartbeat>;
  /**
   * Every agent ever seen in the room (by heartbeat or summary), online when seen within 120 s; an agent suspended
   * in the room carries `suspended` {by, at, reason}, read in the same atomic step (one round trip on Redis).
   */
  getPresence(scope: RoomScope): Promise<Presence[]>;

  // ── locks ─────────────────────────────────────────────────────────────────────────────────────────────
  /**
   * Never blocks. Free or expired → taken by agentId for ttlMs, fence incremented (the fence of a resource
   * only grows, across releases and expiries). Held by agentId → renewed (expiry = now + ttlMs, same fence).
   * Held by another → {acquired: false, holder, expiresAt, fence} of the real holder, nothing changed.
   */
  acquireLock(scope: RoomScope, resource: string, agentId: string, ttlMs: number): Promise<LockState>;
  /**
   * Atomic compare-and-delete: released only when agentId holds a live lock on resource; otherwise nothing
   * changes and, when another agent holds it, the answer names the holder and its expiry.
   */
  releaseLock(scope: RoomScope, resource: string, agentId: string): Promise<Release>;
  /** Live locks only. */
  listLocks(scope: RoomScope): Promise<LockInfo[]>;

  // ── shared variables ──────────────────────────────────────────────────────────────────────────────────
  /**
   * Sets the value (a string, kept byte for byte) and appends `shared_var_set` {key} from agentId. A new key in a
   * room holding LIMITS.varsPerRoom variables is refused with toolErrors.varLimit, changing nothing; setting a key
   * the room holds is always allowed.
   */
  setVar(scope: RoomScope, key: string, value: string, agentId: string): Promise<void>;
  getVar(scope: RoomScope, key: string): Promise<string | null>;
  listVars(scope: RoomScope): Promise<Record<string, string>>;

  // ── small values (protocol/room-values.ts) ────────────────────────────────────────────────────────────
  /**
   * Every value of kind `piece` the room holds, by key ({} for none, and for an unowned room). A kind the store's
   * declaration does not hold → valueErrors.unknown.
   */
  readValues(scope: RoomScope, piece: string): Promise<Record<string, unknown>>;
  /**
   * Sets the value under `key` (checked against the kind's declaration: valueText), or removes it (value null). A
   * new key past the kind's maxKeys → valueErrors.limit, changing nothing. Removing a value the room does not hold
   * writes (and claims) nothing. Appends no event.
   */
  writeValue(scope: RoomScope, input: ValueWrite): Promise<void>;

  // ── the rest of the earlier server's tools (deletions, history, templates, reviews, search, analytics) ──
  /**
   * Deletes a task and appends `task_deleted` {taskId, task, force} (to "all"). Checks, in this order: plan lock,
   * existence, version, ownership (as updateTask), dependents: refused with toolErrors.hasDependents while other
   * tasks depend on it, unless `force` (their depends_on then names a missing task, which counts as unmet).
   * Returns the task as it was.
   */
  deleteTask(scope: RoomScope, input: TaskDeletion): Promise<Task>;
  /**
   * Appends one dependency to a task's depends_on in the same atomic step as the plan's checks (plan lock,
   * existence, version, ownership, dependencies known and acyclic, status: an in_progress or done task may only
   * gain a done dependency), bumps version and appends `task_updated` {task, previousStatus, changes:
   * {depends_on}}. A dependency already present changes nothing and returns the task as it is.
   */
  addDependency(scope: RoomScope, input: NewDependency): Promise<Task>;
  /**
   * Deletes an entry with its history and appends `context_deleted` {contextId, entry} from agentId, addressed
   * like writeContext's event but always appended ("all" when it has no consumer). Returns the entry as it was.
   */
  deleteContext(scope: RoomScope, input: ContextDeletion): Promise<ContextEntry>;
  /** The current entry and its earlier versions (oldest first) in one atomic read; errors.contextNotFound. */
  contextVersions(scope: RoomScope, id: string): Promise<{ entry: ContextEntry; history: ContextVersion[] }>;
  /**
   * Replaces an event posted with postEvent by a tombstone: same id, seq, type, from, to, timestamp, reply_to_id and
   * read_by, payload {}, `deleted` {by, at}; removes it from search and appends `event_deleted` {eventId, seq,
   * type} from `by` to "all". Seqs stay gap-free and every cursor stays where it was (a tombstone is delivered like
   * any event). Refusals: errors.eventNotFound; toolErrors.roomdEvent for events roomd appended itself;
   * toolErrors.notAuthor when onlyAuthor is set and is not the event's `from`. A tombstone is returned as it is.
   */
  deleteEvent(scope: RoomScope, input: EventRemoval): Promise<RoomEvent>;
  /** The team's live rooms, oldest claim first (list_rooms). */
  usableRooms(teamId: string): Promise<UsableRoom[]>;
  /**
   * Fills a new or empty room (no task, no context entry, no event; else toolErrors.roomNotEmpty) from a seed, as
   * `agentId`, in one atomic step, claiming it: the tasks (ids task-1…, depends_on mapped from seed indexes) with
   * their task_added events, the context entries (ctx-1…) with their context_available events, then
   * `template_applied` {template, tasks, contexts} (ids). The plan lock is checked like addTask.
   */
  seedRoom(
    scope: RoomScope,
    seed: RoomSeed,
    agentId: string,
  ): Promise<{ tasks: Task[]; contexts: ContextEntry[] }>;
  /** Stores a pending review "rev-<n>" and appends `review_requested` {review} from requester to reviewer. */
  requestReview(scope: RoomScope, input: NewReview): Promise<Review>;
  /**
   * Decides a pending review: only its reviewer (toolErrors.notReviewer), only once (toolErrors.reviewDecided);
   * appends `review_decided` {review} from the reviewer to the requester. toolErrors.reviewNotFound when absent.
   */
  decideReview(scope: RoomScope, input: ReviewDecision): Promise<Review>;
  /** Reviews in request order, filtered. */
  listReviews(scope: RoomScope, filter: ReviewFilter): Promise<Review[]>;
  /**
   * Ranked hits (protocol/search.ts: bm25 with the room's own statistics, ties by id, snippets) among the room's
   * tasks, context entries and posted events (not the events roomd appends itself, nor tombstones). The index is
   * kept by the writes themselves, in their atomic step.
   */
  search(scope: RoomScope, query: SearchQuery): Promise<SearchHit[]>;
  /** Everything get_room_analytics reads, in one atomic read (see protocol/analytics.ts AnalyticsLog). */
  analyticsLog(scope: RoomScope): Promise<AnalyticsLog>;
  // ── leases (protocol/leases.ts) ──────────────────────────────────────────────────────────────────────
  /**
   * Takes a task with a lease, atomically: the task (as reads show it, protocol/leases.ts effectiveTask) must
   * exist, be pending and unowned (or owned by the caller), with every dependency done; it becomes in_progress,
   * owned by agentId, version + 1, with lease_expires_at = now + leaseMs; event `task_claimed` {task}.
   * Checks, in this order: plan lock (errors.planLocked), existence (errors.taskNotFound), version
   * (errors.taskVersionConflict), done (leaseErrors.notClaimable), another owner (leaseErrors.owned, with the
   * lease's expiry when leased), status other than pending (leaseErrors.notClaimable), dependencies
   * (planErrors.blocked). A task the caller already has in_progress is (re)leased without a version change or
   * an event. Like every plan write, it first records every lease of the room that ran out.
   */
  claimTask(scope: RoomScope, input: TaskClaim): Promise<Task>;
  /**
   * Renews every live lease (and file claim) of agentId and returns its leased tasks with their new expiries, in
   * plan order; with taskId, only that task, which must be leased to the caller (errors.taskNotFound,
   * leaseErrors.notLeased). Records leases that ran out first, like every plan write.
   */
  renewLeases(scope: RoomScope, agentId: string, taskId?: string): Promise<Task[]>;
  /**
   * leave_room: the agent's presence becomes "left" (until its next call) without a status text, and its live leases (tasks back to
   * pending, unowned, version + 1), file claims and locks are released, in one atomic step; events
   * `files_released` {paths} (when it held claims) and `agent_left` {agentId, tasks, paths, locks}. On a room the
   * team does not own it records nothing (roomExists false). The scope's actor is ignored: leaving is not a visit.
   */
  leaveRoom(scope: RoomScope, agentId: string): Promise<LeaveResult>;

  // ── suspended agents (protocol/suspensions.ts) ───────────────────────────────────────────────────────
  /**
   * Suspends `agentId` in a room scope.teamId owns (RoomError denied otherwise; never claims): in the same atomic
   * step its live task leases go back (pending, unowned, as at a lease's expiry), its file claims and locks are
   * released (files_released when paths went), the wheel too when it drives the room, and `agent_suspended`
   * {agentId, by, reason, tasks, paths, locks} is appended (from `by`); signals "presence". From then on every room
   * operation whose actor or caller (RoomScope.actor and .caller, or leaveRoom's agent) is the agent is refused with
   * protocol/suspensions.ts suspendedError, until resumeAgent. Already suspended: answers the earlier suspension
   * with already: true and changes nothing.
   */
  suspendAgent(
    scope: RoomScope,
    input: { agentId: string; by: string; reason: string },
  ): Promise<SuspendResult>;
  /**
   * Lifts the suspension and appends `agent_resumed` {agentId, by}; {resumed: false} and nothing changed when the
   * agent was not suspended. RoomError denied unless scope.teamId owns the room.
   */
  resumeAgent(scope: RoomScope, input: { agentId: string; by: string }): Promise<ResumeResult>;
  /** The room's suspended agents, sorted by agent id (byte order). RoomError denied unless the team owns the room. */
  listSuspensions(scope: RoomScope): Promise<Suspension[]>;

  // ── file claims (protocol/claims.ts) ─────────────────────────────────────────────────────────────────
  /**
   * All or nothing: when any requested path overlaps another agent's live claim, answers every such pair as
   * conflicts and changes nothing; otherwise claims (or renews) every path for ttlMs, records claims that ran out
   * (`files_claim_expired` {path, heldBy, expiredAt} each), appends `files_claimed` {paths, expiresAt, reason?}
   * and signals "claims". More than LIMITS.claimsPerRoom live claims → RoomError("limit").
   */
  claimFiles(scope: RoomScope, input: FilesClaim): Promise<ClaimResult>;
  /**
   * Releases the agent's live claims named exactly in `paths` (all of them when omitted); appends
   * `files_released` {paths} when any went. Releasing nothing writes (and claims) nothing.
   */
  releaseFiles(scope: RoomScope, agentId: string, paths?: string[]): Promise<{ released: string[] }>;
  /** Live claims in byte order of path, filtered by holder and/or overlap with a path. */
  listClaims(scope: RoomScope, filter: ClaimFilter): Promise<FileClaim[]>;
  /** protocol/claims.ts checkPaths over the live claims, one answer per path in the given order. */
  checkFiles(scope: RoomScope, agentId: string, paths: string[]): Promise<FileCheck[]>;
  /** Live claims, every agent's presence and the newest event's seq, in one read. */
  roomState(scope: RoomScope): Promise<RoomStateView>;
  /** Appends `broadcast` {message, status?} from agentId to all; with status, sets its presence status text. */
  broadcast(scope: RoomScope, input: NewBroadcast): Promise<RoomEvent>;

  // ── lifecycle ─────────────────────────────────────────────────────────────────────────────────────────
  /** Resolves when the store answers; throws RoomError("store_unavailable") otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
