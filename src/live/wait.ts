/**
 * wait_for_events (live rooms): consume like get_unread_events, but when there is nothing for the agent, wait on
 * the room's hub — woken by the change feed, whatever process wrote — until an event addressed to it (or to
 * "all"), of the wanted types, is appended, or the time is up, or the client goes. Every delivery is a consume, so
 * concurrent waiters on one agent id together receive each event once.
 *
 * With `types`, only events of those types end the wait; when it ends, every unread event is returned (and
 * consumed), whatever its type, so none is ever skipped. Looking for a wanted type reads the log after the agent's
 * cursor, so it is bounded: with more than TYPE_SCAN_MAX events unread, or unread events spread over more than
 * SCAN_READ_MAX of the room's events, the wait returns at once with the oldest of them (the agent has reading to
 * do first). Without types, any addressed event ends it.
 */
import type { RoomEvent, UnreadBatch } from "../protocol/records.ts";
import type { RoomScope, RoomStore } from "../store/types.ts";
import { type LiveRooms, RoomGone, type RoomHub, type Watcher } from "./hub.ts";
import { nap } from "./nap.ts";

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
/** Most unread events (addressed to the agent) a wait with `types` looks through for one of them. */
export const TYPE_SCAN_MAX = 500;
/** Most of the room's events read in one look for a wanted type (the unread ones may lie among many others). */
const SCAN_READ_MAX = 2000;

export async function waitForEvents(options: WaitOptions): Promise<WaitResult> {
  const { store, scope, agent, limit, types } = options;
  // Reads made to decide when to consume carry neither the call's idempotency key nor its actor: only the consume
  // is the call's write (a read under the key would be kept as the call's result and replayed to the consume).
  const readScope: RoomScope = {
    roomId: scope.roomId,
    teamId: scope.teamId,
    ...(scope.mayClaim !== undefined ? { mayClaim: scope.mayClaim } : {}),
  };
  const consume = () => store.consumeEvents(scope, agent, limit);
  /** Where the agent's cursor is and how much waits, delivering nothing (so keeping nothing under the key). */
  const peek = () => store.consumeEvents(scope, agent, 0);
  const wanted = (e: RoomEvent) =>
    (e.to === "all" || e.to === agent) && (types === undefined || types.has(e.type));

  /** With types: true when an unread event of those types waits, or when there is too much to look through. */
  const typedReady = async (until = Number.MAX_SAFE_INTEGER): Promise<boolean> => {
    const at = await peek();
    if (at.remaining === 0) return false;
    if (at.remaining > TYPE_SCAN_MAX) return true;
    // The agent's unread events may lie among many others': past SCAN_READ_MAX read, stop looking and deliver.
    return (await scanFrom(store, readScope, at.cursor ?? 0, wanted, until)) !== "miss";
  };

  // Fast path: something is waiting already (with types: something of those types).
  if (types === undefined) {
    const batch = await consume();
    if (batch.count > 0 || options.timeoutMs === 0) return { ...batch, timedOut: batch.count === 0 };
  } else {
    if (await typedReady()) {
      const batch = await consume();
      if (batch.count > 0) return { ...batch, timedOut: false };
    }
    if (options.timeoutMs === 0) return { ...(await peek()), timedOut: true };
  }

  let woken: (() => void) | undefined;
  let dirty = false;
  // The room was deleted under the wait: nothing it waited for can come; it ends as if its time were up.
  let gone = false;
  const watcher: Watcher = {
    onEvents(error) {
      if (error instanceof RoomGone) gone = true;
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
    const joined = await options.live.join(readScope, watcher);
    hub = joined;
    // Events appended between the first look and the join are at or below the head the join read: look again.
    let checked = joined.start;
    if (types === undefined) {
      const again = await consume();
      if (again.count > 0) return { ...again, timedOut: false };
    } else if (await typedReady(checked)) {
      const batch = await consume();
      if (batch.count > 0) return { ...batch, timedOut: false };
    }
    while (!options.signal?.aborted && !gone) {
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
      const sleep = nap(left);
      woken = sleep.wake;
      await sleep.done;
      woken = undefined;
    }
    return { ...(await peek()), timedOut: true };
  } finally {
    options.signal?.removeEventListener("abort", abort);
    hub?.leave();
  }
}

/**
 * Whether an event `wanted` accepts follows seq `from` (up to `until`, default the log's head): "hit", "miss", or
 * "unknown" once SCAN_READ_MAX events were read without an answer.
 */
async function scanFrom(
  store: RoomStore,
  scope: RoomScope,
  from: number,
  wanted: (e: RoomEvent) => boolean,
  until = Number.MAX_SAFE_INTEGER,
): Promise<"hit" | "miss" | "unknown"> {
  let read = 0;
  for (let after = from; after < until; ) {
    if (read >= SCAN_READ_MAX) return "unknown";
    const page = await store.readLog(scope, after, SCAN);
    read += page.events.length;
    if (page.events.some((e) => e.seq <= until && wanted(e))) return "hit";
    const last = page.events.at(-1);
    if (!last || last.seq >= page.head) return "miss";
    after = last.seq;
  }
  return "miss";
}
