/** Record shapes of the Room Protocol (docs/protocol.md#3-records). Field names are part of the wire contract. */
import { LIMITS } from "./limits.ts";
import { iso } from "./time.ts";

export const TASK_STATUSES = ["pending", "in_progress", "done", "blocked"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export interface Task {
  id: string;
  title: string;
  description: string;
  status: TaskStatus;
  owner: string | null;
  depends_on: string[];
  priority: number | null;
  version: number;
  created_at: string;
  updated_at: string;
  /**
   * Only on a task held under a lease (claim_task): when the lease runs out unless the owner's calls renew it.
   * Renewal changes neither version nor updated_at (protocol/leases.ts).
   */
  lease_expires_at?: string;
}

export interface Plan {
  project: string;
  /** ISO time of the first task, null for an empty plan. */
  created_at: string | null;
  /** ISO time of the last plan change, null for an empty plan. */
  updated_at: string | null;
  tasks: Task[];
}

/** A JSON object: every payload (context, event) is one. */
export type JsonObject = Record<string, unknown>;

export const CONTEXT_TYPES = ["api_contract", "arch_decision", "task", "change_request", "note"] as const;
export type ContextType = (typeof CONTEXT_TYPES)[number];

export interface ContextEntry {
  id: string;
  type: ContextType;
  author: string;
  timestamp: string;
  summary: string;
  consuming_agents: string[];
  payload: JsonObject;
  /** "1.0", "1.1", … "1.10": the minor number counts updates. */
  version: string;
}

export interface RoomEvent {
  id: string;
  seq: number;
  type: string;
  from: string;
  to: string;
  payload: JsonObject;
  timestamp: string;
  read_by: string[];
  reply_to_id?: string;
  /** Set on a tombstone (delete_event): its payload is {} and this says who deleted it and when. */
  deleted?: EventDeletion;
}

export const PRESENCE_STATUSES = ["online", "offline", "left"] as const;

export interface Presence {
  agentId: string;
  /** left: the agent called leave_room and has not called anything since. */
  status: (typeof PRESENCE_STATUSES)[number];
  lastSeen: string;
  statusText?: string;
  /**
   * Set by getPresence on an agent suspended in the room (protocol/suspensions.ts Suspension, without the agent id),
   * read in the same step as the presence.
   */
  suspended?: { by: string; at: string; reason: string };
}

/**
 * A presence record from its stored parts: left after leave_room (until the agent's next call), else online when
 * seen within LIMITS.presenceOnlineMs; an absent or empty status text is left out. The one definition both
 * drivers use.
 */
export function presenceOf(
  agentId: string,
  lastSeenMs: number,
  statusText: string | null | undefined,
  now: number,
  left = false,
): Presence {
  const presence: Presence = {
    agentId,
    status: left ? "left" : now - lastSeenMs < LIMITS.presenceOnlineMs ? "online" : "offline",
    lastSeen: iso(lastSeenMs),
  };
  if (statusText) presence.statusText = statusText;
  return presence;
}

export interface LockState {
  acquired: boolean;
  resource: string;
  /** The real current holder (the caller when acquired). */
  holder: string;
  expiresAt: string;
  fence: number;
}

export interface LockInfo {
  resource: string;
  owner: string;
  expiresAt: string;
  fence: number;
}

export interface UnreadBatch {
  /** Oldest first. */
  events: RoomEvent[];
  /** seq of the last event this agent consumed; null before its first. */
  cursor: number | null;
  count: number;
  /** Events addressed to this agent still unconsumed after this batch. */
  remaining: number;
  /**
   * Present when the agent's cursor was behind the events retention trimmed (EVENT_RETENTION_*): the oldest seq the
   * log still has; the batch carries on from there, and the events before it are gone.
   */
  trimmedBefore?: number;
}

/** A person's message (a human_message event) as get_my_summary and the bridge deliver it. */
export interface HumanMessage {
  id: string;
  seq: number;
  from: string;
  to: string;
  text: string;
  timestamp: string;
}

export interface Summary {
  agentId: string;
  roomId: string;
  /** False for a room with no state yet (the summary never creates one). */
  roomExists: boolean;
  /**
   * People's messages to this agent (or to all) it has not received yet, oldest first: they lead the summary,
   * whatever the agent's backlog of other events. They also come through the cursor like any event
   * (docs/people.md#messages-steers-and-interrupts-reach-a-running-agent).
   */
  messages: HumanMessage[];
  myTasks: Task[];
  unreadEvents: UnreadBatch;
  newContextCount: number;
  presence: Presence[];
  cursor: number | null;
}

/** What a heartbeat recorded, or would have: a heartbeat never creates a room. */
export interface Heartbeat {
  presence: Presence;
  roomExists: boolean;
}

/** A release: released, or (when another agent holds the lock) who holds it and until when. */
export interface Release {
  released: boolean;
  holder?: string;
  expiresAt?: string;
}

/** Told to an agent naming a room that has no state yet (a typo in a room id no longer creates a room). */
export const roomHint = (roomId: string): string =>
  `Room ${roomId} has no state yet: it is created by the first add_task, write_context, post_event or POST /admin/rooms`;

/** Address meaning "every agent" in an event's `to`. */
export const BROADCAST = "all";

/** A tombstone's mark: who deleted the event and when (its payload is gone; seq, type, from, to stay). */
export interface EventDeletion {
  by: string;
  at: string;
}

export const REVIEW_STATUSES = ["pending", "approved", "rejected"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** A peer review between agents: requested of one named reviewer, decided only by that reviewer. */
export interface Review {
  /** "rev-<n>". */
  id: string;
  status: ReviewStatus;
  requester: string;
  reviewer: string;
  subject: string;
  details: string;
  /** The task under review, if any (it existed when the review was requested). */
  task_id: string | null;
  /** The context entry under review and its version at request time, if any. */
  context_id: string | null;
  context_version: string | null;
  /** The reviewer's comment with the decision. */
  comment: string | null;
  created_at: string;
  decided_at: string | null;
}
