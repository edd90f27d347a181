/**
 * Event retention (move-types.ts EventRetention): each append trims the room's oldest events in its own atomic
 * step, boundedly; cursors behind the trimmed range carry on from the oldest kept event, exactly once, with
 * `remaining` exact; reads say trimmedBefore; what belongs to a trimmed event (search document, queued webhook
 * delivery, mailbox entry, read receipts) goes with it; forks of a trimmed room copy it at its head.
 */
import { afterAll, expect, test } from "bun:test";
import type { RoomEvent } from "../../../src/protocol/records.ts";
import { iso } from "../../../src/protocol/time.ts";
import {
  type EventRetention,
  TRIM_INDEXED_PER_APPEND,
  TRIM_PER_APPEND,
} from "../../../src/store/move-types.ts";
import type { RoomScope, RoomStore } from "../../../src/store/types.ts";
import { agentOffer, allEvents, expectRoomError, newScope, newTask, type Suite } from "./harness.ts";

const DAY = 86_400_000;

export function retentionTests(suite: Suite): void {
  const opened: RoomStore[] = [];
  afterAll(async () => {
    await Promise.all(opened.map((store) => store.close()));
  });
  /** A store on the suite's backing that applies `retention`. */
  const retaining = async (retention: Partial<EventRetention>) => {
    const store = await suite.factory.open(suite.clock.now, {
      retention: { maxEvents: 0, maxAgeMs: 0, ...retention },
    });
    opened.push(store);
    return store;
  };
  const post = (store: RoomStore, scope: RoomScope, to = "all", type = "note", text = "plain words") =>
    store.postEvent(scope, { type, from: "alice", to, payload: { text } });
  const seqs = (events: RoomEvent[]) => events.map((e) => e.seq);
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

  test("EVENT_RETENTION_MAX keeps the newest events; reads below them say trimmedBefore", async () => {
    const store = await retaining({ maxEvents: 5 });
    const scope = newScope();
    for (let i = 0; i < 12; i++) await post(store, scope);
    expect(seqs(await allEvents(store, scope))).toEqual(range(8, 12));
    const all = await store.readEvents(scope, { limit: 100 });
    expect(all.trimmedBefore).toBe(8);
    expect((await store.readEvents(scope, { sinceSeq: 3, limit: 100 })).trimmedBefore).toBe(8);
    // A range that starts at the oldest kept event (or later) reaches nothing trimmed.
    const later = await store.readEvents(scope, { sinceSeq: 7, limit: 100 });
    expect(later.trimmedBefore).toBeUndefined();
    expect(seqs(later)).toEqual([12, 11, 10, 9, 8]);
    // Watchers asking for an older `after` carry on from the oldest kept event.
    const log = await store.readLog(scope, 2, 100);
    expect({ seqs: seqs(log.events), head: log.head }).toEqual({ seqs: range(8, 12), head: 12 });
    // The same store without retention reads the same; nothing comes back.
    expect((await suite.store.readEvents(scope, { limit: 100 })).trimmedBefore).toBe(8);
    // Trimmed events are gone for every operation that names one.
    await expectRoomError(store.markEventRead(scope, "evt-3", "bob"), "not_found", "Event not found: evt-3");
    await expectRoomError(
      store.deleteEvent(scope, { eventId: "evt-3", by: "alice" }),
      "not_found",
      "Event not found: evt-3",
    );
  });

  test("a cursor behind the trimmed range gets the oldest kept events next, exactly once, remaining exact", async () => {
    const store = await retaining({ maxEvents: 6 });
    const scope = newScope();
    await post(store, scope, "bob");
    await post(store, scope, "all");
    expect((await store.consumeEvents(scope, "bob", 1)).cursor).toBe(1);
    const recipients = [
      "all",
      "bob",
      "carol",
      "bob",
      "carol",
      "all",
      "bob",
      "carol",
      "all",
      "bob",
      "bob",
      "carol",
    ];
    for (const to of recipients) await post(store, scope, to);
    // 14 events; the newest 6 (9..14) are kept.
    const kept = await allEvents(store, scope);
    expect(seqs(kept)).toEqual(range(9, 14));
    const forBob = kept.filter((e) => e.to === "all" || e.to === "bob").map((e) => e.seq);
    const delivered: number[] = [];
    let first = true;
    for (;;) {
      const batch = await store.consumeEvents(scope, "bob", 2);
      if (batch.count === 0) {
        expect(batch.remaining).toBe(0);
        expect(batch.trimmedBefore).toBeUndefined();
        break;
      }
      if (first) expect(batch.trimmedBefore).toBe(9);
      else expect(batch.trimmedBefore).toBeUndefined();
      first = false;
      delivered.push(...seqs(batch.events));
      expect(batch.remaining).toBe(forBob.filter((s) => s > (batch.cursor ?? 0)).length);
    }
    expect(delivered).toEqual(forBob);
    // An agent that never read anything starts at the oldest kept event too.
    const carol = await store.consumeEvents(scope, "carol", 100);
    expect(carol.trimmedBefore).toBe(9);
    expect(seqs(carol.events)).toEqual(kept.filter((e) => e.to !== "bob").map((e) => e.seq));
    expect(carol.remaining).toBe(0);
    // A consume that delivers nothing from behind the range still counts exactly.
    const scope2 = newScope();
    for (let i = 0; i < 9; i++) await post(store, scope2, i < 8 ? "dave" : "erin");
    const nothing = await store.consumeEvents(scope2, "zed", 0);
    expect({ remaining: nothing.remaining, trimmedBefore: nothing.trimmedBefore }).toEqual({
      remaining: 0,
      trimmedBefore: 4,
    });
    const dave = await store.consumeEvents(scope2, "dave", 0);
    expect(dave.remaining).toBe(5);
  });

  test("get_my_summary's unread and the bridge's digest count only kept events", async () => {
    const store = await retaining({ maxEvents: 4 });
    const scope = newScope();
    for (let i = 0; i < 10; i++) await post(store, scope, i % 2 === 0 ? "all" : "bob");
    const digest = await store.bridge(scope, { agentId: "bob", hook: "SessionStart" });
    expect(digest.digest?.unread).toBe(4);
    const summary = await store.summary(scope, "bob", 2);
    expect(summary.unreadEvents.trimmedBefore).toBe(7);
    expect(seqs(summary.unreadEvents.events)).toEqual([7, 8]);
    expect(summary.unreadEvents.remaining).toBe(2);
    const next = await store.summary(scope, "bob", 10);
    expect(next.unreadEvents.trimmedBefore).toBeUndefined();
    // The summary's own heartbeat appends nothing; the log is still 7..10.
    expect(seqs(next.unreadEvents.events)).toEqual([9, 10]);
  });

  test("EVENT_RETENTION_DAYS trims by age, at most 100 events per append", async () => {
    // Events nobody posted (shared_var_set): not searchable, so only the 100-per-append bound applies.
    const append = (store: RoomStore, scope: RoomScope) => store.setVar(scope, "k", "v", "alice");
    const scope = newScope();
    for (let i = 0; i < 2 * TRIM_PER_APPEND + 50; i++) await append(suite.store, scope);
    suite.clock.advance(2 * DAY);
    const store = await retaining({ maxAgeMs: DAY });
    await append(store, scope);
    const after = await store.readEvents(scope, { limit: 1 });
    expect({ head: after[0]?.seq, trimmedBefore: after.trimmedBefore }).toEqual({
      head: 2 * TRIM_PER_APPEND + 51,
      trimmedBefore: TRIM_PER_APPEND + 1,
    });
    await append(store, scope);
    expect((await store.readEvents(scope, { limit: 1 })).trimmedBefore).toBe(2 * TRIM_PER_APPEND + 1);
    await append(store, scope);
    // The old ones are all gone; the three recent ones stay.
    const kept = await allEvents(store, scope);
    expect(seqs(kept)).toEqual(range(2 * TRIM_PER_APPEND + 51, 2 * TRIM_PER_APPEND + 53));
    expect(kept.every((e) => Date.parse(e.timestamp) >= suite.clock.now() - DAY)).toBe(true);
  });

  test("searchable events cost more to trim: at most 10 of them per append", async () => {
    const scope = newScope();
    for (let i = 0; i < 3 * TRIM_INDEXED_PER_APPEND; i++)
      await post(suite.store, scope, "all", "note", "zebra");
    suite.clock.advance(2 * DAY);
    const store = await retaining({ maxAgeMs: DAY });
    await store.addTask(scope, newTask("append something"));
    expect((await store.readEvents(scope, { limit: 1 })).trimmedBefore).toBe(TRIM_INDEXED_PER_APPEND + 1);
  });

  test("the search index drops trimmed posted events", async () => {
    const store = await retaining({ maxEvents: 3 });
    const scope = newScope();
    await post(store, scope, "all", "note", "zebra one");
    await post(store, scope, "all", "note", "zebra two");
    await post(store, scope, "all", "note", "giraffe");
    await post(store, scope, "all", "note", "zebra three");
    await post(store, scope, "all", "note", "okapi");
    const hits = await store.search(scope, { terms: ["zebra"], types: ["event"], limit: 10 });
    expect(hits.map((h) => h.id)).toEqual(["evt-4"]);
    expect(await store.search(scope, { terms: ["two"], types: ["event"], limit: 10 })).toEqual([]);
    const giraffe = await store.search(scope, { terms: ["giraffe"], types: ["event"], limit: 10 });
    expect(giraffe.map((h) => h.id)).toEqual(["evt-3"]);
  });

  test("queued webhook deliveries of trimmed events are never delivered", async () => {
    const store = await retaining({ maxEvents: 2 });
    const scope = newScope();
    await store.addTask(scope, newTask("claim"));
    const hook = {
      webhookId: `wh_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`,
      url: "https://hooks.example.com/r",
      types: [],
      createdAt: iso(suite.clock.now()),
    };
    await store.createWebhook(scope, hook, 10);
    for (let i = 0; i < 6; i++) await post(store, scope);
    const batch = await store.claimDeliveries(scope.roomId, { limit: 50, leaseMs: 30_000 });
    expect(batch.deliveries.map((d) => d.event.seq).sort((a, b) => a - b)).toEqual([6, 7]);
  });

  test("read receipts, messages and steers go with their events; marks stay exact", async () => {
    const store = await retaining({ maxEvents: 3 });
    const scope = newScope();
    const first = await post(store, scope, "bob");
    await store.markEventRead(scope, first.id, "bob");
    await store.postEvent(scope, {
      type: "human_message",
      from: "human:ann",
      to: "bob",
      payload: { text: "old" },
    });
    for (let i = 0; i < 3; i++) await post(store, scope);
    await store.postEvent(scope, {
      type: "human_message",
      from: "human:ann",
      to: "bob",
      payload: { text: "new" },
    });
    const summary = await store.summary(scope, "bob", 10);
    expect(summary.messages.map((m) => m.text)).toEqual(["new"]);
    expect(seqs(summary.unreadEvents.events)).toEqual([4, 5, 6]);
  });

  test("a fork of a trimmed room copies it at its head; before the head it is refused", async () => {
    const store = await retaining({ maxEvents: 4 });
    const scope = newScope();
    const a = await store.addTask(scope, newTask("first"));
    const b = await store.addTask(scope, newTask("second", { depends_on: [a.id] }));
    await store.updateTask(scope, { taskId: a.id, status: "done", agentId: "alice" });
    await store.writeContext(scope, {
      type: "note",
      summary: "a note",
      consuming_agents: ["bob"],
      payload: { text: "n" },
      author: "alice",
    });
    for (let i = 0; i < 5; i++) await post(store, scope);
    const head = (await store.readLog(scope, 0, 1)).head;
    await expectRoomError(
      store.forkRoom(scope, { newRoomId: `${scope.roomId}-f1`, atSeq: head - 1, by: "human:ann" }),
      "invalid",
      `Invalid arguments: atSeq: the room's events before seq ${head - 3} were trimmed by retention, so it can only be forked at its head (seq ${head}), not at ${head - 1}`,
    );
    const fork = { ...scope, roomId: `${scope.roomId}-f2` };
    await store.forkRoom(scope, { newRoomId: fork.roomId, by: "human:ann" });
    const [source, copy] = await Promise.all([store.readPlan(scope), store.readPlan(fork)]);
    expect(copy.tasks).toEqual(source.tasks);
    expect(copy.tasks.map((t) => t.id)).toEqual([a.id, b.id]);
    expect((await store.listContext(fork, {})).map((e) => e.id)).toEqual(["ctx-1"]);
    // The fork keeps the kept events and appends room_forked, which trims one more (4 kept).
    const events = await store.readEvents(fork, { limit: 100 });
    expect(events.trimmedBefore).toBe(head - 2);
    expect(seqs(events)).toEqual([head + 1, head, head - 1, head - 2]);
    expect(events[0]?.type).toBe("room_forked");
    // New ids continue after the source's.
    expect((await store.addTask(fork, newTask("third"))).id).toBe("task-3");
  });

  test("a fork of a trimmed room holds its people's records as they are and releases its holdings", async () => {
    const store = await retaining({ maxEvents: 3 });
    const scope = newScope();
    await store.addTask(scope, newTask("build"));
    await store.claimTask(
      { ...scope, actor: "alice" },
      { taskId: "task-1", agentId: "alice", leaseMs: 60_000 },
    );
    const approval = await store.requestApproval(scope, {
      requestedBy: "bot",
      action: "deploy",
      details: { env: "prod" },
      expiresInMs: 3_600_000,
    });
    await store.offerHandoff(scope, agentOffer("alice", "bob", ["task-1"]));
    await store.recordVerdict(scope, { by: "r", verdict: "pass", summary: "ok", details: "", ref: null });
    const wheel = await store.takeDriver(scope, { holder: "human:ann", kind: "human" });
    for (let i = 0; i < 4; i++) await post(store, scope);
    // The events that made those records are trimmed: the fork takes the records themselves.
    expect((await store.readEvents(scope, { limit: 100 })).trimmedBefore).toBeGreaterThan(6);
    const fork = { ...scope, roomId: `${scope.roomId}-f` };
    await store.forkRoom(scope, { newRoomId: fork.roomId, by: "human:ann" });
    expect(await store.listApprovals(fork)).toEqual([approval]);
    expect(await store.listHandoffs(fork)).toEqual(await store.listHandoffs(scope));
    expect(await store.listVerdicts(fork)).toEqual(await store.listVerdicts(scope));
    expect(await store.getTask(fork, "task-1")).toMatchObject({ status: "pending", owner: null });
    expect(await store.getDriver(fork)).toMatchObject({ holder: null, epoch: wheel.epoch + 1 });
    const next = await store.requestApproval(fork, {
      requestedBy: "bot",
      action: "x",
      details: {},
      expiresInMs: 60_000,
    });
    expect(next.id).toBe("apr-2");
  });

  test("without retention nothing is trimmed", async () => {
    const scope = newScope();
    for (let i = 0; i < 30; i++) await post(suite.store, scope);
    suite.clock.advance(20 * DAY);
    await post(suite.store, scope);
    const events = await suite.store.readEvents(scope, { limit: 100 });
    expect(events.length).toBe(31);
    expect(events.trimmedBefore).toBeUndefined();
  });
}
