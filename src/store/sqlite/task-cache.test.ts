/** The decoded-task cache: what reads hand out stays right whoever changed the rows, and stays bounded. */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonText } from "../../protocol/json-text.ts";
import type { Task } from "../../protocol/records.ts";
import { createTaskCache } from "../sql/task-cache.ts";
import type { RoomScope } from "../types.ts";
import { createSqliteStore, type SqliteRoomStore } from "./index.ts";

const dir = mkdtempSync(join(tmpdir(), "roomd-task-cache-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let t = 1_700_000_000_000;
const now = () => t;
const opened: SqliteRoomStore[] = [];
const open = (path: string) => {
  const store = createSqliteStore({ path, now });
  opened.push(store);
  return store;
};
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});
const scope: RoomScope = { roomId: "room-1", teamId: "team-a" };
const task = (title: string) => ({ title, description: "", depends_on: [], priority: null });

describe("sqlite plan reads through the task cache", () => {
  test("a write by another process, and a lease renewed in SQL, are seen by the next read", async () => {
    const path = join(dir, "two.sqlite");
    const a = open(path);
    const b = open(path);
    const added = await a.addTask(scope, task("first"));
    await a.addTask(scope, task("second"));
    expect((await a.readPlan(scope)).tasks.map((x) => x.title)).toEqual(["first", "second"]);
    await b.updateTask(scope, { taskId: added.id, title: "renamed", agentId: "bob" });
    const claimed = await b.claimTask(scope, { taskId: added.id, agentId: "bob", leaseMs: 60_000 });
    const read = await a.readPlan(scope);
    expect(read.tasks[0]).toEqual(claimed);
    // bob's next call renews the lease (renewal.ts rewrites the stored JSON in SQL): a's read shows the new expiry.
    t += 10_000;
    await b.heartbeat({ ...scope, actor: "bob" }, "bob");
    const renewed = (await a.readPlan(scope)).tasks[0] as Task;
    expect(renewed.lease_expires_at).toBe(new Date(t + 60_000).toISOString());
    expect(await a.getTask(scope, added.id)).toEqual(renewed);
  });

  test("what reads hand out is frozen and serialises exactly as JSON.stringify", async () => {
    const store = open(join(dir, "frozen.sqlite"));
    await store.addTask(scope, { ...task('quotes " and \\ and é'), depends_on: [] });
    const plan = await store.readPlan(scope);
    const first = plan.tasks[0] as Task;
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => first.depends_on.push("x")).toThrow();
    expect(jsonText(plan)?.raw).toBe(JSON.stringify(plan));
  });

  test("the cache forgets deleted tasks and the least recently read rooms beyond its bound", () => {
    // Each row below is 22 characters of stored text, plus 128 for its entry and 256 per room: a room of two tasks
    // counts 556, of one 406; r1 (one task) and two rooms of two are over 1,200.
    const cache = createTaskCache(1200);
    const row = (id: string, title: string) => ({ id, json: JSON.stringify({ id, title }) });
    const one = cache.decodeAll("r1", [row("a", "A"), row("b", "B")]);
    expect(cache.decodeAll("r1", [row("a", "A"), row("b", "B")])).toEqual(one);
    expect(cache.decodeAll("r1", [row("a", "A"), row("b", "B")])[0]).toBe(one[0] as Task);
    const renamed = cache.decodeAll("r1", [row("a", "A2")]);
    expect(renamed).toEqual([{ id: "a", title: "A2" }] as never);
    // Within the budget, r1 stays: the same record comes back.
    expect(cache.decodeAll("r1", [row("a", "A2")])[0]).toBe(renamed[0] as Task);
    cache.decodeAll("r2", [row("c", "C"), row("d", "D")]);
    cache.decodeAll("r3", [row("e", "E"), row("f", "F")]);
    // r1 (least recently read) went to keep 1,200 at most: reading it again decodes afresh.
    const again = cache.decodeAll("r1", [row("a", "A2")]);
    expect(again).toEqual(renamed);
    expect(again[0]).not.toBe(renamed[0] as Task);
  });

  test("empty plans keep nothing, and rooms of tiny tasks are bounded by their count too", () => {
    const cache = createTaskCache(10_000);
    const row = (id: string) => ({ id, json: "{}" });
    cache.decodeAll("kept", [row("a")]);
    for (let i = 0; i < 10_000; i++) cache.decodeAll(`empty-${i}`, []);
    expect(cache.kept()).toEqual({ rooms: 1, chars: 256 + 128 + 2 });
    // Rooms of one 2-character task count 386 each: at most 25 fit in 10,000, not 5,000.
    for (let i = 0; i < 10_000; i++) cache.decodeAll(`tiny-${i}`, [row("a")]);
    expect(cache.kept().rooms).toBe(25);
    expect(cache.kept().chars).toBeLessThanOrEqual(10_000);
  });
  test("a kept plan answers only at its revision, and takes the rows written since in plan order", () => {
    const cache = createTaskCache(100_000);
    const row = (id: string, n: number, title: string) => ({ id, n, json: JSON.stringify({ id, title }) });
    const titles = (tasks: readonly Task[] | null) => tasks?.map((task) => task.title);
    cache.keepWhole("r", "base-1", 3, [row("a", 1, "A"), row("c", 3, "C")]);
    expect(titles(cache.plan("r", "base-1", 3))).toEqual(["A", "C"]);
    expect(cache.plan("r", "base-1", 4)).toBeNull();
    expect(cache.plan("r", "base-2", 3)).toBeNull();
    expect(cache.since("r", "base-1")).toBe(3);
    expect(cache.since("r", "base-2")).toBeNull();
    // Rows come in any order: a changed task keeps its place, a new one takes its place by n.
    const moved = cache.keepSince("r", "base-1", 3, 5, [
      row("d", 4, "D"),
      row("b", 2, "B"),
      row("a", 1, "A2"),
    ]);
    expect(titles(moved)).toEqual(["A2", "B", "C", "D"]);
    expect(cache.task("r", "base-1", 5, "b")?.title).toBe("B");
    expect(cache.task("r", "base-1", 5, "x")).toBeNull();
    expect(cache.task("r", "base-1", 4, "b")).toBeUndefined();
    // Kept at 5 now: a read that started from 3 finds the plan moved and reads it whole.
    expect(cache.keepSince("r", "base-1", 3, 6, [row("a", 1, "A3")])).toBeNull();
    // A task whose place changed is not guessed at either.
    expect(cache.keepSince("r", "base-1", 5, 6, [row("a", 9, "A3")])).toBeNull();
    expect(titles(cache.plan("r", "base-1", 5))).toEqual(["A2", "B", "C", "D"]);
  });
});
