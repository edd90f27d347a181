import { expect, test } from "bun:test";
import { approvalInFork, roomForkedPayload, settleFork, taskInFork, wheelInFork } from "./fork-release.ts";
import type { Approval } from "./people.ts";
import type { Task } from "./records.ts";
import { iso } from "./time.ts";

const MIN = 60_000;
const STAND = 10 * MIN; // the moment of the seq
const NOW = 100 * MIN; // the fork's making

const task = (id: string, extra: Partial<Task> = {}): Task => ({
  id,
  title: id,
  description: "",
  status: "pending",
  owner: null,
  depends_on: [],
  priority: null,
  version: 1,
  created_at: iso(0),
  updated_at: iso(0),
  ...extra,
});
const leased = (id: string, endMs: number) =>
  task(id, { status: "in_progress", owner: "alice", version: 2, lease_expires_at: iso(endMs) });

const approval = (expiresMs: number, extra: Partial<Approval> = {}): Approval => ({
  id: "apr-1",
  action: "deploy",
  details: {},
  requestedBy: "bot",
  status: "pending",
  created_at: iso(0),
  expires_at: iso(expiresMs),
  ...extra,
});

test("a leased task is released as its expiry releases it: at the fork's making, or at the lease's end when it ran out by the seq", () => {
  expect(taskInFork(leased("task-1", STAND + MIN), STAND, NOW)).toEqual(
    task("task-1", { version: 3, updated_at: iso(NOW) }),
  );
  expect(taskInFork(leased("task-1", STAND), STAND, NOW)).toEqual(
    task("task-1", { version: 3, updated_at: iso(STAND) }),
  );
  // Owned without a lease (assigned, or moved by a handoff): a holding of no running agent, kept.
  const assigned = task("task-2", { status: "in_progress", owner: "bob", version: 4 });
  expect(taskInFork(assigned, STAND, NOW)).toBe(assigned);
});

test("a pending approval keeps the lifetime it had left at the seq; decided and run-out ones stay as they were", () => {
  // An hour left at the seq's moment (requested just before it): that hour, from the fork's making.
  expect(approvalInFork(approval(STAND + 60 * MIN), STAND, NOW).expires_at).toBe(iso(NOW + 60 * MIN));
  expect(approvalInFork(approval(STAND + 5 * MIN), STAND, NOW)).toEqual(approval(NOW + 5 * MIN));
  // At the head (the seq's moment is the fork's): unchanged.
  expect(approvalInFork(approval(NOW + 5 * MIN), NOW, NOW)).toEqual(approval(NOW + 5 * MIN));
  const ranOut = approval(STAND);
  expect(approvalInFork(ranOut, STAND, NOW)).toBe(ranOut);
  const decided = approval(STAND + MIN, { status: "approved", decidedBy: "human:ann", decided_at: iso(MIN) });
  expect(approvalInFork(decided, STAND, NOW)).toBe(decided);
});

test("nobody drives a fork: a held wheel is released (epoch + 1), a free one keeps its epoch and time", () => {
  expect(wheelInFork({ holder: "human:ann", epoch: 3, since: iso(MIN) }, NOW)).toEqual({
    holder: null,
    holderKind: null,
    epoch: 4,
    since: iso(NOW),
  });
  expect(wheelInFork({ holder: null, epoch: 2, since: iso(MIN) }, NOW)).toEqual({
    holder: null,
    holderKind: null,
    epoch: 2,
    since: iso(MIN),
  });
  expect(wheelInFork({ holder: null, epoch: 0, since: null }, NOW)).toEqual({
    holder: null,
    holderKind: null,
    epoch: 0,
    since: null,
  });
});

test("settling counts the plan as the fork holds it and lists what it released for room_forked", () => {
  const done = task("task-2", { status: "done", owner: "bob", version: 3, updated_at: iso(2 * MIN) });
  const settled = settleFork(
    {
      tasks: [leased("task-1", STAND + MIN), done, task("task-3")],
      updatedMs: 2 * MIN,
      approvals: [approval(STAND + MIN)],
      wheel: { holder: null, epoch: 0, since: null },
    },
    STAND,
    NOW,
  );
  const released = task("task-1", { version: 3, updated_at: iso(NOW) });
  expect(settled).toEqual({
    tasks: [released, done, task("task-3")],
    released: [released],
    byStatus: { pending: 2, in_progress: 0, done: 1, blocked: 0 },
    updatedMs: NOW,
    approvals: [approval(NOW + MIN)],
    driver: { holder: null, holderKind: null, epoch: 0, since: null },
  });
  const from = { roomId: "r", seq: 7 };
  expect(roomForkedPayload(from, settled.released)).toEqual({ from, released: [released] } as never);
  expect(roomForkedPayload(from, [])).toEqual({ from } as never);
});
