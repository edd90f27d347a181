/**
 * wait_for_events (spec live.md §3): consume like get_unread_events, but when there is nothing for the agent, wait
 * on the room's hub — woken by the change feed, whatever process wrote — until an event addressed to it (or to
 * "all"), of the wanted types, is appended, or the time is up, or the client goes. Every delivery is a consume, so
 * concurrent waiters on one agent id together receive each event once.
 *
 * With `types`, only events of those types end the wait; when it ends, every unread event is returned (and
 * consumed), whatever its type, so none is ever skipped. Without types, any addressed event ends it.
 */
import type { RoomEvent, UnreadBatch } from "../protocol/records.ts";
import type { RoomScope, RoomStore } from "../store/types.ts";
import type { LiveRooms, RoomHub, Watcher } from "./hub.ts";

export interface WaitOptions {
  store: RoomStore;
  live: LiveRooms;
  scope: RoomScope;
  agent: string;
  limit: number;
  timeoutMs: number;
  types?: ReadonlySet<string>;
  /** Aborted when the client goes: the wait ends at once and leaves nothing behind. */
  signal?: AbortSignal;
}

export type WaitResult = UnreadBatch & { timedOut: boolean };

const SCAN = 100;

export async function waitForEvents(options: WaitOptions): Promise<WaitResult> {
  const { store, scope, agent, limit, types } = options;
  const consume = () => store.consumeEvents(scope, agent, limit);
  const wanted = (e: RoomEvent) =>
    (e.to === "all" || e.to === agent) && (types === undefined || types.has(e.type));

  // Fast path: something is waiting already (with types: something of those types).
  if (types === undefined) {
    const batch = await consume();
    if (batch.count > 0 || options.timeoutMs === 0) return { ...batch, timedOut: batch.count === 0 };
  } else {
    const found = await scanFrom(
      store,
      scope,
      (await store.consumeEvents(scope, agent, 0)).cursor ?? 0,
      wanted,
    );
    if (found.hit) {
      const batch = await consume();
      if (batch.count > 0) return { ...batch, timedOut: false };
    }
    if (options.timeoutMs === 0) return { ...(await store.consumeEvents(scope, agent, 0)), timedOut: true };
  }

  let woken: (() => void) | undefined;
  let dirty = false;
  const watcher: Watcher = {
    onEvents() {
      dirty = true;
      woken?.();
    },
    onSignal() {},
  };
  const deadline = performance.now() + options.timeoutMs;
  const abort = () => woken?.();
  options.signal?.addEventListener("abort", abort);
  let hub: RoomHub | undefined;
  try {
    const joined = await options.live.join(scope, watcher);
    hub = joined;
    // Events appended between the first look and the join are at or below the head the join read: look again.
    let checked = joined.start;
    const again = types === undefined ? await consume() : null;
    if (again && again.count > 0) return { ...again, timedOut: false };
    if (types !== undefined) {
      const cursor = (await store.consumeEvents(scope, agent, 0)).cursor ?? 0;
      const found = await scanFrom(store, scope, cursor, wanted, checked);
      if (found.hit) {
        const batch = await consume();
        if (batch.count > 0) return { ...batch, timedOut: false };
      }
    }
    while (!options.signal?.aborted) {
      dirty = false;
      // New events beyond what was checked: wake-worthy only if one is addressed to this agent (and wanted).
      while (checked < hub.head) {
        const events = await hub.eventsAfter(checked, SCAN);
        if (events.length === 0) break;
        checked = (events.at(-1) as RoomEvent).seq;
        if (events.some(wanted)) {
          const batch = await consume();
          if (batch.count > 0) return { ...batch, timedOut: false };
        }
      }
      const left = deadline - performance.now();
      if (left <= 0) break;
      if (dirty) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        woken = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      woken = undefined;
    }
    return { ...(await store.consumeEvents(scope, agent, 0)), timedOut: true };
  } finally {
    options.signal?.removeEventListener("abort", abort);
    hub?.leave();
  }
}

/** Whether an event `wanted` accepts follows seq `from` (up to `until`, default the log's head). */
async function scanFrom(
  store: RoomStore,
  scope: RoomScope,
  from: number,
  wanted: (e: RoomEvent) => boolean,
  until = Number.MAX_SAFE_INTEGER,
): Promise<{ hit: boolean }> {
  for (let after = from; after < until; ) {
    const page = await store.readLog(scope, after, SCAN);
    if (page.events.some((e) => e.seq <= until && wanted(e))) return { hit: true };
    const last = page.events.at(-1);
    if (!last || last.seq >= page.head) return { hit: false };
    after = last.seq;
  }
  return { hit: false };
}
