/**
 * The RoomStore conformance suite: the executable definition of src/store/types.ts. Every driver runs all of it
 * through runConformance with a StoreFactory (see conformance/harness.ts). Tests use a random room and team
 * each, share no state, and move an injected clock instead of sleeping.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { STORE_UNAVAILABLE } from "../../src/protocol/errors.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { inviteTests } from "./conformance/access-invites.ts";
import { keyTests, provisionTests } from "./conformance/access-keys.ts";
import { rateTests } from "./conformance/access-rate.ts";
import { mayClaimTests, roomAdminTests, roomLimitTests } from "./conformance/access-rooms.ts";
import { roomStatsTests, roomSummaryTests } from "./conformance/access-views.ts";
import { concurrencyTests } from "./conformance/concurrency.ts";
import { contextTests } from "./conformance/context.ts";
import { consumeTests, eventTests } from "./conformance/events.ts";
import {
  type Ctx,
  createTestClock,
  expectRoomError,
  newScope,
  newTask,
  ROOMS_PER_TEAM,
  type StoreFactory,
  testWith,
} from "./conformance/harness.ts";
import { isolationTests } from "./conformance/isolation.ts";
import { lockTests } from "./conformance/locks.ts";
import { ownershipTests } from "./conformance/ownership.ts";
import { planLockTests, planTests } from "./conformance/plan.ts";
import { presenceTests, summaryTests } from "./conformance/presence.ts";
import { actorTests, idempotencyTests } from "./conformance/scope.ts";
import { varTests } from "./conformance/vars.ts";

export type { Capability, OpenOptions, StoreFactory } from "./conformance/harness.ts";

/** How long four calls on an unreachable store may take in all: "bounded", never a hang. */
const OUTAGE_BOUND_MS = 15_000;

export function runConformance(name: string, factory: StoreFactory): void {
  describe(`RoomStore conformance: ${name}`, () => {
    const ctx = { clock: createTestClock(), factory } as Ctx;
    const opened: RoomStore[] = [];

    beforeAll(async () => {
      ctx.store = await factory.open(ctx.clock.now);
      opened.push(ctx.store);
      const limits = { roomsPerTeam: ROOMS_PER_TEAM };
      ctx.limited = await factory.open(ctx.clock.now, { limits });
      opened.push(ctx.limited);
      if (factory.lacks?.secondInstance) {
        ctx.second = ctx.store;
        ctx.limitedSecond = ctx.limited;
      } else {
        ctx.second = await factory.openSecond(ctx.clock.now);
        opened.push(ctx.second);
        ctx.limitedSecond = await factory.openSecond(ctx.clock.now, { limits });
        opened.push(ctx.limitedSecond);
      }
    });

    afterAll(async () => {
      await Promise.all(opened.map((store) => store.close()));
      await factory.cleanup();
    });

    test("reports its driver and answers ping", async () => {
      expect(ctx.store.driver).toBe(factory.driver);
      expect(ctx.second.driver).toBe(factory.driver);
      await ctx.store.ping();
      await ctx.second.ping();
    });

    testWith(ctx, "outage", "an unreachable store fails with store_unavailable in bounded time", async () => {
      const store = await factory.openUnreachable?.(ctx.clock.now);
      if (!store) throw new Error("the factory neither declares lacks.outage nor provides openUnreachable");
      const scope = newScope();
      const started = performance.now();
      try {
        await expectRoomError(store.ping(), "store_unavailable", STORE_UNAVAILABLE);
        await expectRoomError(store.readPlan(scope), "store_unavailable", STORE_UNAVAILABLE);
        await expectRoomError(store.addTask(scope, newTask("t")), "store_unavailable", STORE_UNAVAILABLE);
        await expectRoomError(store.consumeEvents(scope, "a", 10), "store_unavailable", STORE_UNAVAILABLE);
      } finally {
        await store.close().catch(() => {});
      }
      expect(performance.now() - started).toBeLessThan(OUTAGE_BOUND_MS);
    });

    describe("plan", () => planTests(ctx));
    describe("plan lock", () => planLockTests(ctx));
    describe("context", () => contextTests(ctx));
    describe("events", () => eventTests(ctx));
    describe("consumeEvents", () => consumeTests(ctx));
    describe("summary", () => summaryTests(ctx));
    describe("presence", () => presenceTests(ctx));
    describe("locks", () => lockTests(ctx));
    describe("shared variables", () => varTests(ctx));
    describe("ownership", () => ownershipTests(ctx));
    describe("isolation and fidelity", () => isolationTests(ctx));
    describe("concurrency", () => concurrencyTests(ctx));
    describe("idempotency keys", () => idempotencyTests(ctx));
    describe("the acting agent's presence", () => actorTests(ctx));
    describe("access: keys", () => keyTests(ctx));
    describe("access: provisionTeam", () => provisionTests(ctx));
    describe("access: rate limiting", () => rateTests(ctx));
    describe("access: invites", () => inviteTests(ctx));
    describe("access: mayClaim false (invite scopes)", () => mayClaimTests(ctx));
    describe("access: room administration", () => roomAdminTests(ctx));
    describe("access: room limit", () => roomLimitTests(ctx));
    describe("access: roomStats", () => roomStatsTests(ctx));
    describe("access: roomSummary", () => roomSummaryTests(ctx));
  });
}
