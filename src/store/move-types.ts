/**
 * The moving half of the store contract: a room's records as one driver-neutral snapshot (export), written back
 * as a new room (import), and the access records a migration copies (team ids, key and invite digests). Also the
 * event retention every append applies. RoomStore extends MoveStore, so every driver implements it and the
 * conformance suite (test/store/conformance/moving.ts, retention.ts) defines it.
 *
 * What a room's snapshot holds and what it leaves out is decided in docs/operations.md ("What an export holds"):
 * durable coordination state is carried (plan with leases, context with history, the log with read receipts and
 * tombstones, variables, reviews, approvals, handoffs, verdicts, the driver and its epoch, cursors and delivery
 * marks, lock fences, file claims); liveness is not (presence, lock holders, idempotency results), nor anything
 * secret or deployment-bound (invites, webhooks).
 *
 * Generic in the scope type so this file needs nothing from types.ts (which extends it: no import cycle).
 */

import type { Approval, DriverState, ForkedFrom, Handoff, MailboxType, Verdict } from "../protocol/people.ts";
import type { ContextEntry, Review, RoomEvent, Task } from "../protocol/records.ts";
import type { NewInvite, NewKey } from "./access-types.ts";

/**
 * Event retention (EVENT_RETENTION_DAYS, EVENT_RETENTION_MAX), applied by every append in its own atomic step:
 * the oldest events of the room go while the room keeps more than `maxEvents` or while they are older than
 * `maxAgeMs` — at most TRIM_PER_APPEND events (and TRIM_INDEXED_PER_APPEND searchable ones) per appended event,
 * never the event being appended. 0 disables a bound.
 */
export interface EventRetention {
  maxEvents: number;
  maxAgeMs: number;
}

export const NO_RETENTION: EventRetention = { maxEvents: 0, maxAgeMs: 0 };
/** Events trimmed at most per appended event: the work an append adds is bounded, whatever the backlog. */
export const TRIM_PER_APPEND = 100;
/**
 * Of those, events posted by agents (searchable: their index entries go with them, O(their words)) at most. Each
 * append adds one event, so trimming still keeps up.
 */
export const TRIM_INDEXED_PER_APPEND = 10;

/** A context entry's earlier version in a snapshot, with the log head at which it became current (null: unknown). */
export interface SnapshotVersion {
  version: Omit<ContextEntry, "id" | "type">;
  atSeq: number | null;
}

/** One of a room's small values (protocol/room-values.ts): its kind, its key and the value. */
export interface RoomValue {
  piece: string;
  key: string;
  value: unknown;
}

/** Everything a room holds besides its log, as of one instant (exportRoom). Times are ISO strings. */
export interface RoomSnapshot {
  createdAt: string;
  forkedFrom: ForkedFrom | null;
  /** The seq of the newest event (0 for none): the log the snapshot goes with is seq ≤ head. */
  head: number;
  /** The oldest seq the log still has when retention trimmed it (every seq below is gone); null when untrimmed. */
  trimmedBefore: number | null;
  plan: { createdAt: string | null; updatedAt: string | null };
  /** The last minted task-<n> and ctx-<n>, and the context change counter (newContextCount compares with it). */
  counters: { tasks: number; contexts: number; contextChanges: number };
  driver: DriverState;
  /** In plan order; a leased task (lease_expires_at) with its lease's length. */
  tasks: { task: Task; leaseMs: number | null }[];
  /** In creation order; history oldest first. */
  contexts: {
    entry: ContextEntry;
    atSeq: number | null;
    /** The context change counter at the entry's last write. */
    changedSeq: number;
    history: SnapshotVersion[];
  }[];
  /** By key. */
  vars: { key: string; value: string }[];
  /** In creation order; approvals with their stored status (a pending one past expires_at reads as expired). */
  reviews: Review[];
  approvals: Approval[];
  handoffs: Handoff[];
  verdicts: Verdict[];
  /** By agent: the seq of the last consumed event (null before the first) and the context mark of its summaries. */
  cursors: { agentId: string; seq: number | null; contextMark: number }[];
  /** By agent, then type: the last message, steer or interrupt the bridge or get_my_summary delivered. */
  marks: { agentId: string; type: MailboxType; seq: number }[];
  /** By resource: each lock's fencing counter (holders are not carried; the fence only grows). */
  fences: { resource: string; fence: number }[];
  /** By path: live and lapsed file claims as stored (a lapsed one reads as gone, as before). */
  claims: {
    path: string;
    agentId: string;
    expiresAt: string;
    ttlMs: number;
    claimedAt: string;
    reason?: string;
  }[];
  /** By kind, then key: the small values of the kinds declared to move (protocol/room-values.ts). */
  values: RoomValue[];
}

/** One event of the log with what reads do not show: whether an agent posted it, and first context deliveries. */
export interface LoggedEvent {
  event: RoomEvent;
  /** Posted by an agent (post_event, reply_to_event): deletable, and searchable unless a tombstone. */
  posted: boolean;
  /** context_available / context_updated only: when the event first reached each agent (analytics), by agent. */
  deliveredAt: Record<string, string>;
}

/** What importRoom writes: the snapshot and its log, oldest first (seqs trimmedBefore ?? 1 … head, no gap). */
export interface RoomImport {
  snapshot: RoomSnapshot;
  /**
   * The log, read once, oldest first. Synchronous so a driver may write the whole room in one transaction while
   * the events stream from a file; it may be large (the caller reads it from disk).
   */
  events(): Iterable<LoggedEvent>;
}

export interface MoveStore<RoomScope> {
  /**
   * The room's snapshot in one atomic read, or null when the scope's team does not own it (unowned or expired);
   * another team's room is RoomError "denied". Never claims, never refreshes anything: like every read with
   * RoomScope.observe, it records no use of the room (an export, or a migration reading it, moves nothing).
   */
  exportRoom(scope: RoomScope): Promise<RoomSnapshot | null>;
  /**
   * Up to `limit` (1–500) events with seq > after, oldest first, with what LoggedEvent adds. Reads only, and records
   * no use of the room (as exportRoom).
   */
  exportLog(scope: RoomScope, after: number, limit: number): Promise<LoggedEvent[]>;
  /**
   * Writes a new room, owned by scope.teamId, exactly as the snapshot and log say: same ids, seqs, times,
   * versions, counters (the next task, entry, event, review… gets the next number), with its search index and
   * counts. The room must not exist: the team's own → errors.roomExists (conflict), another team's → denied.
   * Counts towards the team's room limit. Atomic on SQLite (one transaction); on Redis written in parts like a
   * fork, a failure removes what was written and a crash between parts leaves an incomplete room (see
   * docs/operations.md). The room's first event after the import is head + 1.
   */
  importRoom(scope: RoomScope, data: RoomImport): Promise<void>;
  /** Every team that has a key or a live room, sorted (for migration; not atomic). */
  teamsToMove(): Promise<string[]>;
  /** The team's keys with their digests (never a secret: stores hold none), oldest first. */
  keyDigests(teamId: string): Promise<NewKey[]>;
  /** The room's live invites with their digests, oldest first; RoomError "denied" unless scope.teamId owns it. */
  inviteDigests(scope: { roomId: string; teamId: string }): Promise<NewInvite[]>;
}
