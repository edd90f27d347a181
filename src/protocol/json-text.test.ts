import { describe, expect, test } from "bun:test";
import { jsonText, knownJson } from "./json-text.ts";

/** jsonText must give exactly JSON.stringify's text, and that text escaped as the body of a JSON string. */
function expectSame(value: unknown): void {
  const raw = JSON.stringify(value);
  const text = jsonText(value);
  expect(text?.raw).toBe(raw);
  expect(text?.escaped).toBe(raw === undefined ? undefined : JSON.stringify(raw).slice(1, -1));
}

const task = (id: string, extra: Record<string, unknown> = {}) =>
  knownJson({ id, title: `"quoted" \\ ${id} \u2028 é 😀`, depends_on: ["a", "b"], owner: null, ...extra });

describe("jsonText", () => {
  test("answers holding remembered records serialise exactly as JSON.stringify", () => {
    const tasks = [task("t1"), task("t2", { lease_expires_at: "2026-01-01T00:00:00.000Z" })];
    expectSame(tasks);
    expectSame({ project: "p", created_at: null, updated_at: "x", tasks });
    expectSame({ agentId: "a", myTasks: tasks, nested: { tasks, at: new Date(0) }, skip: undefined });
    expectSame([tasks[0], undefined, () => 1, Symbol("s"), { plain: tasks[1] }, null, 1.5, "s"]);
    expectSame({ [Symbol("k")]: 1, 2: "two", b: tasks[0], a: () => 1, 1: "one" });
    const bare = Object.assign(Object.create(null), { x: tasks[0], y: "\ud800 lone" });
    expectSame(bare);
    expectSame({
      withToJSON: { toJSON: () => tasks },
      list: Object.assign([tasks[0]], { toJSON: () => "l" }),
    });
  });

  test("answers without remembered records, and values JSON.stringify has no text for", () => {
    for (const value of [{ a: 1, b: [1, 2, { c: "\n" }] }, [], {}, "s\u0000", 3, null, true, new Date(5)]) {
      expectSame(value);
    }
    expect(jsonText(undefined)).toBeUndefined();
    expect(jsonText(() => 1)).toBeUndefined();
  });

  test("a remembered record is frozen, deeply: its text cannot go stale", () => {
    const t = task("t3");
    expect(() => {
      (t as { title: string }).title = "changed";
    }).toThrow();
    expect(() => t.depends_on.push("c")).toThrow();
    expect(jsonText([t])?.raw).toBe(JSON.stringify([t]));
  });
});
