import { describe, expect, test } from "bun:test";
import { findCycle } from "./plan-rules.ts";

const graph = (edges: Record<string, string[]>) => (id: string) => edges[id];

describe("findCycle (a whole plan at once, as an import checks it)", () => {
  test("no cycle: a diamond, and dependencies on deleted tasks (no such task) lead nowhere", () => {
    const edges = { a: [], b: ["a"], c: ["a", "gone"], d: ["b", "c"] };
    expect(findCycle(Object.keys(edges), graph(edges))).toBeNull();
  });

  test("a cycle is reported as the path from a task back to itself", () => {
    expect(findCycle(["a", "b"], graph({ a: ["b"], b: ["a"] }))).toEqual(["a", "b", "a"]);
    expect(findCycle(["a"], graph({ a: ["a"] }))).toEqual(["a", "a"]);
    const edges = { x: [], a: ["x", "b"], b: ["c"], c: ["a"] };
    expect(findCycle(Object.keys(edges), graph(edges))).toEqual(["a", "b", "c", "a"]);
  });

  test("a chain of 100,000 tasks is walked without recursion, each task once", () => {
    const n = 100_000;
    const ids = Array.from({ length: n }, (_, i) => `task-${i + 1}`);
    let calls = 0;
    const dependsOn = (id: string) => {
      calls++;
      const i = Number(id.slice(5));
      return i > 1 ? [`task-${i - 1}`] : [];
    };
    expect(findCycle(ids, dependsOn)).toBeNull();
    expect(calls).toBeLessThanOrEqual(2 * n);
    expect(findCycle(ids, (id) => (id === "task-1" ? [`task-${n}`] : dependsOn(id)))?.length).toBe(n + 1);
  });
});
