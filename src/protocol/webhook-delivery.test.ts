import { describe, expect, test } from "bun:test";
import { afterDelivery, type DeliveryState } from "./webhook-delivery.ts";

const fresh: DeliveryState = { active: true, drops: 0, lastMs: 0 };

describe("afterDelivery", () => {
  test("a delivery is logged delivered, resets the dropped-in-a-row count and records when it was made", () => {
    expect(afterDelivery({ active: true, drops: 12, lastMs: 5 }, "delivered", null, 99)).toEqual({
      logged: "delivered",
      retry: false,
      state: { active: true, drops: 0, lastMs: 99 },
      disabled: null,
    });
  });

  test("a failure with a retry due is logged failed and tried again; nothing is counted", () => {
    expect(afterDelivery({ ...fresh, drops: 3 }, "failed", 5_000, 1)).toEqual({
      logged: "failed",
      retry: true,
      state: { ...fresh, drops: 3 },
      disabled: null,
    });
  });

  test("a last failure drops the event and counts it; the 20th in a row disables the webhook", () => {
    let state = fresh;
    const disabledAt: number[] = [];
    for (let event = 1; event <= 25; event++) {
      const next = afterDelivery(state, "failed", null, event);
      expect(next.logged).toBe("dropped");
      state = next.disabled ? { ...next.state, active: false } : next.state;
      if (next.disabled) disabledAt.push(event);
    }
    // Disabled once: a disabled webhook is not disabled again.
    expect(disabledAt).toEqual([20]);
    // One delivery in between starts the count again.
    const reset = afterDelivery({ ...fresh, drops: 19 }, "delivered", null, 1).state;
    expect(afterDelivery(reset, "failed", null, 2).disabled).toBeNull();
  });

  test("410 Gone drops the event and disables an active webhook at once, without counting it", () => {
    expect(afterDelivery({ ...fresh, drops: 4 }, "gone", 5_000, 1)).toEqual({
      logged: "dropped",
      retry: false,
      state: { ...fresh, drops: 4 },
      disabled: "gone",
    });
    expect(afterDelivery({ ...fresh, active: false }, "gone", null, 1).disabled).toBeNull();
  });
});
