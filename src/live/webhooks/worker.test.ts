/**
 * The outbox worker on real stores (SQLite file, redis-server) with real receivers on loopback. Time is the
 * store's injected clock, moved by the tests, and the jitter is pinned, so the retry schedule is checked to the
 * millisecond without waiting for it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { verifyStandardWebhook } from "../../../test/support/standard-webhooks.ts";
import { E2E_STORES } from "../../../test/support/stores.ts";
import { receiverPool } from "../../../test/support/webhook-receiver.ts";
import type { Logger } from "../../log.ts";
import type { RoomScope, RoomStore } from "../../store/types.ts";
import { webhookSecret } from "./signing-key.ts";
import { createWebhookWorker, type WorkerOptions } from "./worker.ts";

const SIGNING_KEY = "worker-test-signing-key-0123456789abcdef";
const receivers = receiverPool();
afterEach(() => receivers.stopAll());

/** Log lines, kept to check that nothing secret is logged. */
const lines: string[] = [];
const logger: Logger = { log: (level, msg, fields) => lines.push(JSON.stringify({ level, msg, ...fields })) };

let n = 0;
const nextWebhookId = () =>
  `wh_${String(++n).padStart(6, "0")}${crypto.randomUUID().slice(0, 10).replace(/-/g, "0")}`;

// The in-process stores: SQLite and a single redis-server are enough here (the conformance suite covers the rest).
for (const make of E2E_STORES.filter((m) => ["sqlite", "redis"].includes(m().name))) {
  const backing = make();
  describe(`webhook worker (${backing.name})`, () => {
    let t = Math.floor(Date.now() / 1000) * 1000;
    const now = () => t;
    let store: RoomStore;
    beforeAll(async () => {
      store = await backing.open({ now });
    });
    afterAll(() => store.close());

    const worker = (extra: Partial<WorkerOptions> = {}) =>
      createWebhookWorker({
        store,
        logger,
        signingKey: SIGNING_KEY,
        allowHttp: true,
        allowPrivate: true,
        now,
        random: () => 0.5, // no jitter: retries after exactly 5 s, 30 s, …
        ...extra,
      });

    /** A fresh room of a fresh team with one webhook to `url`. */
    async function roomWithWebhook(url: string, types: string[] = []) {
      const scope: RoomScope = { roomId: `r-${crypto.randomUUID().slice(0, 8)}`, teamId: "t-worker" };
      await store.createRoom(scope);
      const webhookId = nextWebhookId();
      await store.createWebhook(scope, { webhookId, url, types, createdAt: new Date(t).toISOString() }, 10);
      return { scope, webhookId, secret: webhookSecret(SIGNING_KEY, webhookId) };
    }

    test("500, 500, then 200: the third attempt delivers, with the same webhook-id and a valid signature each time", async () => {
      const answers = [500, 500, 200];
      const receiver = receivers.start({
        respond: () => new Response("x", { status: answers.shift() ?? 200 }),
      });
      const { scope, webhookId, secret } = await roomWithWebhook(`http://127.0.0.1:${receiver.port}/hook`);
      const event = await store.postEvent(scope, {
        type: "build_failed",
        from: "ci",
        to: "all",
        payload: { job: 7 },
      });
      const id = `${scope.roomId}.${event.seq}.${webhookId}`;
      /** Checks the latest request the way a receiver would, at the (moved) time it arrived. */
      const checkLatest = async (count: number) => {
        expect(receiver.requests).toHaveLength(count);
        const request = receiver.requests[count - 1]!;
        expect(request.headers.get("webhook-id")).toBe(id);
        expect(Number(request.headers.get("webhook-timestamp"))).toBe(Math.floor(t / 1000));
        expect(JSON.parse(request.body)).toEqual({ type: "build_failed", roomId: scope.roomId, event });
        const verdict = await verifyStandardWebhook({
          secret,
          headers: request.headers,
          body: request.body,
          nowMs: t,
        });
        expect(verdict).toEqual({ ok: true });
      };
      const w = worker();
      await w.runOnce();
      await checkLatest(1);
      t += 4_999; // the first retry is due 5 s after the failure, not before
      await w.runOnce();
      expect(receiver.requests).toHaveLength(1);
      t += 1;
      await w.runOnce();
      await checkLatest(2);
      t += 30_000;
      await w.runOnce();
      await checkLatest(3);
      t += 3_600_000;
      await w.runOnce();
      expect(receiver.requests).toHaveLength(3);
      await w.stop();

      const log = await store.webhookDeliveries(scope, webhookId);
      expect(log?.map((a) => [a.eventSeq, a.attempt, a.outcome, a.httpStatus])).toEqual([
        [1, 3, "delivered", 200],
        [1, 2, "failed", 500],
        [1, 1, "failed", 500],
      ]);
      const [listed] = await store.listWebhooks(scope);
      expect(listed).toMatchObject({ status: "active", consecutiveFailures: 0 });
      expect(lines.join("\n")).not.toContain(secret);
    });

    test("410 Gone disables the webhook at once: the room gets webhook_disabled and later events are not sent", async () => {
      const receiver = receivers.start({ respond: () => new Response("gone", { status: 410 }) });
      const { scope, webhookId } = await roomWithWebhook(`http://127.0.0.1:${receiver.port}/`);
      await store.postEvent(scope, { type: "a", from: "x", to: "all", payload: {} });
      const w = worker();
      await w.runOnce();
      await store.postEvent(scope, { type: "b", from: "x", to: "all", payload: {} });
      t += 3_600_000;
      await w.runOnce();
      await w.stop();
      expect(receiver.requests).toHaveLength(1);
      expect((await store.listWebhooks(scope))[0]?.status).toBe("disabled");
      const types = (await store.readEvents(scope, { limit: 10 })).map((e) => e.type);
      expect(types).toEqual(["b", "webhook_disabled", "a"]);
      expect(lines.some((l) => l.includes('"msg":"webhook disabled"') && l.includes(webhookId))).toBe(true);
    });

    test("without WEBHOOK_ALLOW_PRIVATE a name resolving to a private address is refused at send time", async () => {
      const receiver = receivers.start();
      const { scope, webhookId } = await roomWithWebhook(`http://hooks.example.test:${receiver.port}/`);
      await store.postEvent(scope, { type: "a", from: "x", to: "all", payload: {} });
      const w = worker({ allowPrivate: false, resolve: async () => [{ address: "10.1.2.3", family: 4 }] });
      await w.runOnce();
      await w.stop();
      expect(receiver.requests).toHaveLength(0);
      const [attempt] = (await store.webhookDeliveries(scope, webhookId)) ?? [];
      expect(attempt).toMatchObject({
        outcome: "failed",
        error:
          "refused: the host resolves to a private (10.0.0.0/8) address (set WEBHOOK_ALLOW_PRIVATE=true to allow private addresses)",
      });
    });

    test("a delivery claimed by a process that died is sent by another once the claim's lease runs out, once", async () => {
      const receiver = receivers.start();
      const { scope } = await roomWithWebhook(`http://127.0.0.1:${receiver.port}/`);
      await store.postEvent(scope, { type: "a", from: "x", to: "all", payload: {} });
      // The dead process: it claimed the delivery and never recorded anything.
      const claimed = await store.claimDeliveries(scope.roomId, { limit: 10, leaseMs: 30_000 });
      expect(claimed.deliveries).toHaveLength(1);
      const w = worker();
      await w.runOnce();
      expect(receiver.requests).toHaveLength(0);
      t += 30_000;
      await w.runOnce();
      await w.runOnce();
      await w.stop();
      expect(receiver.requests).toHaveLength(1);
    });

    test("a started worker delivers as soon as the feed reports the event; stop() waits for the send in flight", async () => {
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const receiver = receivers.start({
        respond: async () => {
          await held;
          return new Response("ok");
        },
      });
      const { scope, webhookId } = await roomWithWebhook(`http://127.0.0.1:${receiver.port}/`);
      const w = worker({ intervalMs: 60_000 }); // the first tick lists the room; then only the feed wakes it
      w.start();
      await Bun.sleep(300);
      await store.postEvent(scope, { type: "a", from: "x", to: "all", payload: {} });
      for (let i = 0; i < 100 && receiver.requests.length === 0; i++) await Bun.sleep(20);
      expect(receiver.requests).toHaveLength(1);
      const stopping = w.stop();
      release();
      await stopping;
      expect((await store.webhookDeliveries(scope, webhookId))?.map((a) => a.outcome)).toEqual(["delivered"]);
    });

    test("a receiver that hangs in one room does not hold up another room's delivery", async () => {
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const slow = receivers.start({
        respond: async () => {
          await held;
          return new Response("late");
        },
      });
      const fast = receivers.start();
      const busy = await roomWithWebhook(`http://127.0.0.1:${slow.port}/`);
      const quiet = await roomWithWebhook(`http://127.0.0.1:${fast.port}/`);
      for (let i = 0; i < 6; i++)
        await store.postEvent(busy.scope, { type: "a", from: "x", to: "all", payload: { i } });
      await store.postEvent(quiet.scope, { type: "a", from: "x", to: "all", payload: {} });
      const w = worker({ concurrency: 4 });
      w.start();
      try {
        for (let i = 0; i < 100 && fast.requests.length === 0; i++) await Bun.sleep(20);
        expect(fast.requests).toHaveLength(1);
        expect(slow.requests.length).toBeLessThanOrEqual(2); // half the slots at most for one room
      } finally {
        release();
        await w.stop();
      }
    });
  });
}
