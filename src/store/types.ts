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
 * This file imports only types, so drivers and the layers above can depend on it freely.
 */

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
  RoomEvent,
  Summary,
  Task,
  TaskStatus,
  UnreadBatch,
} from "../protocol/records.ts";
import type { AccessStore } from "./access-types.ts";
import type { PeopleStore } from "./people-types.ts";

export type StoreDriver = "sqlite" | "redis" | "upstash";

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
   * The acting agent of the call. A successful operation on a room the team owns (after claiming it, for a write)
   * records this agent's presence (lastSeen = now, status text kept) in the same atomic step, so any call that
   * names the agent keeps it online (revisions §3.10).
   */
  actor?: string;
  /** Set by mutating calls that carry an idempotencyKey (revisions §1.5); see Idempotency. */
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

export interface NewTask {
  title: string;
  description: string;
  depends_on: string[];
  priority: number | null;
  /** Acting agent: the event's `from` ("system" when absent) and the plan-lock identity. */
  agentId?: string;
}

export interface TaskUpdate {
  taskId: string;
  status?: TaskStatus;
  /** null unassigns. */
  owner?: string | null;
  title?: string;
  description?: string;
  /** Replaces the dependencies (same rules as addTask: known tasks, no cycle). */
  depends_on?: string[];
  /** null clears it. */
  priority?: number | null;
  /** Kept in the task_updated event only; never erases the description. */
  note?: string;
  agentId?: string;
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

/**
 * Kinds of signal: a change that is not an event of the log (presence, locks, shared variables, file claims, the
 * driver). Signals are not stored or replayed; watchers re-read what they show.
 */
export const SIGNAL_KINDS = ["presence", "locks", "vars", "claims", "driver"] as const;
export type SignalKind = (typeof SIGNAL_KINDS)[number];

/** A change in a room, as the change feed reports it: the log's new head, or a signal. */
export type RoomChange = { roomId: string; seq: number } | { roomId: string; signal: SignalKind };

/**
 * The store's change feed, one per store instance (so one per process): it reports the changes of the rooms it
 * watches, made by any process on the same store, within about a second — Redis by sharded pub/sub published
 * inside the write's script, Upstash by one request per tick for all watched rooms, SQLite by an in-process signal
 * plus a cheap check of the file's data_version every 100 ms while anything is watched. A report is a hint:
 * watchers read what changed from the store, by seq. Watching costs no store request per watcher.
 */
export interface ChangeFeed {
  /** Starts reporting the room's changes to `onChange`; the returned function stops. */
  watch(roomId: string, onChange: (change: RoomChange) => void): () => void;
}

export interface RoomStore extends AccessStore, PeopleStore<RoomScope> {
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
  /** Newest first; never moves a cursor. */
  readEvents(scope: RoomScope, query: EventQuery): Promise<RoomEvent[]>;
  /**
   * Delivers, oldest first, up to `limit` events after the agent's cursor that are addressed to "all" or to
   * agentId, and moves the cursor to the seq of the last one delivered, in one atomic step: across any number
   * of concurrent callers and processes every event is delivered to an agent exactly once.
   * `remaining` counts the addressed events still after the new cursor.
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
  /** Every agent ever seen in the room (by heartbeat or summary), online when seen within 120 s. */
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
  /** Sets the value (a string, kept byte for byte) and appends `shared_var_set` {key} from agentId. */
  setVar(scope: RoomScope, key: string, value: string, agentId: string): Promise<void>;
  getVar(scope: RoomScope, key: string): Promise<string | null>;
  listVars(scope: RoomScope): Promise<Record<string, string>>;

  // ── lifecycle ─────────────────────────────────────────────────────────────────────────────────────────
  /** Resolves when the store answers; throws RoomError("store_unavailable") otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
