/** The analytics' pure parts: the median, and events that only look like task events. */
import { expect, test } from "bun:test";
import { computeAnalytics, median } from "./analytics.ts";
import type { RoomEvent } from "./records.ts";

test("median: middle value, mean of the two middle ones, null for none", () => {
  expect(median([])).toBeNull();
  expect(median([5])).toBe(5);
  expect(median([9, 1, 5])).toBe(5);
  expect(median([4, 1, 3, 2])).toBe(2.5);
});

test("an agent's event carrying something that is not a whole task changes no number", () => {
  const event = (seq: number, type: string, payload: object): RoomEvent => ({
    id: `evt-${seq}`,
    seq,
    type,
    from: "mallory",
    to: "all",
    payload: payload as Record<string, unknown>,
    timestamp: new Date(seq * 1000).toISOString(),
    read_by: [],
  });
  const analytics = computeAnalytics("r", {
    events: [
      event(1, "task_updated", { task: { id: "task-1", status: "done" } }),
      event(2, "task_blocked", { task: "task-1" }),
      event(3, "note", { task: { id: "task-1", status: "done", owner: "x", version: 1 } }),
    ],
    posted: [],
    tasks: [],
    contexts: [],
    reads: [],
  });
  expect(analytics.donePerAgent).toEqual({});
  expect(analytics.eventsPerAgent).toEqual({ mallory: 3 });
});
