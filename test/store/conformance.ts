/**
 * The RoomStore conformance suite: the executable definition of src/store/types.ts. Every driver runs all of it
 * through runConformance with a StoreFactory (see conformance/harness.ts). Tests use a random room and team
 * each, share no state, and move an injected clock instead of sleeping.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { STORE_UNAVAILABLE } from "../../src/protocol/errors.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { agentRateTests } from "./conformance/access-agent-rate.ts";
import { inviteTests } from "./conformance/access-invites.ts";
import { keyLifetimeTests } from "./conformance/access-key-lifetime.ts";
import { keyTests, provisionTests } from "./conformance/access-keys.ts";
import { rateTests } from "./conformance/access-rate.ts";
import { mayClaimTests, roomAdminTests, roomLimitTests } from "./conformance/access-rooms.ts";
import { roomStatsTests, roomSummaryTests } from "./conformance/access-views.ts";
import { analyticsTests } from "./conformance/analytics.ts";
import { claimTests } from "./conformance/claims.ts";
import { concurrencyTests } from "./conformance/concurrency.ts";
import { contextTests } from "./conformance/context.ts";
import { deletionTests } from "./conformance/deletions.ts";
import { consumeTests, eventTests } from "./conformance/events.ts";
import { feedTests } from "./conformance/feed.ts";
import { forkRecordTests } from "./conformance/fork-records.ts";
import {
  createTestClock,
  expectRoomError,
  newScope,
  newTask,
  ROOMS_PER_TEAM,
  type StoreFactory,
  type Suite,
  testWith,
} from "./conformance/harness.ts";
import { isolationTests } from "./conformance/isolation.ts";
import { leaseTests } from "./conformance/leases.ts";
import { lockTests } from "./conformance/locks.ts";
import { movingTests } from "./conformance/moving.ts";
import { oauthTests } from "./conformance/oauth.ts";
import { ownershipTests } from "./conformance/ownership.ts";
import { driverTests } from "./conformance/people-driver.ts";
import { forkTests } from "./conformance/people-fork.ts";
import { bridgeTests, messageTests, roomInfoTests } from "./conformance/people-mailbox.ts";
import { approvalTests, handoffTests, verdictTests } from "./conformance/people-work.ts";
import { planLockTests, planTests } from "./conformance/plan.ts";
import { planRuleTests } from "./conformance/plan-rules.ts";
import { presenceTests, summaryTests } from "./conformance/presence.ts";
import { retentionTests } from "./conformance/retention.ts";
import { roomStateTests } from "./conformance/room-state.ts";
import { reviewTests, templateTests } from "./conformance/room-tools.ts";
import { actorTests, faultTests, idempotencyTests, logTests, noClaimTests } from "./conformance/scope.ts";
import { searchTests } from "./conformance/search.ts";
import { sessionTests, teamListTests } from "./conformance/sessions.ts";
import { suspensionTests } from "./conformance/suspensions.ts";
import { togetherForkTests } from "./conformance/together-forks.ts";
import { handoffLeaseTests } from "./conformance/together-handoffs.ts";
import { togetherLogTests, togetherMailTests, togetherWebhookTests } from "./conformance/together-log.ts";
import { togetherSearchTests } from "./conformance/together-search.ts";
import { TEST_VALUES, valueTests } from "./conformance/values.ts";
import { varTests } from "./conformance/vars.ts";
import { webhookTests } from "./conformance/webhooks.ts";

export type { Capability, OpenOptions, StoreFactory } from "./conformance/harness.ts";
export { backingFactory } from "./conformance/harness.ts";

/** How long four calls on an unreachable store may take in all: "bounded", never a hang. */
const OUTAGE_BOUND_MS = 15_000;

export function runConformance(name: string, factory: StoreFactory): void {
  describe(`RoomStore conformance: ${name}`, () => {
    const suite = { clock: createTestClock(), factory } as Suite;
    const opened: RoomStore[] = [];

    beforeAll(async () => {
      // Every instance keeps the suite's own kinds of small value too (conformance/values.ts).
      const values = TEST_VALUES;
      suite.store = await factory.open(suite.clock.now, { values });
      opened.push(suite.store);
      const limits = { roomsPerTeam: ROOMS_PER_TEAM };
      suite.limited = await factory.open(suite.clock.now, { limits, values });
      opened.push(suite.limited);
      if (factory.lacks?.secondInstance) {
        suite.second = suite.store;
        suite.limitedSecond = suite.limited;
      } else {
        suite.second = await factory.openSecond(suite.clock.now, { values });
        opened.push(suite.second);
        suite.limitedSecond = await factory.openSecond(suite.clock.now, { limits, values });
        opened.push(suite.limitedSecond);
      }
    });

    afterAll(async () => {
      await Promise.all(opened.map((store) => store.close()));
      await factory.cleanup();
    });

    test("reports its driver and answers ping", async () => {
      expect(suite.store.driver).toBe(factory.driver);
      expect(suite.second.driver).toBe(factory.driver);
      await suite.store.ping();
      await suite.second.ping();
    });

    testWith(
      suite,
      "outage",
      "an unreachable store fails with store_unavailable in bounded time",
      async () => {
        const store = await factory.openUnreachable?.(suite.clock.now);
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
      },
    );

    describe("plan", () => planTests(suite));
    describe("plan lock", () => planLockTests(suite));
    describe("plan rules", () => planRuleTests(suite));
    describe("context", () => contextTests(suite));
    describe("events", () => eventTests(suite));
    describe("consumeEvents", () => consumeTests(suite));
    describe("summary", () => summaryTests(suite));
    describe("presence", () => presenceTests(suite));
    describe("locks", () => lockTests(suite));
    describe("shared variables", () => varTests(suite));
    describe("small values", () => valueTests(suite));
    describe("ownership", () => ownershipTests(suite));
    describe("isolation and fidelity", () => isolationTests(suite));
    describe("concurrency", () => concurrencyTests(suite));
    describe("idempotency keys", () => idempotencyTests(suite));
    describe("the acting agent's presence", () => actorTests(suite));
    describe("calls that only record presence", () => noClaimTests(suite));
    describe("faults that are bugs", () => faultTests(suite));
    describe("the change feed", () => feedTests(suite));
    describe("the log for watchers", () => logTests(suite));
    describe("deletions and dependencies", () => deletionTests(suite));
    describe("reviews", () => reviewTests(suite));
    describe("templates and usable rooms", () => templateTests(suite));
    describe("search", () => searchTests(suite));
    describe("analytics", () => analyticsTests(suite));
    describe("task leases", () => leaseTests(suite));
    describe("file claims, leave_room, room state", () => claimTests(suite));
    describe("suspended agents", () => suspensionTests(suite));
    describe("access: keys", () => keyTests(suite));
    describe("access: provisionTeam", () => provisionTests(suite));
    describe("access: key lifetime, use and rotation", () => keyLifetimeTests(suite));
    describe("access: rate limiting", () => rateTests(suite));
    describe("access: an agent's window inside its team's", () => agentRateTests(suite));
    describe("access: invites", () => inviteTests(suite));
    describe("access: mayClaim false (invite scopes)", () => mayClaimTests(suite));
    describe("access: room administration", () => roomAdminTests(suite));
    describe("access: room limit", () => roomLimitTests(suite));
    describe("access: roomStats", () => roomStatsTests(suite));
    describe("access: roomSummary", () => roomSummaryTests(suite));
    describe("webhooks", () => webhookTests(suite));
    describe("people: the driver", () => driverTests(suite));
    describe("people: approvals", () => approvalTests(suite));
    describe("people: handoffs", () => handoffTests(suite));
    describe("people: verdicts", () => verdictTests(suite));
    describe("people: messages", () => messageTests(suite));
    describe("people: the bridge", () => bridgeTests(suite));
    describe("people: room info", () => roomInfoTests(suite));
    describe("people: forks", () => forkTests(suite));
    describe("people: forks hold people's records and release live holdings", () => forkRecordTests(suite));
    describe("together: handoffs, leases, deletions, the plan lock", () => handoffLeaseTests(suite));
    describe("together: analytics, summary, presence and the wheel", () => togetherLogTests(suite));
    describe("together: forks and everything they copy or not", () => togetherForkTests(suite));
    describe("together: search and every writer", () => togetherSearchTests(suite));
    describe("together: webhooks, people and forks", () => togetherWebhookTests(suite));
    describe("together: people's mail, the bridge, deletions and forks", () => togetherMailTests(suite));
    describe("event retention", () => retentionTests(suite));
    describe("moving rooms: export and import", () => movingTests(suite));
    describe("web sessions", () => sessionTests(suite));
    describe("access: OAuth grants", () => oauthTests(suite));
    describe("web: the teams list", () => teamListTests(suite));
    describe("the declaration of room state", () => roomStateTests(suite));
  });
}
