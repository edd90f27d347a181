/** Locks: acquire/renew/release, real holder, fencing, expiry by the injected clock. */
import { expect, test } from "bun:test";
import { iso } from "../../../src/protocol/time.ts";
import { newScope, newTask, notePayload, type Suite, snapshot } from "./harness.ts";

export function lockTests(suite: Suite): void {
  test("acquiring a free lock takes it with a fence; listLocks shows it", async () => {
    const scope = newScope();
    expect(await suite.store.listLocks(scope)).toEqual([]);
    const now = suite.clock.now();
    const lock = await suite.store.acquireLock(scope, "db/schema", "a", 30_000);
    expect(lock).toEqual({
      acquired: true,
      resource: "db/schema",
      holder: "a",
      expiresAt: iso(now + 30_000),
      fence: expect.any(Number),
    });
    expect(Number.isInteger(lock.fence)).toBe(true);
    expect(await suite.store.listLocks(scope)).toEqual([
      { resource: "db/schema", owner: "a", expiresAt: lock.expiresAt, fence: lock.fence },
    ]);
  });

  test("the holder re-acquiring renews the expiry and keeps the fence", async () => {
    const scope = newScope();
    const first = await suite.store.acquireLock(scope, "r", "a", 30_000);
    const later = suite.clock.advance(20_000);
    const renewed = await suite.store.acquireLock(scope, "r", "a", 60_000);
    expect(renewed).toEqual({ ...first, expiresAt: iso(later + 60_000) });
    suite.clock.advance(30_000);
    expect(await suite.store.listLocks(scope)).toEqual([
      { resource: "r", owner: "a", expiresAt: renewed.expiresAt, fence: first.fence },
    ]);
  });

  test("another agent gets acquired false with the real holder, and nothing changes", async () => {
    const scope = newScope();
    const held = await suite.store.acquireLock(scope, "r", "a", 30_000);
    suite.clock.advance(1000);
    const before = await snapshot(suite.store, scope);
    expect(await suite.store.acquireLock(scope, "r", "b", 300_000)).toEqual({
      acquired: false,
      resource: "r",
      holder: "a",
      expiresAt: held.expiresAt,
      fence: held.fence,
    });
    expect(await snapshot(suite.store, scope)).toEqual(before);
  });

  test("release: a non-holder gets false and the lock stays; the holder gets true once", async () => {
    const scope = newScope();
    const held = await suite.store.acquireLock(scope, "r", "a", 30_000);
    const before = await snapshot(suite.store, scope);
    // A non-holder is told who holds the lock and until when (docs/protocol.md#release_lock--release-a-lock).
    expect(await suite.store.releaseLock(scope, "r", "b")).toEqual({
      released: false,
      holder: "a",
      expiresAt: expect.any(String),
    });
    expect(await suite.store.releaseLock(scope, "other", "a")).toEqual({ released: false });
    expect(await snapshot(suite.store, scope)).toEqual(before);
    expect(await suite.store.releaseLock(scope, "r", "a")).toEqual({ released: true });
    expect(await suite.store.listLocks(scope)).toEqual([]);
    expect(await suite.store.releaseLock(scope, "r", "a")).toEqual({ released: false });
    const next = await suite.store.acquireLock(scope, "r", "b", 30_000);
    expect(next).toMatchObject({ acquired: true, holder: "b" });
    expect(next.fence).toBeGreaterThan(held.fence);
  });

  test("the fence strictly increases on every change of holder, across releases and expiries", async () => {
    const scope = newScope();
    const fences: number[] = [];
    const take = async (agent: string, ttl: number) => {
      const lock = await suite.store.acquireLock(scope, "r", agent, ttl);
      expect(lock).toMatchObject({ acquired: true, holder: agent });
      fences.push(lock.fence);
      return lock;
    };
    await take("a", 30_000);
    await suite.store.releaseLock(scope, "r", "a");
    await take("a", 30_000); // same agent again after a release: a new tenure
    await suite.store.releaseLock(scope, "r", "a");
    await take("b", 5_000);
    suite.clock.advance(5_001);
    await take("c", 5_000); // b's lock expired
    const renewed = await suite.store.acquireLock(scope, "r", "c", 5_000);
    expect(renewed.fence).toBe(fences.at(-1) ?? -1);
    suite.clock.advance(5_001);
    await take("c", 5_000); // c's own expired lock: a new tenure too
    for (let i = 1; i < fences.length; i++) expect(fences[i] ?? 0).toBeGreaterThan(fences[i - 1] ?? 0);
  });

  test("an expired lock is free for another agent, not listed, and not releasable by its old holder", async () => {
    const scope = newScope();
    const old = await suite.store.acquireLock(scope, "r", "a", 5_000);
    await suite.store.acquireLock(scope, "s", "a", 60_000);
    suite.clock.advance(5_001);
    expect((await suite.store.listLocks(scope)).map((l) => l.resource)).toEqual(["s"]);
    expect(await suite.store.releaseLock(scope, "r", "a")).toEqual({ released: false });
    const taken = await suite.store.acquireLock(scope, "r", "b", 5_000);
    expect(taken).toMatchObject({ acquired: true, holder: "b" });
    expect(taken.fence).toBeGreaterThan(old.fence);
    expect(await suite.store.releaseLock(scope, "r", "a")).toEqual({
      released: false,
      holder: "b",
      expiresAt: taken.expiresAt,
    });
    const locks = await suite.store.listLocks(scope);
    expect(locks.find((l) => l.resource === "r")).toEqual({
      resource: "r",
      owner: "b",
      expiresAt: taken.expiresAt,
      fence: taken.fence,
    });
  });

  test("room activity never extends a lock; it expires when the clock passes it", async () => {
    const scope = newScope();
    const lock = await suite.store.acquireLock(scope, "r", "a", 30_000);
    const task = await suite.store.addTask(scope, newTask("t", { agentId: "a" }));
    const entry = await suite.store.writeContext(scope, {
      type: "note",
      summary: "n",
      consuming_agents: ["b"],
      payload: notePayload(),
      author: "a",
    });
    for (let i = 0; i < 25; i++) {
      suite.clock.advance(1000);
      await suite.store.updateTask(scope, { taskId: task.id, description: `d${i}` });
      await suite.store.postEvent(scope, { type: "e", from: "a", to: "all", payload: { i } });
      await suite.store.heartbeat(scope, "a", `step ${i}`);
      await suite.store.setVar(scope, `k${i}`, "v", "a");
      await suite.store.summary(scope, "a", 100);
      await suite.store.consumeEvents(scope, "b", 100);
      if (i % 5 === 0)
        await suite.store.updateContext(scope, { id: entry.id, author: "a", summary: `n${i}` });
      await suite.store.acquireLock(scope, `other-${i}`, "b", 300_000);
    }
    const listed = (await suite.store.listLocks(scope)).find((l) => l.resource === "r");
    expect(listed).toEqual({ resource: "r", owner: "a", expiresAt: lock.expiresAt, fence: lock.fence });
    expect(await suite.store.acquireLock(scope, "r", "b", 30_000)).toMatchObject({
      acquired: false,
      expiresAt: lock.expiresAt,
    });
    suite.clock.advance(5_001); // 30.001 s after the acquire
    expect((await suite.store.listLocks(scope)).some((l) => l.resource === "r")).toBe(false);
    expect(await suite.store.acquireLock(scope, "r", "b", 30_000)).toMatchObject({
      acquired: true,
      holder: "b",
    });
  });
}
