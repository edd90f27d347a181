/** SQLite specifics the conformance suite cannot see: schema, PRAGMAs, files, expiry rows, closed handles. */
import { Database } from "bun:sqlite";
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RoomError } from "../../protocol/errors.ts";
import { LIMITS } from "../../protocol/limits.ts";
import type { RoomScope } from "../types.ts";
import { createSqliteStore, type SqliteRoomStore } from "./index.ts";

const dir = mkdtempSync(join(tmpdir(), "roomd-sqlite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let t = 1_700_000_000_000;
const now = () => t;
const opened: SqliteRoomStore[] = [];
let fileN = 0;
const newPath = () => join(dir, `nested/dir-${++fileN}`, "roomd.sqlite");
function open(path: string): SqliteRoomStore {
  const store = createSqliteStore({ path, now });
  opened.push(store);
  return store;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

const scope: RoomScope = { roomId: "room-1", teamId: "team-a" };
const task = (title: string) => ({ title, description: "", depends_on: [], priority: null });
const countRows = (path: string, table: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return (db.query(`SELECT count(*) AS c FROM ${table}`).get() as { c: number }).c;
  } finally {
    db.close();
  }
};

describe("sqlite store: files and schema", () => {
  test("creates the parent directory and turns WAL on", () => {
    const path = newPath();
    open(path);
    const db = new Database(path);
    expect(db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    db.close();
  });

  test("reopening an existing file keeps the data (schema creation is idempotent)", async () => {
    const path = newPath();
    const first = open(path);
    await first.addTask(scope, task("a"));
    await first.close();
    const second = open(path);
    expect((await second.readPlan(scope)).tasks.map((x) => x.title)).toEqual(["a"]);
    await second.addTask(scope, task("b"));
    expect((await second.getTask(scope, "task-2")).title).toBe("b");
  });

  test("two handles on one file see each other's writes, and the counters stay shared", async () => {
    const path = newPath();
    const [a, b] = [open(path), open(path)];
    await a.postEvent(scope, { type: "x", from: "p", to: "all", payload: {} });
    const second = await b.postEvent(scope, { type: "y", from: "q", to: "all", payload: {} });
    expect(second.seq).toBe(2);
    expect((await a.readEvents(scope, { limit: 10 })).map((e) => e.seq)).toEqual([2, 1]);
    await b.setVar(scope, "k", "v", "q");
    expect(await a.getVar(scope, "k")).toBe("v");
  });

  test("values come back byte for byte", async () => {
    const store = open(newPath());
    const value = "8080\u0000 ünï 😀\n";
    await store.setVar(scope, "k", value, "a");
    expect(await store.getVar(scope, "k")).toBe(value);
  });
});

describe("sqlite store: ownership leaves no trace", () => {
  test("reads and refused or empty writes on a fresh room insert no rows", async () => {
    const path = newPath();
    const store = open(path);
    await store.readPlan(scope);
    await store.listVars(scope);
    await store.consumeEvents(scope, "a", 10);
    expect(await store.releaseLock(scope, "r", "a")).toEqual({ released: false });
    await expect(store.updateTask(scope, { taskId: "task-1", status: "done" })).rejects.toThrow(RoomError);
    expect(countRows(path, "rooms")).toBe(0);
  });
});

describe("sqlite store: expiry", () => {
  test("an expired room reads as empty, can be claimed by another team, and loses its old rows", async () => {
    const path = newPath();
    const store = open(path);
    await store.addTask(scope, task("old"));
    t += LIMITS.roomTtlMs;
    expect((await store.readPlan(scope)).tasks).toEqual([]);
    const other = { ...scope, teamId: "team-b" };
    const fresh = await store.addTask(other, task("new"));
    expect(fresh.id).toBe("task-1");
    expect(countRows(path, "tasks")).toBe(1);
    expect(countRows(path, "events")).toBe(1);
  });

  test("sweepExpired deletes expired rooms with all their rows and keeps live ones", async () => {
    const path = newPath();
    const store = open(path);
    await store.addTask(scope, task("a"));
    await store.writeContext(scope, {
      type: "note",
      summary: "s",
      consuming_agents: ["b"],
      payload: { text: "x" },
      author: "a",
    });
    await store.acquireLock(scope, "r", "a", 1000);
    await store.requestReview(scope, { requester: "a", reviewer: "b", subject: "s", details: "" });
    await store.consumeEvents(scope, "b", 10);
    expect(countRows(path, "search_fts")).toBe(2);
    t += LIMITS.roomTtlMs - 1;
    const live = { roomId: "room-2", teamId: "team-a" };
    await store.createRoom(live);
    await store.heartbeat(live, "a");
    t += 1;
    expect(await store.sweepExpired()).toBe(1);
    const rowsOfTheRoom = ["tasks", "contexts", "events", "locks", "search_docs", "search_fts", "reviews"];
    for (const table of [...rowsOfTheRoom, "context_reads"]) expect(countRows(path, table)).toBe(0);
    expect(countRows(path, "rooms")).toBe(1);
    expect(countRows(path, "presence")).toBe(1);
  });

  test("a read refreshes last_activity only when it is more than a minute old", async () => {
    const path = newPath();
    const store = open(path);
    await store.createRoom(scope);
    const lastActivity = () => {
      const db = new Database(path, { readonly: true });
      const row = db.query("SELECT last_activity AS v FROM rooms").get() as { v: number };
      db.close();
      return row.v;
    };
    const written = t;
    t += 30_000;
    await store.readPlan(scope);
    expect(lastActivity()).toBe(written);
    t += 31_000;
    await store.readPlan(scope);
    expect(lastActivity()).toBe(t);
  });
});

describe("sqlite store: outages", () => {
  test("a path that cannot be opened fails at construction, naming the path", () => {
    const file = join(dir, "plain-file");
    writeFileSync(file, "not a directory");
    const path = join(file, "roomd.sqlite");
    expect(() => createSqliteStore({ path })).toThrow(`Cannot open the SQLite store at ${path}`);
  });

  test("a closed store answers store_unavailable", async () => {
    const store = createSqliteStore({ path: newPath(), now });
    await store.close();
    await expect(store.ping()).rejects.toMatchObject({ kind: "store_unavailable" });
    await expect(store.readPlan(scope)).rejects.toMatchObject({ kind: "store_unavailable" });
    await expect(store.addTask(scope, task("a"))).rejects.toMatchObject({ kind: "store_unavailable" });
  });
});
