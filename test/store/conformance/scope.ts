/**
 * What every room operation does with its RoomScope beyond its own work (types.ts RoomScope, Idempotency): the
 * kept result of an idempotency key, checked and written in the operation's atomic step, and the acting agent's
 * presence, recorded by a successful call on a room the team owns.
 */
import { expect, test } from "bun:test";
import { LIMITS } from "../../../src/protocol/limits.ts";
import type { RoomScope } from "../../../src/store/types.ts";
import { allEvents, type Ctx, expectRoomError, newScope, newTask } from "./harness.ts";

const keyed = (scope: RoomScope, key: string, fingerprint = "f1"): RoomScope => ({
  ...scope,
  idempotency: { key, fingerprint },
});

export function idempotencyTests(ctx: Ctx): void {
  test("a write with a key applies once; the same key and fingerprint returns the kept result, replayed", async () => {
    const scope = newScope();
    const first = keyed(scope, "k-1");
    const task = await ctx.store.addTask(first, newTask("once"));
    expect(first.idempotency?.replayed).toBeUndefined();
    const again = keyed(scope, "k-1");
    expect(await ctx.second.addTask(again, newTask("once"))).toEqual(task);
    expect(again.idempotency?.replayed).toBe(true);
    expect((await ctx.store.readPlan(scope)).tasks).toHaveLength(1);
    expect((await allEvents(ctx.store, scope)).filter((e) => e.type === "task_added")).toHaveLength(1);
  });

  test("the same key with other arguments is refused and changes nothing", async () => {
    const scope = newScope();
    await ctx.store.postEvent(keyed(scope, "k-2", "f1"), { type: "x", from: "a", to: "all", payload: {} });
    await expectRoomError(
      ctx.store.postEvent(keyed(scope, "k-2", "f2"), { type: "y", from: "a", to: "all", payload: {} }),
      "conflict",
      "Idempotency key k-2 was used with different arguments",
    );
    expect((await allEvents(ctx.store, scope)).map((e) => e.type)).toEqual(["x"]);
  });

  test("keys are per room; a failed write keeps nothing, so a corrected retry with the key applies", async () => {
    const a = newScope();
    const b = { ...newScope(), teamId: a.teamId };
    await ctx.store.setVar(keyed(a, "k-3"), "v", "1", "a");
    const inB = keyed(b, "k-3");
    await ctx.store.setVar(inB, "v", "2", "a");
    expect(inB.idempotency?.replayed).toBeUndefined();
    expect(await ctx.store.getVar(b, "v")).toBe("2");
    await expectRoomError(
      ctx.store.updateTask(keyed(a, "k-4"), { taskId: "task-9", status: "done" }),
      "not_found",
      /task-9/,
    );
    const task = await ctx.store.addTask(a, newTask("t"));
    const retry = keyed(a, "k-4");
    const updated = await ctx.store.updateTask(retry, { taskId: task.id, status: "done" });
    expect(updated.status).toBe("done");
    expect(retry.idempotency?.replayed).toBeUndefined();
  });

  test("a consume with a key returns the same batch on retry and moves the cursor once", async () => {
    const scope = newScope();
    for (const type of ["e1", "e2", "e3"]) {
      await ctx.store.postEvent(scope, { type, from: "a", to: "all", payload: {} });
    }
    const first = await ctx.store.consumeEvents(keyed(scope, "k-5"), "reader", 2);
    const retry = await ctx.second.consumeEvents(keyed(scope, "k-5"), "reader", 2);
    expect(retry).toEqual(first);
    expect((await ctx.store.consumeEvents(scope, "reader", 10)).events.map((e) => e.type)).toEqual(["e3"]);
  });

  test("a kept result lives 24 h: after that the key is free again", async () => {
    const scope = newScope();
    await ctx.store.addTask(keyed(scope, "k-6"), newTask("first"));
    ctx.clock.advance(LIMITS.idempotencyKeepMs + 1);
    const later = keyed(scope, "k-6", "other");
    await ctx.store.addTask(later, newTask("second"));
    expect(later.idempotency?.replayed).toBeUndefined();
    expect((await ctx.store.readPlan(scope)).tasks.map((t) => t.title)).toEqual(["first", "second"]);
  });
}

export function actorTests(ctx: Ctx): void {
  test("any successful write naming the actor keeps it online, its status text kept", async () => {
    const scope = newScope();
    await ctx.store.heartbeat(scope, "worker", "on task 1");
    ctx.clock.advance(LIMITS.presenceOnlineMs + 1_000);
    expect((await ctx.store.getPresence(scope))[0]?.status).toBe("offline");
    await ctx.store.addTask({ ...scope, actor: "worker" }, newTask("t", { agentId: "worker" }));
    const [presence] = await ctx.store.getPresence(scope);
    expect(presence).toMatchObject({ agentId: "worker", status: "online", statusText: "on task 1" });
    expect(Date.parse(presence?.lastSeen ?? "")).toBe(ctx.clock.now());
  });

  test("the actor of the write that claims a room is recorded; a refused write records nothing", async () => {
    const scope = newScope();
    await ctx.store.postEvent(
      { ...scope, actor: "first" },
      { type: "x", from: "first", to: "all", payload: {} },
    );
    expect((await ctx.store.getPresence(scope)).map((p) => p.agentId)).toEqual(["first"]);
    await expectRoomError(
      ctx.store.updateTask({ ...scope, actor: "ghost" }, { taskId: "task-9", status: "done" }),
      "not_found",
      /task-9/,
    );
    const other = { ...newScope(), roomId: scope.roomId };
    await expectRoomError(ctx.store.readPlan({ ...other, actor: "intruder" }), "denied", /access denied/);
    expect((await ctx.store.getPresence(scope)).map((p) => p.agentId)).toEqual(["first"]);
  });

  test("a read naming the actor records it on an owned room, and nothing on an unowned one", async () => {
    const scope = newScope();
    await ctx.store.readPlan({ ...scope, actor: "nobody" });
    expect(await ctx.store.getPresence(scope)).toEqual([]);
    await ctx.store.addTask(scope, newTask("t"));
    await ctx.store.readPlan({ ...scope, actor: "reader" });
    expect((await ctx.store.getPresence(scope)).map((p) => p.agentId)).toEqual(["reader"]);
  });
}
