/**
 * Waiting for any change in a room (the room board's poll): on the room's hub — woken by the change feed, whatever
 * process wrote — until the log's head moves past what the caller has seen, a signal comes (presence, locks, file
 * claims, the wheel: changes that append no event) after which the caller's look finds the room changed, the room
 * is deleted, or the time is up, or the client goes. Nothing is consumed and nothing is recorded.
 *
 * The caller's look comes first: what changed between two polls — on any process, while no hub listened here — is
 * found by it, and a caller that is behind, or asks not to wait, joins no hub.
 */
import type { RoomScope } from "../store/types.ts";
import type { LiveRooms, RoomHub, Watcher } from "./hub.ts";
import { nap } from "./nap.ts";

export interface ChangeWait {
  live: LiveRooms;
  scope: RoomScope;
  /** The head the caller has seen: a room whose head differs has changed (a new life of the room included). */
  afterSeq: number;
  /** Looks at the room as it stands now: true when it differs from what the caller shows. */
  changed(): Promise<boolean>;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Whether the room changed before the time was up (false: the wait timed out or the client went). */
export async function waitForChange(options: ChangeWait): Promise<boolean> {
  const { live, scope, afterSeq, signal } = options;
  if (await options.changed()) return true;
  if (options.timeoutMs === 0 || signal?.aborted) return false;

  let woken: (() => void) | undefined;
  // A signal, a failed read or a deletion the hub reports: the look tells whether it changed what the caller shows.
  let other = false;
  const watcher: Watcher = {
    onEvents(error) {
      if (error !== undefined) other = true;
      woken?.();
    },
    onSignal() {
      other = true;
      woken?.();
    },
  };
  const abort = () => woken?.();
  signal?.addEventListener("abort", abort);
  const deadline = performance.now() + options.timeoutMs;
  let hub: (RoomHub & { start: number }) | undefined;
  try {
    hub = await live.join({ roomId: scope.roomId, teamId: scope.teamId, observe: true }, watcher);
    const joined = hub;
    // A new hub reads the log once as it starts and wakes its watchers: only a head that moved is a change.
    const moved = () => joined.start !== afterSeq || joined.head !== afterSeq;
    while (!signal?.aborted) {
      if (moved()) return true;
      if (other) {
        other = false;
        if (await options.changed()) return true;
        continue;
      }
      const left = deadline - performance.now();
      if (left <= 0) break;
      const sleep = nap(left);
      woken = sleep.wake;
      await sleep.done;
      woken = undefined;
    }
    return moved();
  } finally {
    signal?.removeEventListener("abort", abort);
    hub?.leave();
  }
}
