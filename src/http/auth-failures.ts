/**
 * Repeated authentication failures from one client are limited in memory, before any hashing or store work: a
 * guessing client is turned away cheaply (docs/security.md#principals). Per process, by design: it protects this
 * process's CPU and the store, not a global budget. A client is counted as the request limiter counts it (addressKey:
 * an IPv6 client by its /64, which one host usually holds whole and could otherwise rotate through), and memory is
 * bounded the same way (past `maxTracked` clients the oldest window is forgotten).
 */
import type { Clock } from "../protocol/time.ts";
import { createAddressWindows } from "./address-limit.ts";

export interface FailureLimiter {
  blocked(address: string): boolean;
  note(address: string): void;
}

export interface FailureLimitOptions {
  /** Failures per client and minute before its store lookups are refused (default 30). */
  maxPerMinute?: number;
  now?: Clock;
  /** Clients tracked at most (default 100,000). */
  maxTracked?: number;
}

export function createFailureLimiter(options: FailureLimitOptions = {}): FailureLimiter {
  const { maxPerMinute = 30, now = Date.now } = options;
  const windows = createAddressWindows({ windowMs: 60_000, maxTracked: options.maxTracked ?? 100_000 });
  return {
    blocked: (address) => (windows.current(address, now())?.count ?? 0) >= maxPerMinute,
    note(address) {
      windows.open(address, now()).count++;
    },
  };
}
