import { expect, test } from "bun:test";
import type { Task } from "./records.ts";
import { type LoggedEvent, planSteps, wholeTask } from "./task-log.ts";

const task = (id: string, extra: Partial<Task> = {}): Task => ({
  id,
  title: id,
  description: "",
  status: "in_progress",
  owner: "a",
  depends_on: [],
  priority: null,
  version: 2,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
  ...extra,
});
const at = (
  type: string,
  payload: Record<string, unknown>,
  extra: Partial<LoggedEvent> = {},
): LoggedEvent => ({
  type,
  ts: Date.parse("2026-01-01T00:01:00.000Z"),
  payload,
  ...extra,
});
const known = new Map([["task-1", task("task-1", { lease_expires_at: "2026-01-01T00:00:30.000Z" })]]);
const current = (id: string) => known.get(id);

test("a whole task is an id, a known status and an owner that is a string or null", () => {
  expect(wholeTask(task("t"))).not.toBeNull();
  expect(wholeTask({ id: "t", status: "finished", owner: null })).toBeNull();
  expect(wholeTask({ id: "t", status: "done", owner: 7 })).toBeNull();
  expect(wholeTask("task-1")).toBeNull();
});

test("roomd's task events set the whole task; other kinds and agents' posts set nothing", () => {
  const t = task("task-2");
  expect(planSteps(at("task_claimed", { task: t }), current)).toEqual([{ set: t }]);
  expect(planSteps(at("review_requested", { task: t }), current)).toEqual([]);
  expect(planSteps(at("task_updated", { task: t }, { posted: true }), current)).toEqual([]);
  expect(planSteps(at("task_deleted", { taskId: "task-1" }), current)).toEqual([{ remove: "task-1" }]);
});

test("a lapse without its task and a departure return the task to pending, unowned, without a lease", () => {
  const { lease_expires_at: _lease, ...rest } = known.get("task-1") as Task;
  const back: Task = { ...rest, status: "pending", owner: null, version: 3 };
  expect(planSteps(at("task_lease_expired", { taskId: "task-1", previousOwner: "a" }), current)).toEqual([
    { set: { ...back, updated_at: "2026-01-01T00:00:30.000Z" } },
  ]);
  expect(planSteps(at("agent_left", { agentId: "a", tasks: ["task-1", "task-9", 3] }), current)).toEqual([
    { set: { ...back, updated_at: "2026-01-01T00:01:00.000Z" } },
  ]);
  expect(planSteps(at("task_lease_expired", { taskId: "task-9" }), current)).toEqual([]);
});
