/**
 * Webhooks (types.ts WebhookStore): registration by the room's owner only, the outbox filled in the append's own
 * step, claims leased to one caller at a time (a lease that runs out makes the delivery claimable again, and the
 * stale claim can no longer record), the rules of recorded attempts (retry, drop, 20 drops or 410 → disabled and a
 * webhook_disabled event), the delivery log's newest 100, and the list of rooms a worker looks at.
 */
import { expect, test } from "bun:test";
import { ACCESS_DENIED } from "../../../src/protocol/errors.ts";
import { iso } from "../../../src/protocol/time.ts";
import { WEBHOOK_LIMITS } from "../../../src/protocol/webhooks.ts";
import type {
  ClaimedDelivery,
  DeliveryReport,
  NewWebhook,
  RoomScope,
  RoomStore,
} from "../../../src/store/types.ts";
import {
  allEvents,
  claimedRoom,
  expectRoomError,
  newScope,
  newTask,
  newTeam,
  type Suite,
  settle,
} from "./harness.ts";

const LEASE = WEBHOOK_LIMITS.leaseMs;
const ID_CHARS = "0123456789abcdefghijklmnopqrstuvwxyz";
const webhookId = () =>
  `wh_${Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => ID_CHARS[b % 36]).join("")}`;

function newHook(suite: Suite, extra: Partial<NewWebhook> = {}): NewWebhook {
  return {
    webhookId: webhookId(),
    url: "https://hooks.example.com/roomd?team=1",
    types: [],
    createdAt: iso(suite.clock.now()),
    ...extra,
  };
}

const post = (store: RoomStore, scope: RoomScope, type = "note") =>
  store.postEvent(scope, { type, from: "alice", to: "all", payload: { n: 1 } });

const claim = (store: RoomStore, scope: RoomScope, limit = 50) =>
  store.claimDeliveries(scope.roomId, { limit, leaseMs: LEASE });

function report(
  suite: Suite,
  outcome: DeliveryReport["outcome"],
  retryInMs: number | null = null,
): DeliveryReport {
  return {
    outcome,
    retryInMs,
    ...(outcome === "delivered" ? { httpStatus: 204 } : { httpStatus: outcome === "gone" ? 410 : 500 }),
    ...(outcome === "delivered" ? {} : { error: outcome === "gone" ? "HTTP 410 Gone" : "HTTP 500" }),
    durationMs: 12,
    at: iso(suite.clock.now()),
  };
}

/** Claims the room's due deliveries and records each one with `outcome`. */
async function attemptAll(suite: Suite, scope: RoomScope, outcome: DeliveryReport["outcome"]) {
  const batch = await claim(suite.store, scope);
  for (const d of batch.deliveries) {
    expect((await suite.store.recordDelivery(d, report(suite, outcome))).recorded).toBe(true);
  }
  return batch.deliveries;
}

export function webhookTests(suite: Suite): void {
  test("register, list oldest first, delete: the owner's team only, and no record holds a secret", async () => {
    const scope = await claimedRoom(suite.store);
    const a = newHook(suite, { types: ["task_added", "note"], description: "CI" });
    const b = newHook(suite);
    const created = await suite.store.createWebhook(scope, a, 10);
    expect(created).toEqual({
      webhookId: a.webhookId,
      roomId: scope.roomId,
      url: a.url,
      types: ["task_added", "note"],
      description: "CI",
      createdAt: a.createdAt,
      status: "active",
      consecutiveFailures: 0,
    });
    await suite.second.createWebhook(scope, b, 10);
    const listed = await suite.store.listWebhooks(scope);
    expect(listed.map((w) => w.webhookId)).toEqual([a.webhookId, b.webhookId]);
    expect(listed[0]).toEqual(created);
    expect(Object.keys(listed[1] ?? {}).sort()).toEqual(
      ["consecutiveFailures", "createdAt", "roomId", "status", "types", "url", "webhookId"].sort(),
    );
    expect(await suite.store.deleteWebhook(scope, a.webhookId)).toBe(true);
    expect(await suite.store.deleteWebhook(scope, a.webhookId)).toBe(false);
    expect((await suite.second.listWebhooks(scope)).map((w) => w.webhookId)).toEqual([b.webhookId]);
  });

  test("another team's room and an unowned room are denied like missing ones; nothing is registered", async () => {
    const scope = await claimedRoom(suite.store);
    const other = { roomId: scope.roomId, teamId: newTeam() };
    const hook = newHook(suite);
    await expectRoomError(suite.store.createWebhook(other, hook, 10), "denied", ACCESS_DENIED);
    await expectRoomError(suite.store.listWebhooks(other), "denied", ACCESS_DENIED);
    await expectRoomError(suite.store.deleteWebhook(other, hook.webhookId), "denied", ACCESS_DENIED);
    await expectRoomError(suite.store.webhookDeliveries(other, hook.webhookId), "denied", ACCESS_DENIED);
    const test = {
      eventSeq: 0,
      attempt: 1,
      outcome: "delivered" as const,
      durationMs: 1,
      at: hook.createdAt,
    };
    await expectRoomError(suite.store.logTestDelivery(other, hook.webhookId, test), "denied", ACCESS_DENIED);
    const unowned = newScope();
    await expectRoomError(suite.store.createWebhook(unowned, hook, 10), "denied", ACCESS_DENIED);
    // Registration never claims: the room is still free for anyone.
    expect((await suite.store.createRoom({ ...unowned, teamId: newTeam() })).created).toBe(true);
    expect(await suite.store.listWebhooks(scope)).toEqual([]);
    await post(suite.store, scope);
    expect((await claim(suite.store, scope)).deliveries).toEqual([]);
  });

  test("at most maxPerRoom webhooks, also when 8 registrations race on two instances", async () => {
    const scope = await claimedRoom(suite.store);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        settle((i % 2 === 0 ? suite.store : suite.second).createWebhook(scope, newHook(suite), 3)),
      ),
    );
    expect(results.filter((r) => r === "limit")).toHaveLength(5);
    expect(await suite.store.listWebhooks(scope)).toHaveLength(3);
    await expectRoomError(
      suite.store.createWebhook(scope, newHook(suite), 3),
      "limit",
      "Webhook limit reached: a room may have at most 3 webhooks (WEBHOOKS_PER_ROOM); delete one first",
    );
  });

  test("every append queues one delivery per active webhook whose types match, due at once", async () => {
    const scope = await claimedRoom(suite.store);
    const all = await suite.store.createWebhook(scope, newHook(suite), 10);
    const notes = await suite.store.createWebhook(scope, newHook(suite, { types: ["note"] }), 10);
    await suite.store.createWebhook(scope, newHook(suite, { types: ["build failed", "deploy"] }), 10);
    const event = await post(suite.store, scope, "note");
    await suite.second.addTask(scope, newTask("t")); // task_added: only the webhook for every type
    await post(suite.store, scope, "build"); // a prefix of "build failed" is no match
    const t = suite.clock.now();
    const batch = await claim(suite.second, scope);
    expect(batch.hasWebhooks).toBe(true);
    const got = batch.deliveries.map((d) => `${d.event.seq} ${d.webhookId} ${d.attempt}`).sort();
    expect(got).toEqual(
      [
        `1 ${all.webhookId} 1`,
        `1 ${notes.webhookId} 1`,
        `2 ${all.webhookId} 1`,
        `3 ${all.webhookId} 1`,
      ].sort(),
    );
    const first = batch.deliveries.find((d) => d.event.seq === 1 && d.webhookId === all.webhookId);
    expect(first).toEqual({
      roomId: scope.roomId,
      webhookId: all.webhookId,
      url: all.url,
      event,
      attempt: 1,
      lease: t + LEASE,
    });
    expect(batch.nextDueMs).toBe(t + LEASE);
  });

  test("a refused append queues nothing; a room without webhooks says so", async () => {
    const scope = await claimedRoom(suite.store);
    expect(await claim(suite.store, scope)).toEqual({ deliveries: [], nextDueMs: null, hasWebhooks: false });
    await suite.store.createWebhook(scope, newHook(suite), 10);
    const reply = suite.store.postEvent(scope, {
      type: "note",
      from: "a",
      to: "all",
      payload: {},
      replyToId: "evt-99",
    });
    await expectRoomError(reply, "not_found", "Event not found: evt-99");
    expect(await claim(suite.store, scope)).toEqual({ deliveries: [], nextDueMs: null, hasWebhooks: true });
    expect(await suite.second.webhookRooms()).toContain(scope.roomId);
  });

  test("a claim is one caller's until its lease runs out; then another claims it and the stale claim cannot record", async () => {
    const scope = await claimedRoom(suite.store);
    await suite.store.createWebhook(scope, newHook(suite), 10);
    await post(suite.store, scope);
    const [mine] = (await claim(suite.store, scope)).deliveries;
    expect(mine?.attempt).toBe(1);
    const meanwhile = await claim(suite.second, scope);
    expect(meanwhile.deliveries).toEqual([]);
    expect(meanwhile.nextDueMs).toBe(mine?.lease ?? 0);
    // The claimer dies: once the lease runs out the delivery is claimable again, as the same attempt.
    suite.clock.advance(LEASE);
    const [theirs] = (await claim(suite.second, scope)).deliveries;
    expect(theirs).toMatchObject({
      webhookId: mine?.webhookId,
      attempt: 1,
      lease: suite.clock.now() + LEASE,
    });
    expect(await suite.store.recordDelivery(mine as ClaimedDelivery, report(suite, "delivered"))).toEqual({
      recorded: false,
    });
    expect(await suite.second.recordDelivery(theirs as ClaimedDelivery, report(suite, "delivered"))).toEqual({
      recorded: true,
      logged: "delivered",
      disabled: false,
    });
    expect(await claim(suite.store, scope)).toEqual({ deliveries: [], nextDueMs: null, hasWebhooks: true });
  });

  test("12 callers on two instances claiming 30 deliveries at once: each delivery goes to exactly one", async () => {
    const scope = await claimedRoom(suite.store);
    await suite.store.createWebhook(scope, newHook(suite), 10);
    await suite.store.createWebhook(scope, newHook(suite), 10);
    for (let i = 0; i < 15; i++) await post(i % 2 ? suite.store : suite.second, scope);
    const batches = await Promise.all(
      Array.from({ length: 12 }, (_, i) => claim(i % 2 ? suite.store : suite.second, scope, 4)),
    );
    const claimed = batches.flatMap((b) => b.deliveries.map((d) => `${d.event.seq} ${d.webhookId}`));
    expect(claimed).toHaveLength(30);
    expect(new Set(claimed).size).toBe(30);
  });

  test("delivered: done, logged, lastDeliveryAt set and the failure count reset", async () => {
    const scope = await claimedRoom(suite.store);
    const hook = await suite.store.createWebhook(scope, newHook(suite), 10);
    await post(suite.store, scope);
    const at = iso(suite.clock.now());
    await attemptAll(suite, scope, "delivered");
    const [listed] = await suite.store.listWebhooks(scope);
    expect(listed).toMatchObject({ status: "active", consecutiveFailures: 0, lastDeliveryAt: at });
    expect(await suite.second.webhookDeliveries(scope, hook.webhookId)).toEqual([
      { eventSeq: 1, attempt: 1, outcome: "delivered", httpStatus: 204, durationMs: 12, at },
    ]);
    expect((await claim(suite.store, scope)).deliveries).toEqual([]);
  });

  test("failed with a retry: attempt 2 due after the delay; the last failure drops the event and counts it", async () => {
    const scope = await claimedRoom(suite.store);
    const hook = await suite.store.createWebhook(scope, newHook(suite), 10);
    await post(suite.store, scope);
    const [first] = (await claim(suite.store, scope)).deliveries;
    const recorded = await suite.store.recordDelivery(
      first as ClaimedDelivery,
      report(suite, "failed", 5_000),
    );
    expect(recorded).toEqual({ recorded: true, logged: "failed", disabled: false });
    const waiting = await claim(suite.second, scope);
    expect(waiting.deliveries).toEqual([]);
    expect(waiting.nextDueMs).toBe(suite.clock.now() + 5_000);
    suite.clock.advance(4_999);
    expect((await claim(suite.second, scope)).deliveries).toEqual([]);
    suite.clock.advance(1);
    const [second] = (await claim(suite.second, scope)).deliveries;
    expect(second).toMatchObject({ attempt: 2, event: first?.event });
    expect(
      await suite.second.recordDelivery(second as ClaimedDelivery, report(suite, "failed", null)),
    ).toEqual({
      recorded: true,
      logged: "dropped",
      disabled: false,
    });
    expect((await claim(suite.store, scope)).nextDueMs).toBeNull();
    const [listed] = await suite.store.listWebhooks(scope);
    expect(listed).toMatchObject({ status: "active", consecutiveFailures: 1 });
    expect(listed).not.toHaveProperty("lastDeliveryAt");
    const log = await suite.store.webhookDeliveries(scope, hook.webhookId);
    expect(log?.map((a) => [a.eventSeq, a.attempt, a.outcome, a.httpStatus, a.error])).toEqual([
      [1, 2, "dropped", 500, "HTTP 500"],
      [1, 1, "failed", 500, "HTTP 500"],
    ]);
  });

  test("20 events dropped in a row disable the webhook and append webhook_disabled, which the others get; a delivery resets the count", async () => {
    const scope = await claimedRoom(suite.store);
    const flaky = await suite.store.createWebhook(scope, newHook(suite, { types: ["note"] }), 10);
    const watcher = await suite.store.createWebhook(
      scope,
      newHook(suite, { types: ["webhook_disabled"] }),
      10,
    );
    const limit = WEBHOOK_LIMITS.disableAfterDropped;
    for (let i = 0; i < limit - 1; i++) {
      await post(suite.store, scope);
      await attemptAll(suite, scope, "failed");
    }
    expect((await suite.store.listWebhooks(scope))[0]?.consecutiveFailures).toBe(limit - 1);
    await post(suite.store, scope);
    await attemptAll(suite, scope, "delivered");
    expect((await suite.store.listWebhooks(scope))[0]?.consecutiveFailures).toBe(0);
    for (let i = 0; i < limit - 1; i++) {
      await post(suite.store, scope);
      await attemptAll(suite, scope, "failed");
    }
    await post(suite.store, scope);
    const [last] = (await claim(suite.second, scope)).deliveries;
    expect(await suite.second.recordDelivery(last as ClaimedDelivery, report(suite, "failed"))).toEqual({
      recorded: true,
      logged: "dropped",
      disabled: true,
    });
    const [listed] = await suite.store.listWebhooks(scope);
    expect(listed).toMatchObject({
      webhookId: flaky.webhookId,
      status: "disabled",
      consecutiveFailures: limit,
    });
    const events = await allEvents(suite.store, scope);
    const disabled = events.filter((e) => e.type === "webhook_disabled");
    expect(disabled).toHaveLength(1);
    expect(disabled[0]).toMatchObject({
      from: "system",
      to: "all",
      payload: { webhookId: flaky.webhookId, reason: "failing", consecutiveFailures: limit },
    });
    // The event is queued for the room's other webhooks (in the recording step), never for the disabled one.
    await post(suite.store, scope);
    const after = (await claim(suite.store, scope)).deliveries;
    expect(after.map((d) => [d.webhookId, d.event.type])).toEqual([[watcher.webhookId, "webhook_disabled"]]);
  });

  test("410 Gone disables at once: its queued deliveries are never claimed and new events are not queued", async () => {
    const scope = await claimedRoom(suite.store);
    const hook = await suite.store.createWebhook(scope, newHook(suite), 10);
    await post(suite.store, scope);
    await post(suite.store, scope);
    const [one, two] = (await claim(suite.store, scope)).deliveries;
    expect(await suite.store.recordDelivery(one as ClaimedDelivery, report(suite, "gone"))).toEqual({
      recorded: true,
      logged: "dropped",
      disabled: true,
    });
    expect(
      await suite.store.recordDelivery(two as ClaimedDelivery, report(suite, "delivered")),
    ).toMatchObject({
      disabled: false,
    });
    await post(suite.store, scope);
    suite.clock.advance(LEASE);
    expect((await claim(suite.second, scope)).deliveries.map((d) => d.event.type)).toEqual([]);
    const [listed] = await suite.store.listWebhooks(scope);
    expect(listed).toMatchObject({ status: "disabled", consecutiveFailures: 0 });
    const gone = (await allEvents(suite.store, scope)).filter((e) => e.type === "webhook_disabled");
    expect(gone.map((e) => e.payload)).toEqual([
      { webhookId: hook.webhookId, reason: "gone", consecutiveFailures: 0 },
    ]);
    expect((await suite.store.webhookDeliveries(scope, hook.webhookId))?.[1]).toMatchObject({
      outcome: "dropped",
      httpStatus: 410,
    });
  });

  test("the delivery log keeps the newest 100 attempts, newest first; test deliveries change nothing else", async () => {
    const scope = await claimedRoom(suite.store);
    const hook = await suite.store.createWebhook(scope, newHook(suite), 10);
    const at = iso(suite.clock.now());
    for (let i = 1; i <= WEBHOOK_LIMITS.logSize + 5; i++) {
      const attempt = {
        eventSeq: 0,
        attempt: 1,
        outcome: "failed" as const,
        error: "HTTP 500",
        durationMs: i,
        at,
      };
      expect(await (i % 2 ? suite.store : suite.second).logTestDelivery(scope, hook.webhookId, attempt)).toBe(
        true,
      );
    }
    const log = await suite.store.webhookDeliveries(scope, hook.webhookId);
    expect(log?.map((a) => a.durationMs)).toEqual(
      Array.from({ length: WEBHOOK_LIMITS.logSize }, (_, i) => WEBHOOK_LIMITS.logSize + 5 - i),
    );
    expect(log?.[0]).toEqual({
      eventSeq: 0,
      attempt: 1,
      outcome: "failed",
      error: "HTTP 500",
      durationMs: 105,
      at,
    });
    expect((await suite.store.listWebhooks(scope))[0]).toEqual(hook);
    const missing = { eventSeq: 0, attempt: 1, outcome: "delivered" as const, durationMs: 1, at };
    expect(await suite.store.logTestDelivery(scope, "wh_0000000000000000", missing)).toBe(false);
    expect(await suite.store.webhookDeliveries(scope, "wh_0000000000000000")).toBeNull();
  });

  test("a deleted webhook's queued deliveries are never claimed and its log is gone", async () => {
    const scope = await claimedRoom(suite.store);
    const gone = await suite.store.createWebhook(scope, newHook(suite), 10);
    const kept = await suite.store.createWebhook(scope, newHook(suite), 10);
    await post(suite.store, scope);
    await attemptAll(suite, scope, "delivered");
    await post(suite.store, scope);
    expect(await suite.second.deleteWebhook(scope, gone.webhookId)).toBe(true);
    expect(await suite.store.webhookDeliveries(scope, gone.webhookId)).toBeNull();
    const left = (await claim(suite.store, scope)).deliveries;
    expect(left.map((d) => [d.webhookId, d.event.seq])).toEqual([[kept.webhookId, 2]]);
  });

  test("a deleted room takes its webhooks along, and the worker's list lets it go", async () => {
    const scope = await claimedRoom(suite.store);
    await suite.store.createWebhook(scope, newHook(suite), 10);
    await post(suite.store, scope);
    expect(await suite.store.webhookRooms()).toContain(scope.roomId);
    await suite.store.deleteRoom(scope);
    // A room listed within the last minute may belong to a registration still in flight: it stays listed that long.
    suite.clock.advance(61_000);
    expect(await claim(suite.second, scope)).toEqual({ deliveries: [], nextDueMs: null, hasWebhooks: false });
    expect(await suite.second.webhookRooms()).not.toContain(scope.roomId);
    await suite.store.createRoom(scope);
    expect(await suite.store.listWebhooks(scope)).toEqual([]);
  });
}
