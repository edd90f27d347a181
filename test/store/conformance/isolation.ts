/**
 * Isolation and fidelity: rooms never leak into each other (even when one id prefixes another), user-chosen
 * names with separators or braces stay apart, and JSON payloads come back exactly as written.
 */
import { expect, test } from "bun:test";
import type { RoomScope, RoomStore } from "../../../src/store/types.ts";
import { allEvents, newScope, newTask, type Suite, snapshot } from "./harness.ts";

/** Writes one of everything into a room, labelled so a leak shows which room it came from. */
async function populate(store: RoomStore, scope: RoomScope, label: string): Promise<void> {
  await store.addTask(scope, newTask(`task ${label}`));
  await store.writeContext(scope, {
    type: "note",
    summary: label,
    consuming_agents: ["b"],
    payload: { text: label },
    author: "a",
  });
  await store.setVar(scope, "k", label, "a");
  await store.acquireLock(scope, "r", `holder-${label}`, 60_000);
  await store.heartbeat(scope, `agent-${label}`, label);
  await store.postEvent(scope, { type: "e", from: "a", to: "b", payload: { label } });
}

/** Values JSON round-trips exactly but a lossy encoder (e.g. Lua cjson's 14 digits, {} for []) would not. */
const trickyPayload = {
  emptyArray: [],
  emptyObject: {},
  nested: { list: [[], [{}], [null]], deep: { a: { b: { c: [1, 2, 3] } } } },
  float: 0.1 + 0.2,
  big: 2 ** 53 - 1,
  negative: -1.5e-7,
  zero: 0,
  bool: [true, false],
  nil: null,
  text: 'quotes " \\ / slashes\nnewline \t tab é ✓ 日本 😀',
  numericString: "8080",
};

export function isolationTests(suite: Suite): void {
  test("rooms are isolated, even when one room id is a prefix of another", async () => {
    const base = newScope();
    const ids = [base.roomId, `${base.roomId}-2`, `${base.roomId}_`, `${base.roomId}2`];
    const scopes = ids.map((roomId) => ({ roomId, teamId: base.teamId }));
    for (const [i, scope] of scopes.entries())
      await populate(i % 2 ? suite.second : suite.store, scope, `L${i}`);
    for (const [i, scope] of scopes.entries()) {
      const snap = await snapshot(suite.store, scope);
      expect(snap.plan.tasks.map((t) => t.title)).toEqual([`task L${i}`]);
      expect(snap.context.map((c) => c.summary)).toEqual([`L${i}`]);
      expect(snap.vars).toEqual({ k: `L${i}` });
      expect(snap.locks.map((l) => l.owner)).toEqual([`holder-L${i}`]);
      expect(snap.presence.map((p) => p.agentId)).toEqual([`agent-L${i}`]);
      expect(snap.events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
      const batch = await suite.store.consumeEvents(scope, "b", 100);
      expect(batch.events.map((e) => e.payload)).toEqual([
        { task: snap.plan.tasks[0] },
        { contextId: snap.context[0]?.id, contextType: "note", summary: `L${i}`, consuming_agents: ["b"] },
        { key: "k" },
        { label: `L${i}` },
      ]);
    }
  });

  test("keys, resources and agent ids with separators and braces are kept apart and verbatim", async () => {
    const scope = newScope();
    const names = ["a:b", "a", "a:b:c", "{a}", "a}", "room:{x}:vars", "a b", "ключ", "*", "plan:x"];
    for (const [i, name] of names.entries()) await suite.store.setVar(scope, name, `v${i}`, `agent.${i}:x`);
    expect(await suite.store.listVars(scope)).toEqual(Object.fromEntries(names.map((n, i) => [n, `v${i}`])));
    for (const [i, name] of names.entries()) {
      expect(await suite.store.acquireLock(scope, name, `agent.${i}:x`, 60_000)).toMatchObject({
        acquired: true,
      });
    }
    const locks = await suite.store.listLocks(scope);
    expect(new Map(locks.map((l) => [l.resource, l.owner]))).toEqual(
      new Map(names.map((n, i) => [n, `agent.${i}:x`])),
    );
    // "plan:x" is not the plan lock: anyone may still write the plan.
    expect((await suite.store.addTask(scope, newTask("t", { agentId: "other" }))).version).toBe(1);
    for (const [i, name] of names.entries()) await suite.store.heartbeat(scope, name, `s${i}`);
    const presence = await suite.store.getPresence(scope);
    expect(new Map(presence.map((p) => [p.agentId, p.statusText]))).toEqual(
      new Map(names.map((n, i) => [n, `s${i}`])),
    );
  });

  test("JSON payloads and text fields round-trip exactly", async () => {
    const scope = newScope();
    const event = await suite.store.postEvent(scope, {
      type: "t",
      from: "a",
      to: "all",
      payload: trickyPayload,
    });
    expect(event.payload).toEqual(trickyPayload);
    expect((await allEvents(suite.store, scope))[0]?.payload).toEqual(trickyPayload);
    expect((await suite.store.consumeEvents(scope, "a", 10)).events[0]?.payload).toEqual(trickyPayload);

    const big = { text: "é✓".repeat(10_000), references: ["x"] };
    const entry = await suite.store.writeContext(scope, {
      type: "note",
      summary: trickyPayload.text,
      consuming_agents: [],
      payload: { ...big, extra: trickyPayload },
      author: "a",
    });
    expect(await suite.store.readContext(scope, entry.id)).toEqual(entry);
    expect(entry.payload).toEqual({ ...big, extra: trickyPayload });
    await suite.store.updateContext(scope, {
      id: entry.id,
      author: "b",
      payload: { text: "new", extra: trickyPayload },
    });
    expect((await suite.store.contextHistory(scope, entry.id))[0]?.payload).toEqual({
      ...big,
      extra: trickyPayload,
    });
    expect((await suite.store.readContext(scope, entry.id)).payload).toEqual({
      text: "new",
      extra: trickyPayload,
    });

    const first = await suite.store.addTask(scope, newTask("first"));
    const task = await suite.store.addTask(
      scope,
      newTask(trickyPayload.text, {
        description: trickyPayload.text,
        priority: 2 ** 31 - 1,
        depends_on: [first.id],
      }),
    );
    expect(await suite.store.getTask(scope, task.id)).toEqual(task);
    expect(task).toMatchObject({ title: trickyPayload.text, priority: 2 ** 31 - 1, depends_on: [first.id] });
  });
}
