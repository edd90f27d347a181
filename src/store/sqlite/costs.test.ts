/**
 * What SQLite does per call, checked structurally (query plans and counts, never timings): consuming by cursor
 * uses index range scans only (docs/protocol.md#cursors), `remaining` and the public summary come from counts kept
 * as the room changes, and a file written by schema version 1 is migrated with those counts backfilled.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONTEXT_CHANGED_SINCE_SQL, CONTEXT_OF_TYPE_SQL } from "../sql/context.ts";
import { ADDRESSED_SQL } from "../sql/events.ts";
import { OWNED_TASKS_SQL, PLAN_WRITTEN_SINCE_SQL } from "../sql/plan.ts";
import { createSqliteStore } from "./index.ts";
import { SCHEMA_VERSION } from "./schema.ts";

const dir = mkdtempSync(join(tmpdir(), "roomd-sqlite-costs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const newPath = () => join(dir, `f${++n}.sqlite`);
const scope = { roomId: "room-1", teamId: "team-a" };

describe("consuming by cursor is O(log n + k) on SQLite", () => {
  test("the addressed-events query searches the address index and never scans or sorts the backlog", () => {
    const store = createSqliteStore({ path: newPath() });
    const db = new Database(join(dir, `f${n}.sqlite`));
    try {
      const plan = db
        .query<{ detail: string }, Record<string, string | number>>(
          `EXPLAIN QUERY PLAN ${ADDRESSED_SQL.sqlite}`,
        )
        .all({ room: "r", after: 0, agent: "a", limit: 10 })
        .map((row) => row.detail);
      const searches = plan.filter((d) =>
        /^SEARCH events USING COVERING INDEX events_by_address \(room_id=\? AND to_agent=\? AND seq>\?\)$/.test(
          d,
        ),
      );
      expect(searches).toHaveLength(2);
      // No scan of the events table, and the one sort is of a single event's readers (read_by), not the backlog.
      expect(plan.filter((d) => /^SCAN (events|e)\b/.test(d))).toEqual([]);
      expect(plan.filter((d) => /USE TEMP B-TREE/.test(d))).toHaveLength(1);
      expect(plan.some((d) => /SEARCH r USING COVERING INDEX sqlite_autoindex_event_reads_1/.test(d))).toBe(
        true,
      );
    } finally {
      db.close();
      void store.close();
    }
  });

  test("remaining is exact from the counts, for a newcomer and after partial consumption", async () => {
    const store = createSqliteStore({ path: newPath() });
    try {
      for (let i = 0; i < 30; i++) {
        await store.postEvent(scope, { type: "e", from: "p", to: i % 3 === 0 ? "bob" : "all", payload: {} });
      }
      const first = await store.consumeEvents(scope, "bob", 5);
      expect([first.count, first.remaining]).toEqual([5, 25]);
      const alice = await store.consumeEvents(scope, "alice", 100);
      expect([alice.count, alice.remaining]).toEqual([20, 0]);
    } finally {
      await store.close();
    }
  });
});

describe("schema migrations", () => {
  test("a version-1 file is migrated: counts backfilled, cursors keep their place, nothing lost", async () => {
    const path = newPath();
    // A file as the first release wrote it: version-1 tables and rows, user_version 0.
    const v1 = new Database(path, { create: true });
    v1.exec(`
      CREATE TABLE rooms (room_id TEXT PRIMARY KEY, owner TEXT NOT NULL, created_at INTEGER NOT NULL,
        last_activity INTEGER NOT NULL, plan_created_at INTEGER, plan_updated_at INTEGER,
        task_n INTEGER NOT NULL DEFAULT 0, ctx_n INTEGER NOT NULL DEFAULT 0, ctx_seq INTEGER NOT NULL DEFAULT 0,
        event_seq INTEGER NOT NULL DEFAULT 0) STRICT;
      CREATE TABLE tasks (room_id TEXT NOT NULL, id TEXT NOT NULL, n INTEGER NOT NULL, owner TEXT,
        json TEXT NOT NULL, PRIMARY KEY (room_id, id)) STRICT;
      CREATE TABLE contexts (room_id TEXT NOT NULL, id TEXT NOT NULL, n INTEGER NOT NULL, type TEXT NOT NULL,
        author TEXT NOT NULL, changed_seq INTEGER NOT NULL, json TEXT NOT NULL, PRIMARY KEY (room_id, id)) STRICT;
      CREATE TABLE events (room_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL,
        from_agent TEXT NOT NULL, to_agent TEXT NOT NULL, ts INTEGER NOT NULL, payload TEXT NOT NULL,
        reply_to TEXT, PRIMARY KEY (room_id, seq)) STRICT;
      CREATE TABLE cursors (room_id TEXT NOT NULL, agent_id TEXT NOT NULL, seq INTEGER,
        ctx_mark INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (room_id, agent_id)) STRICT;
    `);
    const now = Date.now();
    v1.run("INSERT INTO rooms VALUES ('room-1', 'team-a', ?, ?, ?, ?, 2, 0, 0, 4)", [now, now, now, now]);
    const task = (id: string, status: string) =>
      JSON.stringify({
        id,
        title: id,
        description: "",
        status,
        owner: null,
        depends_on: [],
        priority: null,
        version: 1,
        created_at: "x",
        updated_at: "x",
      });
    v1.run("INSERT INTO tasks VALUES ('room-1', 'task-1', 1, NULL, ?)", [task("task-1", "done")]);
    v1.run("INSERT INTO tasks VALUES ('room-1', 'task-2', 2, NULL, ?)", [task("task-2", "pending")]);
    for (const [seq, to] of [
      [1, "all"],
      [2, "bob"],
      [3, "all"],
      [4, "carol"],
    ] as const) {
      v1.run("INSERT INTO events VALUES ('room-1', ?, 'e', 'p', ?, ?, '{}', NULL)", [seq, to, now]);
    }
    v1.run("INSERT INTO cursors VALUES ('room-1', 'bob', 2, 0)");
    v1.close();

    const store = createSqliteStore({ path });
    try {
      const db = new Database(path, { readonly: true });
      expect(db.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version).toBe(
        SCHEMA_VERSION,
      );
      db.close();
      const view = await store.roomSummary("room-1");
      expect(view).toMatchObject({ taskCount: 2, tasksByStatus: { done: 1, pending: 1, in_progress: 0 } });
      const bob = await store.consumeEvents(scope, "bob", 10);
      expect([bob.events.map((e) => e.seq), bob.remaining]).toEqual([[3], 0]);
      const carol = await store.consumeEvents(scope, "carol", 1);
      expect([carol.events.map((e) => e.seq), carol.remaining]).toEqual([[1], 2]);
    } finally {
      await store.close();
    }
  });

  test("a file from a newer roomd is refused at open, naming the versions", () => {
    const path = newPath();
    const db = new Database(path, { create: true });
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => createSqliteStore({ path })).toThrow(/newer than this roomd/);
  });
});

describe("plan and context views read ranges of their indexes, never the whole room", () => {
  test("the rows written since a revision, an agent's own tasks, the entries changed since a mark, of one type", () => {
    const store = createSqliteStore({ path: newPath() });
    const db = new Database(join(dir, `f${n}.sqlite`));
    const plan = (sql: string, params: Record<string, string | number> | (string | number)[]) =>
      db
        .query<{ detail: string }, (Record<string, string | number> | string | number)[]>(
          `EXPLAIN QUERY PLAN ${sql}`,
        )
        .all(...(Array.isArray(params) ? params : [params]))
        .map((row) => row.detail);
    try {
      expect(plan(PLAN_WRITTEN_SINCE_SQL, ["r", 3])).toEqual([
        "SEARCH tasks USING INDEX tasks_by_rev (room_id=? AND rev>?)",
      ]);
      expect(plan(OWNED_TASKS_SQL, ["r", "alice"])).toEqual([
        "SEARCH tasks USING INDEX tasks_by_owner (room_id=? AND owner=?)",
      ]);
      expect(plan(CONTEXT_CHANGED_SINCE_SQL, ["r", 3])).toEqual([
        "SEARCH contexts USING COVERING INDEX contexts_by_change (room_id=? AND changed_seq>?)",
      ]);
      // In order from the index: no sort of the room's entries.
      expect(plan(CONTEXT_OF_TYPE_SQL, { room: "r", type: "note", author: "a" })).toEqual([
        "SEARCH contexts USING INDEX contexts_by_type (room_id=? AND type=?)",
      ]);
    } finally {
      db.close();
      void store.close();
    }
  });
});
