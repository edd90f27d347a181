/** People's operations of the Redis store (docs/people.md): one script each, records shaped here. */
import { effectiveTask } from "../../protocol/leases.ts";
import { type Approval, effectiveApproval, type HumanMessage, PEOPLE_LIMITS } from "../../protocol/people.ts";
import type { RoomEvent } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import type { BridgeHook, BridgeResult, PeopleStore } from "../people-types.ts";
import type { RoomScope } from "../types.ts";
import type { Call } from "./call.ts";
import type { StoredApproval } from "./lua-approvals.ts";
import { byCreation, sortTasks } from "./records.ts";

type PeopleOps = Omit<PeopleStore<RoomScope>, "forkRoom">;
type StoredEvent = Omit<RoomEvent, "read_by">;

/** An approval as stored: expiresMs is the script's, for comparing; the record never shows it. */
function toApproval(stored: StoredApproval, now: number): Approval {
  const { expiresMs: _ms, details, ...rest } = stored;
  return effectiveApproval({ ...rest, details }, now);
}

const withEvent = (e: StoredEvent): RoomEvent => ({ ...e, read_by: [] });

export function toMessage(e: StoredEvent): HumanMessage {
  const text = e.payload.text;
  return {
    id: e.id,
    seq: e.seq,
    from: e.from,
    to: e.to,
    text: typeof text === "string" ? text : "",
    timestamp: e.timestamp,
  };
}

const STATUS: Record<BridgeHook, string> = {
  SessionStart: "session started",
  PreToolUse: "working",
  PostToolUse: "working",
  UserPromptSubmit: "working",
  Stop: "idle",
};

/** Interrupts and steers taken in one call at most (as on SQLite). */
const TAKE_MAX = 100;

const unique = (ids: string[]) => [...new Set(ids)];

export function peopleOps(call: Call): PeopleOps {
  return {
    async getDriver(scope) {
      return (await call(scope, "GET_DRIVER", {})).value;
    },
    async takeDriver(scope, input) {
      const args = { holder: input.holder, kind: input.kind, force: input.force === true };
      return (await call(scope, "TAKE_DRIVER", args)).value;
    },
    async releaseDriver(scope, input) {
      return (await call(scope, "RELEASE_DRIVER", { holder: input.holder, epoch: input.epoch })).value;
    },
    async driverAct(scope, input) {
      const args = { etype: input.type, by: input.by, epoch: input.epoch, to: input.to, text: input.text };
      return withEvent((await call(scope, "DRIVER_ACT", args)).value);
    },

    async requestApproval(scope, input) {
      const args = {
        by: input.requestedBy,
        action: input.action,
        details: input.details,
        ttl: input.expiresInMs,
        approvers: input.approvers,
      };
      const { value, now } = await call(scope, "REQUEST_APPROVAL", args);
      return toApproval(value, now);
    },
    async getApproval(scope, id) {
      const { value, now } = await call(scope, "GET_APPROVAL", { id });
      return toApproval(value, now);
    },
    async listApprovals(scope, status) {
      const { value, now } = await call(scope, "LIST_APPROVALS", {});
      const list = value.sort(byCreation).map((a) => toApproval(a, now));
      return status === undefined ? list : list.filter((a) => a.status === status);
    },
    async decideApproval(scope, input) {
      const args = { id: input.id, by: input.decidedBy, decision: input.decision, note: input.note };
      const { value, now } = await call(scope, "DECIDE_APPROVAL", args);
      return toApproval(value, now);
    },

    async offerHandoff(scope, input) {
      const args = {
        from: input.from,
        to: input.to,
        taskIds: unique(input.taskIds),
        ctxIds: unique(input.contextIds),
        note: input.note,
        by: input.offeredBy,
        agentOffer: input.agentOffer,
      };
      return (await call(scope, "OFFER_HANDOFF", args)).value;
    },
    async acceptHandoff(scope, input) {
      return (await call(scope, "ACCEPT_HANDOFF", { id: input.id, agent: input.agentId })).value;
    },
    async declineHandoff(scope, input) {
      const args = { id: input.id, agent: input.agentId, reason: input.reason };
      return (await call(scope, "DECLINE_HANDOFF", args)).value;
    },
    async cancelHandoff(scope, input) {
      return (await call(scope, "CANCEL_HANDOFF", { id: input.id, by: input.by })).value;
    },
    async listHandoffs(scope, status) {
      const list = (await call(scope, "LIST_HANDOFFS", {})).value.sort(byCreation);
      return status === undefined ? list : list.filter((h) => h.status === status);
    },

    async recordVerdict(scope, input) {
      const args = {
        by: input.by,
        verdict: input.verdict,
        summary: input.summary,
        details: input.details,
        ref: input.ref,
      };
      return (await call(scope, "RECORD_VERDICT", args)).value;
    },
    async listVerdicts(scope) {
      return (await call(scope, "LIST_VERDICTS", {})).value.sort(byCreation).reverse();
    },

    async roomInfo(scope) {
      const { value, now } = await call(scope, "ROOM_DETAILS", {});
      const byStatus = value.byStatus ?? { pending: 0, in_progress: 0, done: 0, blocked: 0 };
      return {
        roomId: scope.roomId,
        exists: value.exists,
        createdAt: value.createdAt ?? null,
        lastActivity: value.exists ? iso(value.lastUsed ?? now) : null,
        taskCount: byStatus.pending + byStatus.in_progress + byStatus.done + byStatus.blocked,
        tasksByStatus: byStatus,
        contextCount: value.contextCount ?? 0,
        eventCount: Number(value.eventCount ?? 0),
        agentCount: value.agentCount ?? 0,
        driver: value.driver ?? { holder: null, holderKind: null, epoch: 0, since: null },
        forkedFrom: value.forkedFrom ?? null,
      };
    },

    async bridge(scope, input) {
      const args = {
        agent: input.agentId,
        hook: input.hook,
        step: input.step || undefined,
        status: STATUS[input.hook],
        takeMax: TAKE_MAX,
        msgMax: PEOPLE_LIMITS.messagesPerCall,
      };
      const { value, now } = await call(scope, "BRIDGE", args);
      const driver = value.driver ?? { holder: null, holderKind: null, epoch: 0, since: null };
      const result: BridgeResult = { roomExists: value.exists, driver, steers: [], messages: [] };
      if (!value.exists) return result;
      const current = (value.interrupts ?? []).filter((e) => e.payload.epoch === driver.epoch);
      const last = current.at(-1);
      if (last) {
        const reason = last.payload.reason;
        result.interrupt = {
          by: last.from,
          reason: typeof reason === "string" ? reason : "",
          epoch: driver.epoch,
          seq: last.seq,
        };
      }
      result.steers = (value.steers ?? []).map((e) => ({
        by: e.from,
        text: typeof e.payload.text === "string" ? e.payload.text : "",
        seq: e.seq,
      }));
      result.messages = (value.messages ?? []).map(toMessage);
      if (input.hook === "SessionStart") {
        result.digest = {
          // As reads show them: a task whose lease ran out is no longer the agent's (protocol/leases.ts).
          myTasks: sortTasks(value.tasks ?? [])
            .map((task) => effectiveTask(task, now))
            .filter((task) => task.owner === input.agentId)
            .map(({ id, title, status }) => ({ id, title, status })),
          unread: value.unread ?? 0,
        };
      }
      return result;
    },
  };
}
