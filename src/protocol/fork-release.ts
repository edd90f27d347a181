/**
 * What a fork lets go of, and the clock it restarts (docs/people.md#forks). A fork is a new room whose agents and
 * people are not in it yet: what the source's running agents and drivers held at the seq is released, and what
 * waits for a person keeps the time it had left. Every driver's fork settles the rebuilt plan and records here.
 *
 * - **Leases**: a task leased at the seq returns to pending with no owner, version + 1, as the expiry of its lease
 *   does (leases.ts) — updated_at the fork's making, or the lease's end when it had run out by the seq. The
 *   fork's `room_forked` event lists these tasks whole (`released`), so its log still replays to its plan.
 * - **The wheel**: nobody drives a fork. A wheel held at the seq is released (epoch + 1, since the fork's making);
 *   its epoch never falls below one its log names.
 * - **Approvals**: one pending at the seq stays pending with the lifetime it had left then, counted from the
 *   fork's making (a fork at `approval_requested` has nearly all of it when the next event came soon after; a fork
 *   at the head keeps `expires_at`); one whose expiry had passed by then stays expired.
 *
 * "At the seq" is the last moment the source's head was it: just before its next event (`standMs`, that event's
 * time), or the fork's making (`nowMs`) when forking at the head.
 */
import type { WheelAt } from "./fork-records.ts";
import { leaseExpired } from "./leases.ts";
import type { Approval, DriverState, ForkedFrom } from "./people.ts";
import type { JsonObject, Task, TaskStatus } from "./records.ts";
import { releasedTask } from "./task-log.ts";
import { iso } from "./time.ts";

/** A task as the fork holds it: unleased tasks as they are, leased ones released. */
export function taskInFork(task: Task, standMs: number, nowMs: number): Task {
  if (task.lease_expires_at === undefined) return task;
  return releasedTask(task, leaseExpired(task, standMs) ? task.lease_expires_at : iso(nowMs));
}

/** An approval as the fork holds it: a pending one keeps the lifetime it had left at the seq. */
export function approvalInFork(approval: Approval, standMs: number, nowMs: number): Approval {
  const end = Date.parse(approval.expires_at);
  if (approval.status !== "pending" || !(end > standMs)) return approval;
  return { ...approval, expires_at: iso(nowMs + (end - standMs)) };
}

/** The fork's wheel: nobody drives; a held wheel is released at the fork's making. */
export function wheelInFork(wheel: WheelAt, nowMs: number): DriverState {
  if (wheel.holder !== null)
    return { holder: null, holderKind: null, epoch: wheel.epoch + 1, since: iso(nowMs) };
  return {
    holder: null,
    holderKind: null,
    epoch: wheel.epoch,
    since: wheel.epoch === 0 ? null : wheel.since,
  };
}

export interface SettledFork {
  tasks: Task[];
  /** The tasks whose lease the fork released, as it holds them (room_forked's `released`). */
  released: Task[];
  byStatus: Record<TaskStatus, number>;
  /** ms of the plan's last change: a release is one. */
  updatedMs: number | null;
  approvals: Approval[];
  driver: DriverState;
}

/** Settles a rebuilt plan and records as the fork holds them (see above). */
export function settleFork(
  rebuilt: {
    tasks: readonly Task[];
    updatedMs: number | null;
    approvals: readonly Approval[];
    wheel: WheelAt;
  },
  standMs: number,
  nowMs: number,
): SettledFork {
  const byStatus: Record<TaskStatus, number> = { pending: 0, in_progress: 0, done: 0, blocked: 0 };
  const released: Task[] = [];
  let updatedMs = rebuilt.updatedMs;
  const tasks = rebuilt.tasks.map((task) => {
    const held = taskInFork(task, standMs, nowMs);
    byStatus[held.status] = (byStatus[held.status] ?? 0) + 1;
    if (held !== task) {
      released.push(held);
      updatedMs = Math.max(updatedMs ?? 0, Date.parse(held.updated_at));
    }
    return held;
  });
  return {
    tasks,
    released,
    byStatus,
    updatedMs,
    approvals: rebuilt.approvals.map((a) => approvalInFork(a, standMs, nowMs)),
    driver: wheelInFork(rebuilt.wheel, nowMs),
  };
}

/** The fork's `room_forked` payload: where it came from, and the tasks whose lease it released (when any). */
export const roomForkedPayload = (from: ForkedFrom, released: readonly Task[]): JsonObject =>
  (released.length > 0 ? { from, released } : { from }) as unknown as JsonObject;
