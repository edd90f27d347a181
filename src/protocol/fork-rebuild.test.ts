import { expect, test } from "bun:test";
import { type ContextVersionAt, contextAt, type RebuildEvent, rebuildPlan } from "./fork-rebuild.ts";
import type { Task } from "./records.ts";

const task = (id: string, extra: Partial<Task> = {}): Task => ({
  id,
  title: id,
  description: "",
  status: "pending",
  owner: null,
  depends_on: [],
  priority: null,
  version: 1,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
  ...extra,
});
const ev = (seq: number, type: string, payload: Record<string, unknown>): RebuildEvent => ({
  seq,
  type,
  ts: seq * 1000,
  payload,
});

test("the plan replays whole tasks in creation order, keeping fields it does not know and the lease the log left", () => {
  const plan = rebuildPlan([
    ev(1, "task_added", { task: task("task-1") }),
    ev(2, "chatter", { task: "not a task" }),
    ev(3, "task_added", { task: task("task-2", { later_field: 7 } as Partial<Task>) }),
    ev(4, "task_claimed", {
      task: task("task-1", {
        status: "in_progress",
        owner: "a",
        version: 2,
        lease_expires_at: "2026-01-01T00:10:00.000Z",
      }),
    }),
  ]);
  expect(plan.tasks.map((t) => [t.id, t.status, t.owner, t.version])).toEqual([
    ["task-1", "in_progress", "a", 2],
    ["task-2", "pending", null, 1],
  ]);
  expect(plan.tasks[0]?.lease_expires_at).toBe("2026-01-01T00:10:00.000Z");
  expect((plan.tasks[1] as unknown as Record<string, unknown>).later_field).toBe(7);
  expect(plan).toMatchObject({ taskN: 2, createdMs: 1000, updatedMs: 4000 });
});

test("deletions, lease expiries and departures that carry only ids are honoured; ids stay reserved", () => {
  const leased = task("task-3", {
    status: "in_progress",
    owner: "c",
    version: 2,
    lease_expires_at: "2026-01-01T00:00:03.500Z",
  });
  const plan = rebuildPlan([
    ev(1, "task_added", { task: task("task-1") }),
    ev(2, "task_added", { task: task("task-2", { owner: "b", status: "in_progress" }) }),
    ev(3, "task_claimed", { task: leased }),
    ev(4, "task_deleted", { taskId: "task-1", task: task("task-1") }),
    // Written before the expiry carried its task: pending, unowned, version + 1, updated at the lease's end.
    ev(5, "task_lease_expired", { taskId: "task-3", previousOwner: "c" }),
    ev(6, "task_lease_expired", { taskId: "task-9", previousOwner: "c" }),
    // leave_room returned task-2 to pending in the same step.
    ev(7, "agent_left", { agentId: "b", tasks: ["task-2", "task-8"], paths: [], locks: [] }),
    ev(8, "context_deleted", { contextId: "ctx-4" }),
  ]);
  expect(plan.tasks).toEqual([
    task("task-2", { version: 2, updated_at: "1970-01-01T00:00:07.000Z" }),
    task("task-3", { version: 3, updated_at: "2026-01-01T00:00:03.500Z" }),
  ]);
  expect(plan.taskN).toBe(3);
  expect(plan.deletedContexts).toEqual(["ctx-4"]);
});

test("a fork's room_forked sets the tasks it released, so a fork of a fork replays to the same plan", () => {
  const leased = task("task-1", {
    status: "in_progress",
    owner: "a",
    version: 2,
    lease_expires_at: "2026-01-01T00:10:00.000Z",
  });
  const released = task("task-1", { version: 3, updated_at: "2026-01-01T00:05:00.000Z" });
  const plan = rebuildPlan([
    ev(1, "task_added", { task: task("task-1") }),
    ev(2, "task_claimed", { task: leased }),
    ev(3, "room_forked", { from: { roomId: "r", seq: 2 }, released: [released, "not a task"] }),
    ev(4, "room_forked", { from: { roomId: "r2", seq: 3 } }),
  ]);
  expect(plan.tasks).toEqual([released]);
  expect(plan.updatedMs).toBe(3000);
});

test("events agents posted change nothing, whatever they carry", () => {
  const posted = (seq: number, type: string, payload: Record<string, unknown>): RebuildEvent => ({
    ...ev(seq, type, payload),
    posted: true,
  });
  const plan = rebuildPlan([
    ev(1, "task_added", { task: task("task-1") }),
    posted(2, "task_updated", { task: task("task-1", { status: "done", version: 9 }) }),
    posted(3, "task_deleted", { taskId: "task-1" }),
    posted(4, "agent_left", { tasks: ["task-1"] }),
    posted(5, "context_deleted", { contextId: "ctx-1" }),
  ]);
  expect(plan.tasks).toEqual([task("task-1")]);
  expect(plan.deletedContexts).toEqual([]);
});

const version = (v: string, ts: string) => ({
  author: "a",
  timestamp: ts,
  summary: v,
  consuming_agents: [],
  payload: { text: v },
  version: v,
});

test("a context entry as it stood at a seq: by recorded heads, and older versions by their timestamp", () => {
  const versions: ContextVersionAt[] = [
    { version: version("1.0", "2026-01-01T00:00:01.000Z"), atSeq: null },
    { version: version("1.1", "2026-01-01T00:00:05.000Z"), atSeq: null },
    { version: version("1.2", "2026-01-01T00:00:09.000Z"), atSeq: 12 },
  ];
  const at = (seq: number, nextTs: number | null) =>
    contextAt(versions, seq, nextTs)?.current.version.version ?? null;
  // Before the first version was written (the event after seq came at 0.5 s): absent.
  expect(at(0, Date.parse("2026-01-01T00:00:00.500Z"))).toBeNull();
  // The event after seq 3 came at 6 s: 1.1 (written at 5 s) stood then.
  expect(at(3, Date.parse("2026-01-01T00:00:06.000Z"))).toBe("1.1");
  // Same millisecond as the next event: not yet.
  expect(at(2, Date.parse("2026-01-01T00:00:05.000Z"))).toBe("1.0");
  expect(at(11, Date.parse("2026-01-01T00:00:10.000Z"))).toBe("1.1");
  expect(at(12, null)).toBe("1.2");
  expect(contextAt(versions, 12, null)?.history.map((h) => h.version.version)).toEqual(["1.0", "1.1"]);
});
