/**
 * The webhook delivery rule every store applies (afterDelivery). A failure's retryInMs comes from the worker's
 * schedule (live/webhooks/schedule.ts, tested there): a delay while a try is left, null after the last one.
 */
import { describe, expect, test } from "bun:test";
import { afterDelivery, loggedOutcome, WEBHOOK_LIMITS, webhookTakes } from "./webhooks.ts";

describe("afterDelivery", () => {
  test("a delivery is logged delivered and resets the dropped-in-a-row count", () => {
    expect(afterDelivery("delivered", null, 12)).toEqual({ logged: "delivered", dropped: 0 });
  });

  test("a failure before the last try is logged failed and tried again after the schedule's delay", () => {
    expect(afterDelivery("failed", 5_000, 3)).toEqual({ logged: "failed", retryInMs: 5_000, dropped: 3 });
    expect(afterDelivery("failed", 3_600_000, 0)).toEqual({
      logged: "failed",
      retryInMs: 3_600_000,
      dropped: 0,
    });
  });

  test("the last failure (no retry left) drops the event and counts it", () => {
    expect(afterDelivery("failed", null, 3)).toEqual({ logged: "dropped", dropped: 4 });
  });

  test("the 20th dropped event in a row disables the webhook; a delivery in between starts the count again", () => {
    let count = 0;
    const disabledAt: number[] = [];
    for (let event = 1; event <= 25; event++) {
      const step = afterDelivery("failed", null, count);
      count = step.dropped;
      if (step.disable) disabledAt.push(event);
    }
    expect(disabledAt[0]).toBe(WEBHOOK_LIMITS.disableAfterDropped);
    expect(afterDelivery("failed", null, 19)).toEqual({ logged: "dropped", dropped: 20, disable: "failing" });
    const reset = afterDelivery("delivered", null, 19).dropped;
    expect(afterDelivery("failed", null, reset).disable).toBeUndefined();
  });

  test("410 Gone drops the event and disables the webhook at once, on any try, without counting a drop", () => {
    for (const retry of [5_000, null]) {
      expect(afterDelivery("gone", retry, 7)).toEqual({ logged: "dropped", dropped: 7, disable: "gone" });
    }
  });

  test("what it logs is loggedOutcome, for every outcome and retry", () => {
    for (const outcome of ["delivered", "failed", "gone"] as const) {
      for (const retry of [1_000, null]) {
        expect(afterDelivery(outcome, retry, 0).logged).toBe(loggedOutcome(outcome, retry));
      }
    }
  });
});

describe("webhookTakes", () => {
  test("no types takes every event; otherwise only the types listed, matched whole", () => {
    expect(webhookTakes([], "task_added")).toBe(true);
    expect(webhookTakes(["task_added", "broadcast"], "broadcast")).toBe(true);
    expect(webhookTakes(["task_added"], "task")).toBe(false);
    expect(webhookTakes(["task"], "task_added")).toBe(false);
  });
});
