/** Events: seq, readEvents paging, replies, read receipts; consumeEvents cursors (docs/protocol.md#cursors). */
import { expect, test } from "bun:test";
import type { RoomEvent } from "../../../src/protocol/records.ts";
import { iso } from "../../../src/protocol/time.ts";
import type { RoomScope, RoomStore } from "../../../src/store/types.ts";
import {
  allEvents,
  expectRefusedUnchanged,
  expectRoomError,
  newScope,
  newTask,
  notePayload,
  type Suite,
} from "./harness.ts";

async function post(store: RoomStore, scope: RoomScope, n: number, to = "all"): Promise<RoomEvent[]> {
  const out: RoomEvent[] = [];
  for (let i = 0; i < n; i++)
    out.push(await store.postEvent(scope, { type: "ping", from: "p", to, payload: { i } }));
  return out;
}

/** Consumes until an empty batch; returns every delivered seq in delivery order. */
async function drain(store: RoomStore, scope: RoomScope, agentId: string, limit: number): Promise<number[]> {
  const seqs: number[] = [];
  for (;;) {
    const batch = await store.consumeEvents(scope, agentId, limit);
    if (batch.count === 0) return seqs;
    seqs.push(...batch.events.map((e) => e.seq));
  }
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const seqs = (events: RoomEvent[]) => events.map((e) => e.seq);

export function eventTests(suite: Suite): void {
  test("postEvent returns the full event; seq starts at 1 and grows by exactly 1, auto events included", async () => {
    const scope = newScope();
    const now = suite.clock.now();
    const first = await suite.store.postEvent(scope, {
      type: "hello",
      from: "a",
      to: "b",
      payload: { x: [1, "2"] },
    });
    expect(first).toEqual({
      id: expect.any(String),
      seq: 1,
      type: "hello",
      from: "a",
      to: "b",
      payload: { x: [1, "2"] },
      timestamp: iso(now),
      read_by: [],
    });
    expect(first.reply_to_id).toBeUndefined();
    await suite.store.addTask(scope, newTask("t"));
    await suite.store.writeContext(scope, {
      type: "note",
      summary: "s",
      consuming_agents: ["b"],
      payload: notePayload(),
      author: "a",
    });
    await suite.store.setVar(scope, "k", "v", "a");
    await suite.store.postEvent(scope, { type: "bye", from: "a", to: "all", payload: {} });
    const events = await allEvents(suite.store, scope);
    expect(events.map((e) => [e.seq, e.type])).toEqual([
      [1, "hello"],
      [2, "task_added"],
      [3, "context_available"],
      [4, "shared_var_set"],
      [5, "bye"],
    ]);
    expect(new Set(events.map((e) => e.id)).size).toBe(5);
  });

  test("readEvents is newest first; sinceSeq, sinceMs, beforeSeq and limit filter before the limit", async () => {
    const scope = newScope();
    const times: number[] = [];
    for (let i = 1; i <= 10; i++) {
      times.push(suite.clock.advance(1000));
      await suite.store.postEvent(scope, { type: "e", from: "a", to: "all", payload: { i } });
    }
    const read = async (q: Parameters<RoomStore["readEvents"]>[1]) =>
      seqs(await suite.store.readEvents(scope, q));
    expect(await read({ limit: 100 })).toEqual(range(1, 10).reverse());
    expect(await read({ limit: 3 })).toEqual([10, 9, 8]);
    expect(await read({ sinceSeq: 7, limit: 100 })).toEqual([10, 9, 8]);
    expect(await read({ sinceSeq: 2, limit: 2 })).toEqual([10, 9]);
    expect(await read({ beforeSeq: 4, limit: 100 })).toEqual([3, 2, 1]);
    expect(await read({ beforeSeq: 8, limit: 2 })).toEqual([7, 6]);
    expect(await read({ sinceSeq: 2, beforeSeq: 6, limit: 100 })).toEqual([5, 4, 3]);
    expect(await read({ sinceMs: times[4] ?? 0, limit: 100 })).toEqual([10, 9, 8, 7, 6]);
    expect(await read({ sinceMs: (times[4] ?? 0) - 1, limit: 100 })).toEqual([10, 9, 8, 7, 6, 5]);
    expect(await read({ sinceMs: times[4] ?? 0, beforeSeq: 9, limit: 2 })).toEqual([8, 7]);
    expect(await read({ sinceSeq: 10, limit: 100 })).toEqual([]);
    expect(await read({ beforeSeq: 1, limit: 100 })).toEqual([]);
    expect(await suite.store.readEvents(newScope(), { limit: 100 })).toEqual([]);
  });

  test("paging back through a 250-event log with beforeSeq yields every event exactly once", async () => {
    const scope = newScope();
    await post(suite.store, scope, 250);
    const seen: number[] = [];
    let beforeSeq: number | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await suite.store.readEvents(
        scope,
        beforeSeq === undefined ? { limit: 100 } : { beforeSeq, limit: 100 },
      );
      if (page.length === 0) break;
      seen.push(...seqs(page));
      beforeSeq = page.at(-1)?.seq;
    }
    expect(seen).toEqual(range(1, 250).reverse());
  });

  test("readEvents never moves a cursor", async () => {
    const scope = newScope();
    await post(suite.store, scope, 3);
    await suite.store.readEvents(scope, { limit: 100 });
    await suite.store.readEvents(scope, { sinceSeq: 0, limit: 1 });
    const batch = await suite.store.consumeEvents(scope, "a", 100);
    expect(seqs(batch.events)).toEqual([1, 2, 3]);
  });

  test("replyToId: the reply carries reply_to_id; an unknown target is refused and appends nothing", async () => {
    const scope = newScope();
    const question = await suite.store.postEvent(scope, {
      type: "question",
      from: "a",
      to: "b",
      payload: {},
    });
    const reply = await suite.store.postEvent(scope, {
      type: "answer",
      from: "b",
      to: "a",
      payload: { ok: true },
      replyToId: question.id,
    });
    expect(reply).toMatchObject({ seq: 2, reply_to_id: question.id, type: "answer", from: "b", to: "a" });
    expect((await allEvents(suite.store, scope))[1]?.reply_to_id).toBe(question.id);
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () =>
        suite.store.postEvent(scope, { type: "answer", from: "b", to: "a", payload: {}, replyToId: "nope" }),
      "not_found",
      "Event not found: nope",
    );
    expect(
      (await suite.store.postEvent(scope, { type: "next", from: "a", to: "all", payload: {} })).seq,
    ).toBe(3);
  });

  test("markEventRead is idempotent and shows in read_by and getEventReads", async () => {
    const scope = newScope();
    const event = await suite.store.postEvent(scope, { type: "e", from: "a", to: "all", payload: {} });
    expect(await suite.store.getEventReads(scope, event.id)).toEqual([]);
    await suite.store.markEventRead(scope, event.id, "b");
    await suite.store.markEventRead(scope, event.id, "b");
    await suite.store.markEventRead(scope, event.id, "c");
    expect([...(await suite.store.getEventReads(scope, event.id))].sort()).toEqual(["b", "c"]);
    const [stored] = await allEvents(suite.store, scope);
    expect([...(stored?.read_by ?? [])].sort()).toEqual(["b", "c"]);
    expect(stored?.seq).toBe(1);
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.markEventRead(scope, "nope", "b"),
      "not_found",
      "Event not found: nope",
    );
    await expectRoomError(suite.store.getEventReads(scope, "nope"), "not_found", "Event not found: nope");
  });
}

export function consumeTests(suite: Suite): void {
  test("delivers oldest first; cursor null before the first, then the last delivered seq; count and remaining", async () => {
    const scope = newScope();
    expect(await suite.store.consumeEvents(scope, "a", 10)).toEqual({
      events: [],
      cursor: null,
      count: 0,
      remaining: 0,
    });
    const posted = await post(suite.store, scope, 5);
    const b1 = await suite.store.consumeEvents(scope, "a", 2);
    expect(b1.events).toEqual(posted.slice(0, 2));
    expect(b1).toMatchObject({ cursor: 2, count: 2, remaining: 3 });
    expect(await suite.store.consumeEvents(scope, "a", 2)).toMatchObject({
      cursor: 4,
      count: 2,
      remaining: 1,
    });
    const b3 = await suite.store.consumeEvents(scope, "a", 10);
    expect(b3).toMatchObject({ cursor: 5, count: 1, remaining: 0 });
    expect(seqs(b3.events)).toEqual([5]);
    expect(await suite.store.consumeEvents(scope, "a", 10)).toEqual({
      events: [],
      cursor: 5,
      count: 0,
      remaining: 0,
    });
    // Another agent has its own cursor.
    expect(seqs((await suite.store.consumeEvents(scope, "b", 10)).events)).toEqual([1, 2, 3, 4, 5]);
  });

  test("directed events reach only their addressee", async () => {
    const scope = newScope();
    for (const to of ["all", "b", "c", "all", "b"]) {
      await suite.store.postEvent(scope, { type: "e", from: "a", to, payload: {} });
    }
    const b = await suite.store.consumeEvents(scope, "b", 2);
    expect(b).toMatchObject({ cursor: 2, count: 2, remaining: 2 });
    expect(seqs(b.events)).toEqual([1, 2]);
    const c = await suite.store.consumeEvents(scope, "c", 100);
    expect(seqs(c.events)).toEqual([1, 3, 4]);
    expect(c).toMatchObject({ cursor: 4, count: 3, remaining: 0 });
    expect(seqs((await suite.store.consumeEvents(scope, "d", 100)).events)).toEqual([1, 4]);
    expect(seqs((await suite.store.consumeEvents(scope, "b", 100)).events)).toEqual([4, 5]);
  });

  test("a 600-event backlog consumed 100 at a time is delivered exactly once", async () => {
    const scope = newScope();
    await post(suite.store, scope, 600);
    const remaining: number[] = [];
    const delivered: number[] = [];
    for (let i = 0; i < 7; i++) {
      const batch = await suite.store.consumeEvents(scope, "a", 100);
      if (batch.count === 0) break;
      expect(batch.count).toBe(batch.events.length);
      expect(batch.cursor).toBe(batch.events.at(-1)?.seq ?? null);
      remaining.push(batch.remaining);
      delivered.push(...seqs(batch.events));
    }
    expect(remaining).toEqual([500, 400, 300, 200, 100, 0]);
    expect(delivered).toEqual(range(1, 600));
  });

  test("events with identical timestamps are all delivered", async () => {
    const scope = newScope();
    const frozen = suite.clock.now();
    await post(suite.store, scope, 3);
    expect(seqs((await suite.store.consumeEvents(scope, "a", 100)).events)).toEqual([1, 2, 3]);
    await post(suite.store, scope, 40);
    expect(suite.clock.now()).toBe(frozen);
    expect(await drain(suite.store, scope, "a", 7)).toEqual(range(4, 43));
    expect(await drain(suite.store, scope, "b", 1)).toEqual(range(1, 43));
    const events = await allEvents(suite.store, scope);
    expect(new Set(events.map((e) => e.timestamp))).toEqual(new Set([iso(frozen)]));
  });
}
