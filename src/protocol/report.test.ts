/** The report's pure parts: the percentile, and what does and does not count as a duplicate claim or a person. */
import { expect, test } from "bun:test";
import type { RoomEvent, Task } from "./records.ts";
import { computeReport, percentile } from "./report.ts";

test("percentile: nearest rank, null for none", () => {
  expect(percentile([], 50)).toBeNull();
  expect(percentile([5], 99)).toBe(5);
  expect(percentile([4, 1, 3, 2], 50)).toBe(2);
  expect(
    percentile(
      Array.from({ length: 100 }, (_, i) => i + 1),
      99,
    ),
  ).toBe(99);
});

const task = (owner: string | null, status: Task["status"], version: number): Task => ({
  id: "task-1",
  title: "t",
  description: "",
  status,
  owner,
  depends_on: [],
  priority: null,
  version,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
});

function log(events: [string, string, Record<string, unknown>][]): RoomEvent[] {
  return events.map(([type, from, payload], i) => ({
    id: `evt-${i + 1}`,
    seq: i + 1,
    type,
    from,
    to: "all",
    payload,
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    read_by: [],
  }));
}

function report(events: RoomEvent[], posted: number[] = []) {
  return computeReport("r", {
    log: { events, posted, tasks: [], contexts: [], reads: [] },
    approvals: [],
    from: null,
    to: null,
    now: Date.UTC(2026, 0, 2),
  });
}

test("a second agent starting a started task is a duplicate claim; a take-over or a restart by its holder is not", () => {
  const start = (who: string, version: number, owner: string | null = null) =>
    [
      "task_updated",
      who,
      { task: task(owner, "in_progress", version), changes: { status: "in_progress" } },
    ] as [string, string, Record<string, unknown>];
  const events = log([
    ["task_added", "lead", { task: task(null, "pending", 1) }],
    start("a", 2),
    start("a", 3),
    start("b", 4),
    ["task_updated", "c", { task: task("c", "in_progress", 5), changes: { owner: "c", expectedVersion: 4 } }],
    ["task_updated", "c", { task: task("c", "done", 6), changes: { status: "done" } }],
  ]);
  const r = report(events);
  expect(r.concurrency.duplicateClaims).toBe(1);
  expect(r.tasks).toMatchObject({ done: 1, abandoned: 0 });
  // The take-over restarted the cycle's clock: 5 s → 6 s.
  expect(r.tasks.medianCycleMs).toBe(1000);
});

test("an agent's post never counts, whatever it carries; people count by their sender", () => {
  const events = log([
    ["task_updated", "mallory", { task: task("mallory", "done", 2), changes: { status: "done" } }],
    ["human_message", "human:pat", { text: "hi" }],
    ["steer", "human:pat", { text: "go", epoch: 1 }],
    ["steer", "agent-driver", { text: "go", epoch: 2 }],
  ]);
  const r = report(events, [1]);
  expect(r.tasks.done).toBe(0);
  expect(r.humanInterventions).toEqual({ total: 2, messages: 1, steers: 1, interrupts: 0 });
  expect(r.from).toBe("2026-01-01T00:00:00.000Z");
  expect(r.to).toBe("2026-01-02T00:00:00.000Z");
});
