/**
 * Repeated authentication failures from one client address are limited in memory, before any hashing or store
 * work: a guessing client is turned away cheaply (spec access.md §1). Per process, by design: it protects this
 * process's CPU and the store, not a global budget.
 */
export interface FailureLimiter {
  blocked(address: string): boolean;
  note(address: string): void;
}

export function createFailureLimiter(maxPerMinute = 30, now: () => number = Date.now): FailureLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  const current = (address: string) => {
    const w = windows.get(address);
    return w && now() - w.start < 60_000 ? w : undefined;
  };
  return {
    blocked: (address) => (current(address)?.count ?? 0) >= maxPerMinute,
    note(address) {
      const w = current(address);
      if (w) w.count++;
      else {
        // Bounded memory under a spray of addresses: drop finished windows when the map grows.
        if (windows.size > 10_000)
          for (const [a, old] of windows) if (now() - old.start >= 60_000) windows.delete(a);
        windows.set(address, { start: now(), count: 1 });
      }
    },
  };
}
