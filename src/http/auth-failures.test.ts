import { describe, expect, test } from "bun:test";
import { createFailureLimiter } from "./auth-failures.ts";

describe("failed-authentication limiter", () => {
  test("30 failures in a minute block the client until its window ends (injected clock)", () => {
    let clock = 0;
    const limiter = createFailureLimiter({ now: () => clock });
    for (let i = 0; i < 29; i++) limiter.note("192.0.2.7");
    expect(limiter.blocked("192.0.2.7")).toBe(false);
    limiter.note("192.0.2.7");
    expect(limiter.blocked("192.0.2.7")).toBe(true);
    expect(limiter.blocked("192.0.2.8")).toBe(false);
    clock = 59_999;
    expect(limiter.blocked("192.0.2.7")).toBe(true);
    clock = 60_000;
    expect(limiter.blocked("192.0.2.7")).toBe(false);
  });

  test("an IPv6 client is counted by its /64: rotating through its addresses does not escape the limit", () => {
    const limiter = createFailureLimiter({ maxPerMinute: 3, now: () => 0 });
    for (const host of ["1", "2", "ffff:ffff:ffff:3"]) limiter.note(`2001:db8:1:2::${host}`);
    expect(limiter.blocked("2001:db8:1:2:abcd::9")).toBe(true);
    expect(limiter.blocked("2001:db8:1:3::1")).toBe(false);
    // IPv4-mapped addresses count as the IPv4 address.
    for (let i = 0; i < 3; i++) limiter.note("::ffff:192.0.2.9");
    expect(limiter.blocked("192.0.2.9")).toBe(true);
  });

  test("memory stays bounded under a spray of addresses: the oldest windows are forgotten first", () => {
    let clock = 0;
    const limiter = createFailureLimiter({ maxPerMinute: 2, now: () => clock, maxTracked: 100 });
    limiter.note("10.0.0.1");
    limiter.note("10.0.0.1");
    expect(limiter.blocked("10.0.0.1")).toBe(true);
    for (let i = 0; i < 500; i++) {
      clock++;
      limiter.note(`10.1.${i >> 8}.${i & 255}`);
      limiter.note(`10.1.${i >> 8}.${i & 255}`);
    }
    // 10.0.0.1's window was the oldest, so it was dropped to make room.
    expect(limiter.blocked("10.0.0.1")).toBe(false);
    // The most recent addresses are still counted; the first of the spray are forgotten too.
    expect(limiter.blocked("10.1.1.243")).toBe(true);
    expect(limiter.blocked("10.1.0.0")).toBe(false);
  });
});
