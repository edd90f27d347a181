/** People's operations of the Redis store (humans.md): one script each, records shaped here. */
import { effectiveTask } from "../../protocol/leases.ts";
import {
  type Approval,
  type DriverState,
  effectiveApproval,
  type Handoff,
  type HumanMessage,
  PEOPLE_LIMITS,
  type RoomInfo,
  type Verdict,
} from "../../protocol/people.ts";
import type { RoomEvent, Task, TaskStatus } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import type { BridgeHook, BridgeResult, PeopleStore } from "../people-types.ts";
import type { RoomScope } from "../types.ts";
import type { Call } from "./call.ts";
import { byCreation, sortTasks } from "./records.ts";

type PeopleOps = Omit<PeopleStore<RoomScope>, "forkRoom">;
type StoredEvent = Omit<RoomEvent, "read_by">;

/** An approval as stored: expiresMs is the script's, for comparing; the record never shows it. */
function toApproval(stored: Approval & { expiresMs?: number }, now: number): Approval {
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

interface StoredBridge {
  exists: boolean;
  driver?: DriverState;
  interrupts?: StoredEvent[];
  steers?: StoredEvent[];
  messages?: StoredEvent[];
  tasks?: Task[];
  unread?: number;
}

const unique = (ids: string[]) => [...new Set(ids)];

export function peopleOps(call: Call): PeopleOps {
  return {
    async getDriver(scope) {
      return (await call<DriverState>(scope, "GET_DRIVER", [])).value;
    },
    async takeDriver(scope, input) {
      const args = [input.holder, input.kind, input.force === true ? "1" : "0"];
      return (await call<DriverState>(scope, "TAKE_DRIVER", args)).value;
    },
    async releaseDriver(scope, input) {
      return (await call<DriverState>(scope, "RELEASE_DRIVER", [input.holder, String(input.epoch)])).value;
    },
    async driverAct(scope, input) {
      const args = [input.type, input.by, String(input.epoch), input.to, input.text];
      return withEvent((await call<StoredEvent>(scope, "DRIVER_ACT", args)).value);
    },

    async requestApproval(scope, input) {
      const args = [
        input.requestedBy,
        input.action,
        JSON.stringify(input.details),
        String(input.expiresInMs),
      ];
      const { value, now } = await call<Approval>(scope, "REQUEST_APPROVAL", args);
      return toApproval(value, now);
    },
    async getApproval(scope, id) {
      const { value, now } = await call<Approval>(scope, "GET_APPROVAL", [id]);
      return toApproval(value, now);
    },
    async listApprovals(scope, status) {
      const { value, now } = await call<Approval[]>(scope, "LIST_APPROVALS", []);
      const list = value.sort(byCreation).map((a) => toApproval(a, now));
      return status === undefined ? list : list.filter((a) => a.status === status);
    },
    async decideApproval(scope, input) {
      const args = [
        input.id,
        input.decidedBy,
        input.decision,
        input.note ?? "",
        input.note === undefined ? "0" : "1",
      ];
      const { value, now } = await call<Approval>(scope, "DECIDE_APPROVAL", args);
      return toApproval(value, now);
    },

    async offerHandoff(scope, input) {
      const args = [
        input.from,
        input.to,
        JSON.stringify(unique(input.taskIds)),
        JSON.stringify(unique(input.contextIds)),
        input.note,
        input.offeredBy,
        input.agentOffer ? "1" : "0",
      ];
      return (await call<Handoff>(scope, "OFFER_HANDOFF", args)).value;
    },
    async acceptHandoff(scope, input) {
      return (await call<Handoff>(scope, "ACCEPT_HANDOFF", [input.id, input.agentId])).value;
    },
    async declineHandoff(scope, input) {
      return (await call<Handoff>(scope, "DECLINE_HANDOFF", [input.id, input.agentId, input.reason])).value;
    },
    async cancelHandoff(scope, input) {
      return (await call<Handoff>(scope, "CANCEL_HANDOFF", [input.id, input.by])).value;
    },
    async listHandoffs(scope, status) {
      const list = (await call<Handoff[]>(scope, "LIST_HANDOFFS", [])).value.sort(byCreation);
      return status === undefined ? list : list.filter((h) => h.status === status);
    },

    async recordVerdict(scope, input) {
      const args = [
        input.by,
        input.verdict,
        input.summary,
        input.details,
        input.ref ?? "",
        input.ref === null ? "0" : "1",
      ];
      return (await call<Verdict>(scope, "RECORD_VERDICT", args)).value;
    },
    async listVerdicts(scope) {
      return (await call<Verdict[]>(scope, "LIST_VERDICTS", [])).value.sort(byCreation).reverse();
    },

    async roomInfo(scope) {
      const { value, now } = await call<{
        exists: boolean;
        createdAt?: string | null;
        lastUsed?: number | null;
        byStatus?: Record<TaskStatus, number>;
        contextCount?: number;
        eventCount?: number;
        agentCount?: number;
        driver?: DriverState;
        forkedFrom?: RoomInfo["forkedFrom"];
      }>(scope, "ROOM_DETAILS", []);
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
      const args = [
        input.agentId,
        input.hook,
        input.step ? JSON.stringify(input.step) : "",
        STATUS[input.hook],
        String(TAKE_MAX),
        String(PEOPLE_LIMITS.messagesPerCall),
      ];
      const { value, now } = await call<StoredBridge>(scope, "BRIDGE", args);
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
