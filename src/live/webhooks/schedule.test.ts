import { describe, expect, test } from "bun:test";
import { MAX_ATTEMPTS, nextAttemptDelay } from "./schedule.ts";

const DOCUMENTED_DELAYS_MS = [5_000, 30_000, 2 * 60_000, 10 * 60_000, 30 * 60_000, 60 * 60_000];
const fixed = (r: number) => () => r;

describe("nextAttemptDelay", () => {
  test("docs/http.md#delivery: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, then nothing (7 attempts in all)", () => {
    // random() = 0.5 is the middle of the jitter band: the base delay exactly.
    expect([1, 2, 3, 4, 5, 6].map((attempt) => nextAttemptDelay(attempt, fixed(0.5)))).toEqual(
      DOCUMENTED_DELAYS_MS,
    );
    expect(nextAttemptDelay(7, fixed(0.5))).toBeNull();
    expect(nextAttemptDelay(10, fixed(0.5))).toBeNull();
    // The seventh failure drops the event: nothing is retried after it.
    expect(MAX_ATTEMPTS).toBe(7);
  });

  test("jitter spans ±20%: random 0 gives -20%, random just below 1 gives just under +20%", () => {
    expect(nextAttemptDelay(1, fixed(0))).toBe(4_000);
    expect(nextAttemptDelay(6, fixed(0))).toBe(2_880_000);
    expect(nextAttemptDelay(1, fixed(0.999_999))).toBe(6_000);
    expect(nextAttemptDelay(6, fixed(0.999_999))).toBe(4_319_999);
    expect(nextAttemptDelay(2, fixed(0.25))).toBe(27_000);
  });

  test("with Math.random every delay stays within ±20% and they are not all equal", () => {
    const delays = Array.from({ length: 200 }, () => nextAttemptDelay(3)!);
    for (const delay of delays) {
      expect(delay).toBeGreaterThanOrEqual(96_000);
      expect(delay).toBeLessThanOrEqual(144_000);
    }
    expect(new Set(delays).size).toBeGreaterThan(50);
  });

  test("refuses a nonsense attempt number or random source instead of retrying hot", () => {
    for (const attempt of [0, -1, 1.5, Number.NaN])
      expect(() => nextAttemptDelay(attempt)).toThrow(RangeError);
    for (const r of [1, -0.1, Number.NaN, 7]) expect(() => nextAttemptDelay(1, fixed(r))).toThrow(RangeError);
  });
});
