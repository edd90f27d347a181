/**
 * A per-client-address request limit kept in this process's memory: a fixed one-minute window per address, so
 * each check is O(1) and costs no store round trip. It protects this process and the store behind it from one
 * client; it is not a global budget (N processes behind a balancer allow N times the limit, and behind a balancer
 * every client shares the balancer's address). Memory is bounded: finished windows are dropped, and past
 * `maxTracked` addresses the oldest window is forgotten.
 */
import type { Clock } from "../protocol/time.ts";
import type { RateDecision } from "../store/access-types.ts";

export interface AddressLimiter {
  /** Charges one request to the address and says whether it is admitted. */
  take(address: string): RateDecision;
}

export interface AddressLimitOptions {
  limit: number;
  now: Clock;
  windowMs?: number;
  maxTracked?: number;
}

/**
 * The unit one client is counted by: IPv4 addresses as they are (IPv4-mapped IPv6 too), IPv6 addresses by their
 * /64 prefix, since one host usually holds a whole /64 and could otherwise rotate through it.
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (!address.includes(":")) return address;
  const bare = address.replace(/%.*$/, "").toLowerCase();
  const [head = "", tail] = bare.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}

/** Requests (or failures) counted for one client since `start`. */
export interface AddressWindow {
  start: number;
  count: number;
}

/**
 * Fixed windows per client (by addressKey), in bounded memory: finished windows are dropped, and past `maxTracked`
 * clients the oldest window is forgotten. The counts of both per-address limiters (this one and the failed-auth
 * limiter, auth-failures.ts).
 */
export function createAddressWindows(options: { windowMs: number; maxTracked: number }) {
  const { windowMs, maxTracked } = options;
  // Insertion order = window start order (a window is re-inserted when it restarts), so the oldest come first.
  const windows = new Map<string, AddressWindow>();

  /** Drops finished windows from the front, and the oldest live ones while at capacity. */
  const makeRoom = (at: number) => {
    for (const [key, w] of windows) {
      if (at - w.start < windowMs && windows.size < maxTracked) return;
      windows.delete(key);
    }
  };

  return {
    /** The address's window if one is running at `at`. */
    current(address: string, at: number): AddressWindow | undefined {
      const w = windows.get(addressKey(address));
      return w && at - w.start < windowMs ? w : undefined;
    },
    /** The address's running window, or a new one (count 0) starting at `at`. */
    open(address: string, at: number): AddressWindow {
      const key = addressKey(address);
      let w = windows.get(key);
      if (!w || at - w.start >= windowMs) {
        windows.delete(key);
        makeRoom(at);
        w = { start: at, count: 0 };
        windows.set(key, w);
      }
      return w;
    },
  };
}

export function createAddressLimiter(options: AddressLimitOptions): AddressLimiter {
  const { limit, now } = options;
  const windowMs = options.windowMs ?? 60_000;
  const windows = createAddressWindows({ windowMs, maxTracked: options.maxTracked ?? 100_000 });
  return {
    take(address) {
      const at = now();
      const w = windows.open(address, at);
      const resetMs = Math.max(0, w.start + windowMs - at);
      if (w.count >= limit) return { allowed: false, limit, remaining: 0, resetMs };
      w.count++;
      const remaining = limit - w.count;
      return { allowed: true, limit, remaining, resetMs: remaining > 0 ? 0 : resetMs };
    },
  };
}
