/**
 * The RoomStore conformance suite: the executable definition of src/store/types.ts. Every driver runs all of it
 * through runConformance with a StoreFactory (see conformance/harness.ts). Tests use a random room and team
 * each, share no state, and move an injected clock instead of sleeping.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { concurrencyTests } from "./conformance/concurrency.ts";
import { contextTests } from "./conformance/context.ts";
import { consumeTests, eventTests } from "./conformance/events.ts";
import { type Ctx, createTestClock, type StoreFactory } from "./conformance/harness.ts";
import { lockTests } from "./conformance/locks.ts";
import { ownershipTests } from "./conformance/ownership.ts";
import { planLockTests, planTests } from "./conformance/plan.ts";
import { presenceTests, summaryTests } from "./conformance/presence.ts";
import { varTests } from "./conformance/vars.ts";

export type { Capability, StoreFactory } from "./conformance/harness.ts";

export function runConformance(name: string, factory: StoreFactory): void {
  describe(`RoomStore conformance: ${name}`, () => {
    const ctx = { clock: createTestClock(), factory } as Ctx;
    const opened: RoomStore[] = [];

    beforeAll(async () => {
      ctx.store = await factory.open(ctx.clock.now);
      opened.push(ctx.store);
      if (factory.lacks?.secondInstance) {
        ctx.second = ctx.store;
      } else {
        ctx.second = await factory.openSecond(ctx.clock.now);
        opened.push(ctx.second);
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
    describe("concurrency", () => concurrencyTests(ctx));
  });
}
