import { describe, expect, test } from "bun:test";
import { type Board, type BoardTask, capBoard, trimJson } from "./board.ts";

const task = (n: number, status: BoardTask["status"], description = ""): BoardTask => ({
  id: `task-${n}`,
  title: `Task ${n}`,
  description,
  status,
  owner: null,
  depends_on: [],
  priority: null,
  version: 1,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
});

const event = (seq: number, text: string) => ({
  id: `evt-${seq}`,
  seq,
  type: "note",
  from: "a",
  to: "all",
  payload: { text },
  timestamp: "2026-01-01T00:00:00.000Z",
});

function board(tasks: BoardTask[], events = 0, text = ""): Board {
  return {
    roomId: "r",
    seq: events,
    state: "0123456789abcdef",
    viewer: { person: null, role: null, operator: false },
    driver: { holder: null, holderKind: null, epoch: 0, since: null },
    tasks,
    presence: [],
    claims: [],
    locks: [],
    approvals: [],
    handoffs: [],
    events: Array.from({ length: events }, (_, i) => event(events - i, text)),
  };
}

const size = (b: Board) => new TextEncoder().encode(JSON.stringify(b)).length;

describe("the board's limits", () => {
  test("trimJson cuts long strings, long lists, wide and deep objects, and keeps the rest as it is", () => {
    expect(trimJson("abcdef", 3)).toBe("abc…");
    expect(trimJson({ a: 1, b: [true, null, "ok"] })).toEqual({ a: 1, b: [true, null, "ok"] });
    expect((trimJson(Array.from({ length: 50 }, (_, i) => i)) as number[]).length).toBe(20);
    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
    expect(Object.keys(trimJson(wide) as object)).toHaveLength(30);
    expect(trimJson({ a: { b: { c: { d: { e: { f: 1 } } } } } })).toEqual({
      a: { b: { c: { d: { e: "…" } } } },
    });
  });

  test("a board within the cap is returned as it is", () => {
    const small = board([task(1, "pending", "short")], 3, "hi");
    expect(capBoard(small, 64 * 1024)).toBe(small);
  });

  test("past the cap: descriptions go first, then the heaviest lists lose halves, counted in omitted", () => {
    const big = board(
      Array.from({ length: 40 }, (_, i) => task(i, i < 20 ? "done" : "pending", "d".repeat(400))),
      30,
      "e".repeat(400),
    );
    const capped = capBoard(big, 8 * 1024);
    expect(size(capped)).toBeLessThanOrEqual(8 * 1024);
    expect(capped.tasks.every((t) => t.description === undefined)).toBe(true);
    const { omitted = {} } = capped;
    expect(omitted.descriptions).toBe(40);
    expect((omitted.events ?? 0) + capped.events.length).toBe(30);
    expect((omitted.tasks ?? 0) + capped.tasks.length).toBe(40);
    // The newest events stay; done tasks go before the pending ones (no pending task dropped while one is kept).
    expect(capped.events[0]?.seq).toBe(30);
    expect(omitted.tasks).toBeGreaterThan(0);
    const pending = capped.tasks.filter((t) => t.status === "pending").length;
    const done = capped.tasks.length - pending;
    expect(done === 0 || pending === 20).toBe(true);
  });
});
