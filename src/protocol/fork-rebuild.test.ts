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

test("the plan replays whole tasks in creation order, keeping fields it does not know", () => {
  const plan = rebuildPlan([
    ev(1, "task_added", { task: task("task-1") }),
    ev(2, "chatter", { task: "not a task" }),
    ev(3, "task_added", { task: task("task-2") }),
    ev(4, "task_claimed", {
      task: task("task-1", {
        status: "in_progress",
        owner: "a",
        version: 2,
        lease_expires_at: "x",
      } as Partial<Task>),
    }),
  ]);
  expect(plan.tasks.map((t) => [t.id, t.status, t.owner])).toEqual([
    ["task-1", "in_progress", "a"],
    ["task-2", "pending", null],
  ]);
  expect((plan.tasks[0] as unknown as Record<string, unknown>).lease_expires_at).toBe("x");
  expect(plan).toMatchObject({
    taskN: 2,
    createdMs: 1000,
    updatedMs: 4000,
    byStatus: { pending: 1, in_progress: 1, done: 0, blocked: 0 },
  });
});

test("deletions and lease expiries that carry only ids are honoured; ids stay reserved", () => {
  const plan = rebuildPlan([
    ev(1, "task_added", { task: task("task-1") }),
    ev(2, "task_added", { task: task("task-2", { owner: "b", status: "in_progress" }) }),
    ev(3, "task_deleted", { taskId: "task-1", task: task("task-1") }),
    ev(4, "task_lease_expired", { taskId: "task-2", previousOwner: "b" }),
    ev(5, "task_lease_expired", { taskId: "task-9", previousOwner: "c" }),
    ev(6, "context_deleted", { contextId: "ctx-4" }),
  ]);
  expect(plan.tasks.map((t) => [t.id, t.status, t.owner])).toEqual([["task-2", "pending", null]]);
  expect(plan.taskN).toBe(2);
  expect(plan.deletedContexts).toEqual(["ctx-4"]);
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
