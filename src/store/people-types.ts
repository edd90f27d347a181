/**
 * The people half of the store contract (docs/people.md): the driver with its epoch fencing, approvals, handoffs,
 * verdicts, forks, the room's description, and the bridge's one-call exchange. RoomStore extends it, so every
 * driver implements it and the conformance suite (test/store/conformance/people-*.ts) defines it. Like every store
 * operation each one is atomic, takes a RoomScope, and changes nothing when it throws.
 *
 * The store does not know principals: callers (routes, tools) decide who may call what — only people decide
 * approvals, take the wheel or steer — and pass names as the events carry them (`human:<id>` or an agent id).
 */

import type {
  Approval,
  ApprovalDecision,
  ApprovalStatus,
  BridgeHook,
  DriverState,
  ForkedFrom,
  Handoff,
  HandoffStatus,
  HumanMessage,
  RoomInfo,
  Verdict,
  VerdictValue,
} from "../protocol/people.ts";
import type { HandoffInput } from "../protocol/people-rules.ts";
import type { JsonObject, RoomEvent, Task } from "../protocol/records.ts";

export interface TakeDriver {
  /** The taker, as events name it. */
  holder: string;
  kind: "human" | "agent";
  /**
   * Take it from another person too (an operator's force). Without it a person held wheel is refused with
   * peopleErrors.driverHeld; an agent (kind "agent") never takes a held wheel (peopleErrors.driverTaken).
   */
  force?: boolean;
}

export interface DriverAction {
  type: "steer" | "interrupt";
  /** Who acts: MUST be the holder. */
  by: string;
  /** The epoch the caller last saw: MUST be the current one, checked in the same atomic step as the append. */
  epoch: number;
  /** The agent addressed. */
  to: string;
  /** The steer's text, or the interrupt's reason. */
  text: string;
}

export interface NewApproval {
  requestedBy: string;
  action: string;
  details: JsonObject;
  /** The people (`human:<id>`, each once) who alone may decide it; absent: any approver of the room. Kept as given. */
  approvers?: string[];
  /** Lifetime in ms from now. */
  expiresInMs: number;
}

export interface ApprovalDecisionInput {
  id: string;
  decidedBy: string;
  decision: ApprovalDecision;
  note?: string;
}

/**
 * A handoff offer (protocol/people-rules.ts HandoffInput): with `agentOffer`, each listed task must be owned by
 * `from` or by nobody (peopleErrors.taskNotYours otherwise); a person offers any task on behalf of the room.
 */
export type NewHandoff = HandoffInput;

export interface NewVerdict {
  by: string;
  verdict: VerdictValue;
  summary: string;
  details: string;
  ref: string | null;
}

export interface ForkInput {
  /**
   * The fork's id: MUST NOT be a live room (peopleErrors.forkTargetExists for the team's own, denied for another's).
   */
  newRoomId: string;
  /** Default: the source's head. MUST NOT be past it (peopleErrors.forkPastHead). */
  atSeq?: number;
  /** Who forks: the room_forked event's from. */
  by: string;
  /** A person who forked gets the fork's wheel (epoch 1). */
  driver?: string;
}

export type { BridgeHook };

export interface BridgeInput {
  agentId: string;
  hook: BridgeHook;
  /** PostToolUse: appended as agent_step {tool, target, ok} (metadata only). */
  step?: { tool: string; target: string; ok: boolean };
}

export interface BridgeResult {
  roomExists: boolean;
  driver: DriverState;
  /** PreToolUse: the newest pending interrupt for this agent at the current epoch (consumed with the others). */
  interrupt?: { by: string; reason: string; epoch: number; seq: number };
  /** PostToolUse: every pending steer for this agent, oldest first (consumed). */
  steers: { by: string; text: string; seq: number }[];
  /** SessionStart, UserPromptSubmit, Stop: waiting people's messages, oldest first (consumed). */
  messages: HumanMessage[];
  /** SessionStart: one call's worth of state. Unread events are counted, not consumed. */
  digest?: { myTasks: Pick<Task, "id" | "title" | "status">[]; unread: number };
}

/** Generic in the scope type so this file needs nothing from types.ts (which extends it: no import cycle). */
export interface PeopleStore<RoomScope> {
  // ── the driver ────────────────────────────────────────────────────────────────────────────────────────
  /** The room's driver state (NO_DRIVER for a room never driven or not owned yet). Never claims. */
  getDriver(scope: RoomScope): Promise<DriverState>;
  /**
   * Takes the wheel. Free → granted; held by an agent and taken by a person → granted at once (the agent yields);
   * held by another person → peopleErrors.driverHeld unless `force`; held by the taker → unchanged, nothing
   * appended. Otherwise epoch + 1, since = now, event `driver_changed` {holder, previous, epoch, reason} from the
   * taker to "all", and a "driver" signal. An agent (kind "agent") gets it only when nobody drives.
   */
  takeDriver(scope: RoomScope, input: TakeDriver): Promise<DriverState>;
  /**
   * Releases the wheel: `holder` must hold it (peopleErrors.notDriver) at `epoch` (peopleErrors.staleEpoch).
   * Epoch + 1, holder null, event `driver_changed` (reason "released"), a "driver" signal.
   */
  releaseDriver(scope: RoomScope, input: { holder: string; epoch: number }): Promise<DriverState>;
  /**
   * Epoch-fenced steer or interrupt, one atomic step: a stale epoch → peopleErrors.staleEpoch (checked first),
   * a caller who is not the holder → peopleErrors.notDriver; else appends `steer` {text, epoch} or `interrupt`
   * {reason, epoch} from `by` to `to`.
   */
  driverAct(scope: RoomScope, input: DriverAction): Promise<RoomEvent>;

  // ── approvals ─────────────────────────────────────────────────────────────────────────────────────────
  /** Stores a pending approval `apr-<n>` and appends `approval_requested` {approval} to "all". */
  requestApproval(scope: RoomScope, input: NewApproval): Promise<Approval>;
  /** peopleErrors.approvalNotFound when absent; a pending one past expires_at reads as expired. */
  getApproval(scope: RoomScope, id: string): Promise<Approval>;
  /** Oldest first, optionally only those with this (effective) status. */
  listApprovals(scope: RoomScope, status?: ApprovalStatus): Promise<Approval[]>;
  /**
   * Decides a pending approval exactly once: decided already → peopleErrors.approvalDecided (naming the first
   * decision); expired → peopleErrors.approvalExpired. Appends `approval_decided` {approvalId, action, decision,
   * decidedBy, note?} to the requester.
   */
  decideApproval(scope: RoomScope, input: ApprovalDecisionInput): Promise<Approval>;

  // ── handoffs ──────────────────────────────────────────────────────────────────────────────────────────
  /**
   * Stores an offer `hof-<n>` recording each listed task's current owner; every task and context id must exist
   * (errors.taskNotFound / errors.contextNotFound). Appends `handoff_offered` {handoff} from offeredBy to `to`
   * ("all" when `to` is "any").
   */
  offerHandoff(scope: RoomScope, input: NewHandoff): Promise<Handoff>;
  /**
   * Accepts an open offer, atomically: closed → peopleErrors.handoffClosed (naming who); addressed to another agent
   * → handoffNotForYou; the offerer's own → handoffOwnOffer; the plan lock of another → errors.planLocked. Each
   * listed task whose owner is still the one recorded at the offer moves to the acceptor (version + 1, a
   * `task_updated` event each); the others are reported in `conflicts`, unchanged. Then `handoff_accepted`
   * {handoffId, from, by, moved, conflicts} to "all".
   */
  acceptHandoff(scope: RoomScope, input: { id: string; agentId: string }): Promise<Handoff>;
  /** Only the addressed agent declines (an offer to "any" cannot be declined): `handoff_declined` to `from`. */
  declineHandoff(scope: RoomScope, input: { id: string; agentId: string; reason: string }): Promise<Handoff>;
  /** Only `from` or offeredBy cancels an open offer: `handoff_cancelled` to `to` ("all" for "any"). */
  cancelHandoff(scope: RoomScope, input: { id: string; by: string }): Promise<Handoff>;
  /** Oldest first, optionally only those with this status. */
  listHandoffs(scope: RoomScope, status?: HandoffStatus): Promise<Handoff[]>;

  // ── verdicts ──────────────────────────────────────────────────────────────────────────────────────────
  /** Stores `vrd-<n>` and appends `verdict_recorded` {verdict} to "all". Changes nothing else (advice only). */
  recordVerdict(scope: RoomScope, input: NewVerdict): Promise<Verdict>;
  /** Newest first. */
  listVerdicts(scope: RoomScope): Promise<Verdict[]>;

  // ── forks and the room's description ──────────────────────────────────────────────────────────────────
  /**
   * A new room, owned by scope.teamId, from the prefix seq ≤ atSeq of scope.roomId's log: those events with
   * their seq, ids and payloads (read receipts not kept), the plan and every context entry as they stood when the
   * log's head was atSeq (each entry at the version it had then, its earlier versions as history), the driver
   * when one is given, and then its next event `room_forked` {from: {roomId, seq}}. Not copied: locks, presence,
   * cursors, shared variables, approvals, handoffs, verdicts, invites. The source is unchanged. The fork counts
   * towards the team's room limit.
   */
  forkRoom(scope: RoomScope, input: ForkInput): Promise<{ roomId: string; forkedFrom: ForkedFrom }>;
  /** Counts, times, driver and origin of the team's room; an empty description (exists false) when unowned. */
  roomInfo(scope: RoomScope): Promise<RoomInfo>;

  // ── the bridge (messages, steers, interrupts delivered inside a running turn) ─────────────────────────
  /**
   * One hook call of the agent's harness, one atomic step: records the agent's presence (status text "idle" on
   * Stop, "working" otherwise), appends agent_step on PostToolUse, and takes what is waiting for the agent:
   * interrupts (PreToolUse), steers (PostToolUse), people's messages (SessionStart, UserPromptSubmit, Stop) and
   * the digest (SessionStart). Taking moves the agent's mark past what was delivered, so each is delivered once.
   * On a room not owned yet it writes nothing (roomExists false).
   */
  bridge(scope: RoomScope, input: BridgeInput): Promise<BridgeResult>;
}
