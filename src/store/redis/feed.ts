/**
 * The change feed of the Redis driver (types.ts ChangeFeed). With a client that can subscribe (TCP, Cluster), each
 * watched room's channel `room:{<roomId>}:feed` is subscribed once per process (sharded pub/sub, on the node of
 * the room's slot) and the scripts publish to it as they write: "<seq>" when the log grows, "s:<kind>" for a
 * signal. With a REST client (Upstash), which cannot hold a subscription, one request every `pollMs` reads the log
 * heads, signal counters, owners and creation times of every watched room at once: the cost grows with the number
 * of watched rooms per request, never with the number of watchers, and is nothing while nothing is watched. A
 * deletion is "0" on the channel (published by the deleting script, and again by the claim that starts a new
 * life); the polled feed reports one as seq 0 when a room's owner or creation time changed or its head went down.
 */
import { type ChangeFeed, type RoomChange, SIGNAL_KINDS, type SignalKind } from "../types.ts";
import type { ScriptClient } from "./client.ts";
import { type RunOptions, runScript } from "./run.ts";
import { FEED_SCRIPTS } from "./scripts.ts";

/** A REST client's default tick: 5 requests/s while anything is watched (UPSTASH_POLL_MS, docs/operations.md). */
export const DEFAULT_POLL_MS = 200;
/** After a failed subscription (store down), try again this often while the room is watched. */
const RETRY_MS = 1000;

type Listener = (change: RoomChange) => void;

export interface RedisFeed extends ChangeFeed {
  close(): Promise<void>;
}

/** A channel message as a change: "<seq>" or "s:<kind>"; anything else is ignored. */
export function parseFeedMessage(roomId: string, message: string): RoomChange | null {
  if (/^\d+$/.test(message)) return { roomId, seq: Number(message) };
  const kind = message.startsWith("s:") ? message.slice(2) : "";
  return (SIGNAL_KINDS as readonly string[]).includes(kind) ? { roomId, signal: kind as SignalKind } : null;
}

export function createRedisFeed(client: ScriptClient, run: RunOptions, pollMs = DEFAULT_POLL_MS): RedisFeed {
  const listeners = new Map<string, Set<Listener>>();
  const emit = (change: RoomChange) => {
    for (const listener of listeners.get(change.roomId) ?? []) {
      try {
        listener(change);
      } catch {
        // One watcher's failure must not cost the others their changes.
      }
    }
  };
  const backend = client.subscribeSharded
    ? subscribed(client, emit)
    : polled(run, () => [...listeners.keys()], emit, pollMs);
  return {
    watch(roomId, onChange) {
      let set = listeners.get(roomId);
      if (!set) {
        set = new Set();
        listeners.set(roomId, set);
        backend.start(roomId);
      }
      set.add(onChange);
      return () => {
        set.delete(onChange);
        if (set.size > 0 || listeners.get(roomId) !== set) return;
        listeners.delete(roomId);
        backend.stop(roomId);
      };
    },
    close: () => backend.close(),
    // A subscription of a channel no room uses, dropped at once: the subscribing connection answers now.
    ...(client.subscribeSharded
      ? { probe: async () => void (await (await client.subscribeSharded?.(PROBE_CHANNEL, () => {}))?.()) }
      : {}),
  };
}

/** The channel GET /readyz subscribes to (no script publishes on it). */
const PROBE_CHANNEL = "roomd:{readyz}:probe";

interface Backend {
  start(roomId: string): void;
  stop(roomId: string): void;
  close(): Promise<void>;
}

/** One sharded subscription per watched room, retried while the room stays watched. */
function subscribed(client: ScriptClient, emit: Listener): Backend {
  const subscribe = client.subscribeSharded as NonNullable<ScriptClient["subscribeSharded"]>;
  const active = new Map<string, { stop?: () => Promise<void>; timer?: ReturnType<typeof setTimeout> }>();
  const attempt = (roomId: string) => {
    const entry = active.get(roomId);
    if (!entry) return;
    subscribe(`room:{${roomId}}:feed`, (message) => {
      const change = parseFeedMessage(roomId, message);
      if (change) emit(change);
    }).then(
      (stop) => {
        if (active.get(roomId) !== entry) return void stop();
        entry.stop = stop;
        // Writes published before the subscription took effect reached nobody: watchers re-read the log.
        emit({ roomId, resync: true });
      },
      () => {
        if (active.get(roomId) === entry) entry.timer = setTimeout(() => attempt(roomId), RETRY_MS);
      },
    );
  };
  return {
    start(roomId) {
      active.set(roomId, {});
      attempt(roomId);
    },
    stop(roomId) {
      const entry = active.get(roomId);
      active.delete(roomId);
      if (entry?.timer) clearTimeout(entry.timer);
      void entry?.stop?.();
    },
    async close() {
      const entries = [...active.values()];
      active.clear();
      for (const entry of entries) if (entry.timer) clearTimeout(entry.timer);
      await Promise.allSettled(entries.map((e) => e.stop?.()));
    },
  };
}

/** The meta fields of the signal counters (lua-prelude.ts signal), in SIGNAL_KINDS order. */
const SIGNAL_FIELDS = SIGNAL_KINDS.map((k) => `sig_${k}`);

/** One FEED_HEADS request per tick for every watched room, compared with what the last tick saw. */
function polled(run: RunOptions, rooms: () => string[], emit: Listener, pollMs: number): Backend {
  // Per room: [event_seq, one counter per signal kind, "<owner> <created_at>" ("" for no room)].
  const known = new Map<string, (number | string)[]>();
  const LIFE = SIGNAL_KINDS.length + 1;
  let timer: ReturnType<typeof setInterval> | undefined;
  let busy = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      const ids = rooms();
      if (ids.length === 0) return;
      const keys = ids.map((id) => `room:{${id}}:meta`);
      const argv: string[] = [];
      FEED_SCRIPTS.FEED_HEADS.encode({ fields: SIGNAL_FIELDS }, argv);
      const { ok } = await runScript(run, FEED_SCRIPTS.FEED_HEADS, keys, argv);
      ids.forEach((roomId, i) => {
        const now = ok[i] ?? [];
        const before = known.get(roomId);
        known.set(roomId, now);
        // The first look at a room: writes between the watcher's own read and this tick are caught up here.
        if (!before) {
          emit({ roomId, resync: true });
          return;
        }
        const [head, last] = [Number(now[0] ?? 0), Number(before[0] ?? 0)];
        // Deleted (and perhaps made again) since the last tick: gone, another owner or creation time, or a head
        // gone down. Said first, before anything of the room's next life.
        const ended = (before[LIFE] ?? "") !== "" && (now[LIFE] !== before[LIFE] || head < last);
        if (ended) emit({ roomId, seq: 0 });
        if (head > (ended ? 0 : last)) emit({ roomId, seq: head });
        SIGNAL_KINDS.forEach((signal, k) => {
          if ((now[k + 1] ?? 0) !== (before[k + 1] ?? 0)) emit({ roomId, signal });
        });
      });
    } catch {
      // The store is down or slow: the next tick asks again.
    } finally {
      busy = false;
    }
  };
  return {
    start() {
      if (!timer) {
        timer = setInterval(tick, pollMs);
        timer.unref?.();
      }
      void tick();
    },
    stop(roomId) {
      known.delete(roomId);
      if (rooms().length === 0 && timer) {
        clearInterval(timer);
        timer = undefined;
      }
    },
    async close() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
