/**
 * Records of people in the room (docs/people.md): the driver, approvals, handoffs, verdicts, messages, forks, and
 * the refusals every driver answers with the same words. Field names are part of the wire contract.
 */
import { RoomError } from "./errors.ts";
import type { JsonObject, Task, TaskStatus } from "./records.ts";

/** Who holds the wheel. `epoch` grows by one on every change of holder (take, release, force), never reset. */
/** The Claude Code hooks the agent bridge serves (`roomctl hook <name>`, `POST /rooms/:roomId/bridge`). */
export const BRIDGE_HOOKS = [
  "SessionStart",
  "PreToolUse",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
] as const;
export type BridgeHook = (typeof BRIDGE_HOOKS)[number];

export interface DriverState {
  holder: string | null;
  holderKind: "human" | "agent" | null;
  epoch: number;
  /** ISO time of the last change of holder; null for a room never driven. */
  since: string | null;
}

export const NO_DRIVER: DriverState = { holder: null, holderKind: null, epoch: 0, since: null };

/** What changed the driver, in the driver_changed event. */
export type DriverReason = "taken" | "taken_from_agent" | "forced" | "claimed" | "released" | "forked";

export const APPROVAL_STATUSES = ["pending", "approved", "rejected", "expired"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];
export type ApprovalDecision = "approve" | "reject";

export interface Approval {
  id: string;
  action: string;
  details: JsonObject;
  requestedBy: string;
  /** The people (`human:<id>`) who alone may decide it, when the requester named them (protocol/roles.ts). */
  approvers?: string[];
  /** A pending approval past expires_at reads as expired (computed on every read, never stored). */
  status: ApprovalStatus;
  decidedBy?: string;
  note?: string;
  created_at: string;
  decided_at?: string;
  expires_at: string;
}

export const HANDOFF_STATUSES = ["offered", "accepted", "declined", "cancelled"] as const;
export type HandoffStatus = (typeof HANDOFF_STATUSES)[number];

/** A task an acceptor could not take: its owner changed since the offer. */
export interface HandoffConflict {
  taskId: string;
  owner: string | null;
}

export interface Handoff {
  id: string;
  /** Whose work is handed on: an agent, or `human:<id>` for a person offering on behalf of the room. */
  from: string;
  /** An agent id, or "any" (any agent may accept). */
  to: string;
  taskIds: string[];
  contextIds: string[];
  note: string;
  status: HandoffStatus;
  /** Who made the offer (`from`, or the person who offered on an agent's behalf). */
  offeredBy: string;
  /** Each listed task's owner when the offer was made: accepting moves a task only while it still has it. */
  owners: Record<string, string | null>;
  created_at: string;
  updated_at: string;
  /** The agent that accepted, declined, or the one who cancelled. */
  closedBy?: string;
  /** A decline's reason. */
  reason?: string;
  /** On acceptance: the tasks moved to the acceptor, and those whose owner had changed (left unchanged). */
  moved?: string[];
  conflicts?: HandoffConflict[];
}

/** The word "any" in a handoff's `to`. */
export const ANY_AGENT = "any";

export const VERDICTS = ["pass", "fail", "neutral"] as const;
export type VerdictValue = (typeof VERDICTS)[number];

export interface Verdict {
  id: string;
  verdict: VerdictValue;
  summary: string;
  details: string;
  ref: string | null;
  by: string;
  created_at: string;
}

export type { HumanMessage } from "./records.ts";

export interface ForkedFrom {
  roomId: string;
  seq: number;
}

/** get_room_info: what a room is, without its contents. */
export interface RoomInfo {
  roomId: string;
  /** False for a room with no state yet (nothing below is then filled but zeros). */
  exists: boolean;
  createdAt: string | null;
  lastActivity: string | null;
  taskCount: number;
  tasksByStatus: Record<TaskStatus, number>;
  contextCount: number;
  eventCount: number;
  agentCount: number;
  driver: DriverState;
  forkedFrom: ForkedFrom | null;
}

/** Event types people and the bridge read from a room's log by kind (an index keeps them cheap to find). */
export const MAILBOX_TYPES = ["human_message", "steer", "interrupt"] as const;
export type MailboxType = (typeof MAILBOX_TYPES)[number];

/** Sizes of the records above (docs/protocol.md#sizes-and-counts). */
export const PEOPLE_LIMITS = {
  messageMax: 8000,
  actionMax: 200,
  detailsBytesMax: 16 * 1024,
  expiresDefaultSeconds: 3600,
  expiresMinSeconds: 60,
  expiresMaxSeconds: 86_400,
  noteMax: 4000,
  reasonMax: 2000,
  verdictSummaryMax: 2000,
  verdictDetailsBytesMax: 16 * 1024,
  refMax: 2000,
  handoffItemsMax: 100,
  /** Messages one get_my_summary or bridge call delivers at most (the rest come on the next). */
  messagesPerCall: 20,
  /** agent_step targets are cut to this many chars (a command's head, never its output). */
  stepTargetMax: 120,
} as const;

const heldBy = (state: DriverState) =>
  state.holder === null
    ? `nobody drives now (epoch ${state.epoch})`
    : `the driver is now ${state.holder} at epoch ${state.epoch}`;

/** The refusals of people's operations: every driver answers with exactly these. */
export const peopleErrors = {
  /** A person taking the wheel from another person without an operator's force. */
  driverHeld: (state: DriverState) =>
    new RoomError(
      "conflict",
      `The room is driven by ${state.holder} since ${state.since}; they release it, or an operator takes it with force`,
    ),
  /** claim_driver while anyone drives. */
  driverTaken: (state: DriverState) =>
    new RoomError(
      "conflict",
      `The room is driven by ${state.holder} (epoch ${state.epoch}): claim_driver succeeds only when nobody drives`,
    ),
  staleEpoch: (given: number, state: DriverState) =>
    new RoomError("conflict", `Stale driver epoch ${given}; ${heldBy(state)}`),
  notDriver: (action: string, state: DriverState) =>
    new RoomError(
      "forbidden",
      state.holder === null
        ? `Only the driver can ${action}; nobody drives this room: take the wheel first`
        : `Only the driver (${state.holder}) can ${action}`,
    ),
  approvalNotFound: (id: string) => new RoomError("not_found", `Approval not found: ${id}`),
  approvalDecided: (a: Pick<Approval, "id" | "status" | "decidedBy" | "decided_at">) =>
    new RoomError(
      "conflict",
      `Approval ${a.id} was already ${a.status} by ${a.decidedBy} at ${a.decided_at}`,
    ),
  approvalExpired: (a: Pick<Approval, "id" | "expires_at">) =>
    new RoomError("conflict", `Approval ${a.id} expired at ${a.expires_at}; ask for a new one`),
  handoffNotFound: (id: string) => new RoomError("not_found", `Handoff not found: ${id}`),
  handoffClosed: (h: Pick<Handoff, "id" | "status" | "closedBy">) =>
    new RoomError("conflict", `Handoff ${h.id} was ${h.status} by ${h.closedBy}`),
  handoffNotForYou: (h: Pick<Handoff, "id" | "to">, agent: string) =>
    new RoomError("forbidden", `Handoff ${h.id} is offered to ${h.to}, not to ${agent}`),
  handoffOwnOffer: (id: string) =>
    new RoomError("conflict", `Handoff ${id} is your own offer: cancel it instead`),
  handoffToAny: (id: string) =>
    new RoomError(
      "conflict",
      `Handoff ${id} is offered to any agent: leave it for another one (the offerer may cancel it)`,
    ),
  handoffNotOfferer: (h: Pick<Handoff, "id" | "from" | "offeredBy">) =>
    new RoomError(
      "forbidden",
      `Only the offerer (${h.offeredBy === h.from ? h.from : `${h.offeredBy} or ${h.from}`}) can cancel handoff ${h.id}`,
    ),
  /** An agent offering a task someone else owns. */
  taskNotYours: (taskId: string, owner: string) =>
    new RoomError(
      "conflict",
      `Task ${taskId} is owned by ${owner}: an agent hands on only its own or unowned tasks`,
    ),
  forkTargetExists: (roomId: string) =>
    new RoomError("conflict", `Room ${roomId} already exists; choose another newRoomId`),
  /** A fork written in parts (Redis) whose new room was deleted or made again by someone else between parts. */
  forkInterrupted: (roomId: string) =>
    new RoomError(
      "conflict",
      `Room ${roomId} changed while the fork was being written into it (deleted, or made again by someone else); nothing of the fork is left: fork again`,
    ),
  forkPastHead: (atSeq: number, head: number) =>
    new RoomError(
      "invalid",
      `Invalid arguments: atSeq: ${atSeq} is past the room's last event (seq ${head})`,
    ),
  peopleOnly: (action: string) => new RoomError("forbidden", `Only people can ${action}`),
};

/** The presence status a bridge hook leaves for its agent. */
export const HOOK_STATUS: Record<BridgeHook, string> = {
  SessionStart: "session started",
  PreToolUse: "working",
  PostToolUse: "working",
  UserPromptSubmit: "working",
  Stop: "idle",
};

/** room_info of a room that does not exist (or is not the caller's). */
export const emptyRoomInfo = (roomId: string): RoomInfo => ({
  roomId,
  exists: false,
  createdAt: null,
  lastActivity: null,
  taskCount: 0,
  tasksByStatus: { pending: 0, in_progress: 0, done: 0, blocked: 0 },
  contextCount: 0,
  eventCount: 0,
  agentCount: 0,
  driver: NO_DRIVER,
  forkedFrom: null,
});

/** A pending approval past its expiry reads as expired. */
export function effectiveApproval(approval: Approval, now: number): Approval {
  return approval.status === "pending" && Date.parse(approval.expires_at) <= now
    ? { ...approval, status: "expired" }
    : approval;
}

/**
 * The decision a store applies to a handoff acceptance: which listed tasks move (their owner is still the one
 * recorded at the offer) and which are reported as conflicts. `current` gives a task's current state, undefined
 * for a task that no longer exists (reported with owner null).
 */
export function handoffMoves(
  handoff: Pick<Handoff, "taskIds" | "owners">,
  current: (taskId: string) => Pick<Task, "owner"> | undefined,
): { move: string[]; conflicts: HandoffConflict[] } {
  const move: string[] = [];
  const conflicts: HandoffConflict[] = [];
  for (const taskId of handoff.taskIds) {
    const task = current(taskId);
    const expected = handoff.owners[taskId] ?? null;
    if (task !== undefined && (task.owner ?? null) === expected) move.push(taskId);
    else conflicts.push({ taskId, owner: task?.owner ?? null });
  }
  return { move, conflicts };
}
