/** The text a model reads of a result (model-text.ts): every field it acts on, nothing it never reads, nothing twice. */
import { describe, expect, test } from "bun:test";
import { modelText, structuredOf } from "./model-text.ts";

describe("modelText", () => {
  test("a record: one line per field; null and unread fields left out, an empty list says none; ids and versions kept", () => {
    const task = {
      id: "task-3",
      title: "Build login",
      status: "in_progress",
      owner: "alice",
      depends_on: ["task-1", "task-2"],
      version: 4,
      notes: [],
      created_at: "2026-12-01T10:00:00.000Z",
      updated_at: "2026-12-01T11:00:00.000Z",
      lease_expires_at: "2026-12-01T12:00:00.000Z",
      blocker: null,
    };
    expect(modelText(task)).toBe(
      [
        "id: task-3",
        "title: Build login",
        "status: in_progress",
        "owner: alice",
        "depends_on: task-1, task-2",
        "version: 4",
        "notes: none",
        "lease_expires_at: 2026-12-01T12:00:00.000Z",
      ].join("\n"),
    );
  });

  test("a list of records: one line each, words quoted only when they must be", () => {
    const events = [
      { id: "evt-1", seq: 1, type: "note", from: "bob", to: "all", payload: { text: "a=b", created_at: 1 } },
      { id: "evt-2", seq: 2, type: "hello", from: "carol", to: "alice", payload: {}, read_by: ["alice"] },
    ];
    expect(modelText({ events, remaining: 0, timedOut: false })).toBe(
      [
        "events:",
        '  - id=evt-1 seq=1 type=note from=bob to=all payload={"text":"a=b","created_at":1}',
        "  - id=evt-2 seq=2 type=hello from=carol to=alice",
        "remaining: 0",
        "timedOut: false",
      ].join("\n"),
    );
    expect(modelText([{ path: "src/a b.ts", state: "held", heldBy: "bob" }])).toBe(
      '- path="src/a b.ts" state=held heldBy=bob',
    );
  });

  test("what people and agents wrote stays exact JSON, unread-looking keys and all", () => {
    const entry = {
      id: "ctx-1",
      version: "v2",
      payload: { created_at: "mine", read_by: ["x"], nested: { a: 1 } },
    };
    expect(modelText(entry)).toBe(
      ["id: ctx-1", "version: v2", 'payload: {"created_at":"mine","read_by":["x"],"nested":{"a":1}}'].join(
        "\n",
      ),
    );
    expect(modelText({ key: "k", value: [1, { b: null }] })).toBe('key: k\nvalue: [1,{"b":null}]');
  });

  test("strings that span lines or carry edge spaces are quoted; empty answers say so", () => {
    expect(modelText({ summary: "two\nlines", note: " padded " })).toBe(
      'summary: "two\\nlines"\nnote: " padded "',
    );
    expect(modelText([])).toBe("(none)");
    expect(modelText({ claimed: [], conflicts: [] })).toBe("claimed: none\nconflicts: none");
    expect(modelText({ holder: null })).toBe("(nothing)");
  });

  test("nested records are indented; roomd's own event payloads are cleaned, an agent's stay exact", () => {
    const summary = {
      unreadEvents: {
        events: [
          {
            id: "evt-1",
            seq: 1,
            type: "task_added",
            from: "a",
            to: "all",
            payload: { task: { id: "task-1", owner: null, created_at: "t", version: 1 } },
          },
          {
            id: "evt-2",
            seq: 2,
            type: "note",
            from: "a",
            to: "all",
            payload: { owner: null, created_at: "t" },
          },
        ],
        remaining: 0,
      },
      released: { tasks: ["task-1"], paths: [] },
    };
    expect(modelText(summary)).toBe(
      [
        "unreadEvents:",
        "  events:",
        '    - id=evt-1 seq=1 type=task_added from=a to=all payload={"task":{"id":"task-1","version":1}}',
        '    - id=evt-2 seq=2 type=note from=a to=all payload={"owner":null,"created_at":"t"}',
        "  remaining: 0",
        "released:",
        "  tasks: task-1",
      ].join("\n"),
    );
  });

  test("structuredContent is the value itself, a list wrapped in {items}", () => {
    expect(structuredOf({ a: 1 })).toEqual({ a: 1 });
    expect(structuredOf([1, 2])).toEqual({ items: [1, 2] });
  });
});
