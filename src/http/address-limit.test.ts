import { describe, expect, test } from "bun:test";
import { addressKey, createAddressLimiter } from "./address-limit.ts";

describe("address limiter", () => {
  test("a fixed one-minute window per address, reset by the injected clock", () => {
    let clock = 0;
    const limiter = createAddressLimiter({ limit: 3, now: () => clock });
    const take = (a: string) => limiter.take(a);
    expect([1, 2, 3, 4].map(() => take("10.0.0.1").allowed)).toEqual([true, true, true, false]);
    expect(take("10.0.0.2").allowed).toBe(true);
    clock = 59_000;
    expect(take("10.0.0.1")).toEqual({ allowed: false, limit: 3, remaining: 0, resetMs: 1_000 });
    clock = 60_000;
    expect(take("10.0.0.1")).toEqual({ allowed: true, limit: 3, remaining: 2, resetMs: 0 });
  });

  test("an IPv6 client is counted by its /64; IPv4-mapped addresses as IPv4", () => {
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(addressKey("::ffff:192.0.2.7")).toBe("192.0.2.7");
    expect(addressKey("192.0.2.7")).toBe("192.0.2.7");
    const limiter = createAddressLimiter({ limit: 2, now: () => 0 });
    limiter.take("2001:db8:1:2::a");
    limiter.take("2001:db8:1:2::b");
    expect(limiter.take("2001:db8:1:2::c").allowed).toBe(false);
    expect(limiter.take("2001:db8:1:3::c").allowed).toBe(true);
  });

  test("memory stays bounded under a spray of addresses: the oldest windows are forgotten first", () => {
    let clock = 0;
    const limiter = createAddressLimiter({ limit: 1, now: () => clock, maxTracked: 100 });
    limiter.take("10.0.0.1");
    expect(limiter.take("10.0.0.1").allowed).toBe(false);
    for (let i = 0; i < 500; i++) {
      clock++;
      limiter.take(`10.1.${i >> 8}.${i & 255}`);
    }
    // 10.0.0.1's window was the oldest, so it was dropped to make room: it starts afresh.
    expect(limiter.take("10.0.0.1").allowed).toBe(true);
    // The most recent addresses are still counted.
    expect(limiter.take("10.1.1.243").allowed).toBe(false);
  });
});
