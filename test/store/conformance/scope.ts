/**
 * What every room operation does with its RoomScope beyond its own work (types.ts RoomScope, Idempotency): the
 * kept result of an idempotency key, checked and written in the operation's atomic step, and the acting agent's
 * presence, recorded by a successful call on a room the team owns.
 */
import { expect, test } from "bun:test";
import { StoreFault } from "../../../src/protocol/errors.ts";
import { LIMITS } from "../../../src/protocol/limits.ts";
import type { RoomScope } from "../../../src/store/types.ts";
import { allEvents, claimedRoom, expectRoomError, newScope, newTask, type Suite } from "./harness.ts";

const keyed = (scope: RoomScope, key: string, fingerprint = "f1"): RoomScope => ({
  ...scope,
  idempotency: { key, fingerprint },
});

export function idempotencyTests(suite: Suite): void {
  test("a write with a key applies once; the same key and fingerprint returns the kept result, replayed", async () => {
    const scope = newScope();
    const first = keyed(scope, "k-1");
    const task = await suite.store.addTask(first, newTask("once"));
    expect(first.idempotency?.replayed).toBeUndefined();
    const again = keyed(scope, "k-1");
    expect(await suite.second.addTask(again, newTask("once"))).toEqual(task);
    expect(again.idempotency?.replayed).toBe(true);
    expect((await suite.store.readPlan(scope)).tasks).toHaveLength(1);
    expect((await allEvents(suite.store, scope)).filter((e) => e.type === "task_added")).toHaveLength(1);
  });

  test("the same key with other arguments is refused and changes nothing", async () => {
    const scope = newScope();
    await suite.store.postEvent(keyed(scope, "k-2", "f1"), { type: "x", from: "a", to: "all", payload: {} });
    await expectRoomError(
      suite.store.postEvent(keyed(scope, "k-2", "f2"), { type: "y", from: "a", to: "all", payload: {} }),
      "conflict",
      "Idempotency key k-2 was used with different arguments",
    );
    expect((await allEvents(suite.store, scope)).map((e) => e.type)).toEqual(["x"]);
  });

  test("keys are per room; a failed write keeps nothing, so a corrected retry with the key applies", async () => {
    const a = newScope();
    const b = { ...newScope(), teamId: a.teamId };
    await suite.store.setVar(keyed(a, "k-3"), "v", "1", "a");
    const inB = keyed(b, "k-3");
    await suite.store.setVar(inB, "v", "2", "a");
    expect(inB.idempotency?.replayed).toBeUndefined();
    expect(await suite.store.getVar(b, "v")).toBe("2");
    await expectRoomError(
      suite.store.updateTask(keyed(a, "k-4"), { taskId: "task-9", status: "done" }),
      "not_found",
      /task-9/,
    );
    const task = await suite.store.addTask(a, newTask("t"));
    const retry = keyed(a, "k-4");
    const updated = await suite.store.updateTask(retry, { taskId: task.id, status: "done" });
    expect(updated.status).toBe("done");
    expect(retry.idempotency?.replayed).toBeUndefined();
  });

  test("a consume with a key returns the same batch on retry and moves the cursor once", async () => {
    const scope = newScope();
    for (const type of ["e1", "e2", "e3"]) {
      await suite.store.postEvent(scope, { type, from: "a", to: "all", payload: {} });
    }
    const first = await suite.store.consumeEvents(keyed(scope, "k-5"), "reader", 2);
    const retry = await suite.second.consumeEvents(keyed(scope, "k-5"), "reader", 2);
    expect(retry).toEqual(first);
    expect((await suite.store.consumeEvents(scope, "reader", 10)).events.map((e) => e.type)).toEqual(["e3"]);
  });

  test("a kept result lives 24 h: after that the key is free again", async () => {
    const scope = newScope();
    await suite.store.addTask(keyed(scope, "k-6"), newTask("first"));
    suite.clock.advance(LIMITS.idempotencyKeepMs + 1);
    const later = keyed(scope, "k-6", "other");
    await suite.store.addTask(later, newTask("second"));
    expect(later.idempotency?.replayed).toBeUndefined();
    expect((await suite.store.readPlan(scope)).tasks.map((t) => t.title)).toEqual(["first", "second"]);
  });
}

export function actorTests(suite: Suite): void {
  test("any successful write naming the actor keeps it online, its status text kept", async () => {
    const scope = await claimedRoom(suite.store);
    await suite.store.heartbeat(scope, "worker", "on task 1");
    suite.clock.advance(LIMITS.presenceOnlineMs + 1_000);
    expect((await suite.store.getPresence(scope))[0]?.status).toBe("offline");
    await suite.store.addTask({ ...scope, actor: "worker" }, newTask("t", { agentId: "worker" }));
    const [presence] = await suite.store.getPresence(scope);
    expect(presence).toMatchObject({ agentId: "worker", status: "online", statusText: "on task 1" });
    expect(Date.parse(presence?.lastSeen ?? "")).toBe(suite.clock.now());
  });

  test("one write, one instant: a heartbeat by its own actor reads back with the lastSeen it returned", async () => {
    // A clock that moves on every reading: a write that asked it twice would record two different times.
    let t = suite.clock.now();
    const ticking = await suite.factory.open(() => ++t);
    try {
      const scope = await claimedRoom(ticking);
      const beat = await ticking.heartbeat({ ...scope, actor: "a" }, "a", "working");
      expect(await ticking.getPresence(scope)).toEqual([beat.presence]);
    } finally {
      await ticking.close();
    }
  });

  test("the actor of the write that claims a room is recorded; a refused write records nothing", async () => {
    const scope = newScope();
    await suite.store.postEvent(
      { ...scope, actor: "first" },
      { type: "x", from: "first", to: "all", payload: {} },
    );
    expect((await suite.store.getPresence(scope)).map((p) => p.agentId)).toEqual(["first"]);
    await expectRoomError(
      suite.store.updateTask({ ...scope, actor: "ghost" }, { taskId: "task-9", status: "done" }),
      "not_found",
      /task-9/,
    );
    const other = { ...newScope(), roomId: scope.roomId };
    await expectRoomError(suite.store.readPlan({ ...other, actor: "intruder" }), "denied", /access denied/);
    expect((await suite.store.getPresence(scope)).map((p) => p.agentId)).toEqual(["first"]);
  });

  test("a read naming the actor records it on an owned room, and nothing on an unowned one", async () => {
    const scope = newScope();
    await suite.store.readPlan({ ...scope, actor: "nobody" });
    expect(await suite.store.getPresence(scope)).toEqual([]);
    await suite.store.addTask(scope, newTask("t"));
    await suite.store.readPlan({ ...scope, actor: "reader" });
    expect((await suite.store.getPresence(scope)).map((p) => p.agentId)).toEqual(["reader"]);
  });
}

export function noClaimTests(suite: Suite): void {
  test("heartbeat and summary never claim a room: nothing recorded, roomExists false", async () => {
    const scope = newScope();
    const beat = await suite.store.heartbeat(scope, "a", "typo?");
    expect(beat.roomExists).toBe(false);
    expect(beat.presence).toMatchObject({ agentId: "a", status: "online", statusText: "typo?" });
    const summary = await suite.store.summary(scope, "a", 10);
    expect(summary).toMatchObject({ roomExists: false, myTasks: [], presence: [], cursor: null });
    expect(summary.unreadEvents).toEqual({ events: [], cursor: null, count: 0, remaining: 0 });
    expect(await suite.store.roomStats(scope.roomId)).toBeNull();
    // The id is still free for any team.
    const other = { roomId: scope.roomId, teamId: `${scope.teamId}-2` };
    await suite.store.addTask(other, newTask("mine"));
    expect((await suite.store.roomStats(scope.roomId))?.owner).toBe(other.teamId);
  });

  test("on an owned room both record presence and say roomExists", async () => {
    const scope = await claimedRoom(suite.store);
    expect((await suite.store.heartbeat(scope, "a")).roomExists).toBe(true);
    expect((await suite.store.summary(scope, "b", 10)).roomExists).toBe(true);
    expect((await suite.store.getPresence(scope)).map((p) => p.agentId)).toEqual(["a", "b"]);
  });
}

export function faultTests(suite: Suite): void {
  test("a broken record is a bug, not an outage: a StoreFault naming the driver, never store_unavailable", async () => {
    const scope = newScope();
    const task = await suite.store.addTask(scope, newTask("t"));
    await suite.factory.corruptTask(scope.roomId, task.id);
    for (const op of [() => suite.store.readPlan(scope), () => suite.store.getTask(scope, task.id)]) {
      const error = await op().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StoreFault);
      expect((error as StoreFault).driver).toBe(suite.store.driver);
    }
    // The store itself still answers: this is no outage.
    await suite.store.ping();
    expect((await suite.store.readPlan(newScope())).tasks).toEqual([]);
  });
}

export function logTests(suite: Suite): void {
  test("readLog: events after a seq, oldest first, with the head; an unowned room is empty and not claimed", async () => {
    const fresh = newScope();
    expect(await suite.store.readLog(fresh, 0, 10)).toEqual({ events: [], head: 0, exists: false });
    expect(await suite.store.roomStats(fresh.roomId)).toBeNull();
    const scope = await claimedRoom(suite.store);
    for (let i = 0; i < 5; i++)
      await suite.store.postEvent(scope, { type: `e${i}`, from: "a", to: "all", payload: {} });
    const page = await suite.store.readLog(scope, 2, 2);
    expect([page.events.map((e) => e.seq), page.head, page.exists]).toEqual([[3, 4], 5, true]);
    expect((await suite.store.readLog(scope, 5, 10)).events).toEqual([]);
    const other = { roomId: scope.roomId, teamId: `${scope.teamId}-x` };
    await expectRoomError(suite.store.readLog(other, 0, 10), "denied", /access denied/);
  });

  test("a consume that delivers nothing keeps nothing under its key; the retry that delivers keeps its batch", async () => {
    const scope = await claimedRoom(suite.store);
    const keyed = (): RoomScope => ({ ...scope, idempotency: { key: "wait-1", fingerprint: "f" } });
    const empty = keyed();
    expect((await suite.store.consumeEvents(empty, "a", 10)).count).toBe(0);
    expect(empty.idempotency?.replayed).toBeUndefined();
    await suite.store.postEvent(scope, { type: "x", from: "b", to: "a", payload: {} });
    const first = keyed();
    const batch = await suite.store.consumeEvents(first, "a", 10);
    expect([batch.count, first.idempotency?.replayed]).toEqual([1, undefined]);
    const retry = keyed();
    expect(await suite.store.consumeEvents(retry, "a", 10)).toEqual(batch);
    expect(retry.idempotency?.replayed).toBe(true);
  });
}
