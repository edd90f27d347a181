/**
 * Live rooms in one process: one hub per watched room, shared by every stream and waiter of that room in the
 * process. A hub watches the room through the store's change feed (one subscription or poll entry per room, not
 * per watcher), reads new events once for everyone into a bounded cache, and wakes its watchers; a watcher that
 * falls behind the cache reads the store itself, by seq, so memory stays bounded whatever a slow client does.
 * Signals (presence, locks, …) are passed on coalesced to at most one per second per room and kind; the hub adds
 * the one no write reports, an agent going offline. A room that is deleted ends its hub: every watcher is told
 * (RoomGone) and the hub closes before anything of the room's next life — made again by the same team or another
 * — can reach it.
 */
import { RoomError } from "../protocol/errors.ts";
import { LIMITS } from "../protocol/limits.ts";
import type { RoomEvent } from "../protocol/records.ts";
import type { RoomChange, RoomScope, RoomStore, SignalKind } from "../store/types.ts";

/** Events kept per room for watchers that keep up; beyond it they read the store. */
export const CACHE_EVENTS = 1000;
/** And at most this many bytes of them (as JSON, estimated), per room. */
export const CACHE_BYTES = 4 * 1024 * 1024;

/** An event's size as JSON, estimated once per cached event (its payload dominates). */
function sizeOf(event: RoomEvent): number {
  const cached = sizes.get(event);
  if (cached !== undefined) return cached;
  const size = 200 + JSON.stringify(event.payload).length;
  sizes.set(event, size);
  return size;
}
const sizes = new WeakMap<RoomEvent, number>();
const READ_BATCH = 100;
const SIGNAL_EVERY_MS = 1000;
/** The offline signal waits this much past the moment, so a reader then sees the agent offline. */
const OFFLINE_SLACK_MS = 50;

/** What a watcher is told when its room was deleted (perhaps made again since): nothing it followed goes on. */
export class RoomGone extends Error {
  constructor() {
    super("the room was deleted");
    this.name = "RoomGone";
  }
}

export interface Watcher {
  /**
   * The log grew (or a read failed, or the room was deleted: `error` is set — RoomGone for a deletion — and the
   * watcher should close).
   */
  onEvents(error?: unknown): void;
  onSignal(kind: SignalKind): void;
}

export interface RoomHub {
  /** Highest seq known to this process. */
  readonly head: number;
  /** Up to `limit` events with seq > `after`, oldest first: from the cache when it holds them, else the store. */
  eventsAfter(after: number, limit: number): Promise<RoomEvent[]>;
  /** Stops watching for this watcher; the hub closes with its last watcher. */
  leave(): void;
}

export interface LiveRooms {
  /**
   * Starts watching `scope`'s room for `watcher`. Resolves with the hub once the room's head is known (`start`:
   * the head the store had at the join, where "the next new event" begins); rejects (nothing left behind) when the
   * room cannot be read, e.g. another team's room.
   */
  join(scope: RoomScope, watcher: Watcher): Promise<RoomHub & { exists: boolean; start: number }>;
  /** Rooms with a hub in this process (tests and metrics). */
  readonly rooms: number;
  /** Ends every watcher (their streams close, their waits return) and every hub: shutdown. */
  close(): void;
  /** Calls `listener` once at close() (streams that watch no hub, e.g. a dashboard's); returns its removal. */
  onClose(listener: () => void): () => void;
}

interface Hub {
  scope: RoomScope;
  head: number;
  cache: RoomEvent[];
  watchers: Set<Watcher>;
  stop: () => void;
  fetching?: Promise<void>;
  /** A change came in since the current read started. */
  stale: boolean;
  lastSignal: Map<SignalKind, number>;
  pendingSignal: Map<SignalKind, ReturnType<typeof setTimeout>>;
  /** Fires when the next agent of the room goes offline (a change no write reports). */
  offlineTimer?: ReturnType<typeof setTimeout>;
  /** Set once close() ran: a hub stops its feed subscription once, whatever calls close. */
  closed: boolean;
  /** Estimated bytes of the cached events (their JSON), bounded by CACHE_BYTES. */
  cacheBytes: number;
  /** The room has existed while this hub watched it: from then on, its absence means it was deleted. */
  existed: boolean;
}

export function createLiveRooms(store: RoomStore, now: () => number = Date.now): LiveRooms {
  const hubs = new Map<string, Hub>();
  const closing = new Set<() => void>();

  /** Reads what the store has beyond the cache, once for every watcher, then wakes them. */
  function refresh(hub: Hub): Promise<void> {
    // A change reported while a read is under way may be newer than what that read saw: read again after it.
    hub.stale = true;
    hub.fetching ??= (async () => {
      try {
        while (hub.stale) {
          hub.stale = false;
          await readAhead(hub);
        }
        for (const watcher of hub.watchers) watcher.onEvents();
      } catch (error) {
        if (error instanceof RoomGone) gone(hub);
        else for (const watcher of hub.watchers) watcher.onEvents(error);
      } finally {
        hub.fetching = undefined;
      }
    })();
    return hub.fetching;
  }

  /** The room's log page after `last`; RoomGone when what it shows can only mean the room was deleted. */
  async function readPage(hub: Hub, last: number) {
    let page: Awaited<ReturnType<RoomStore["readLog"]>>;
    try {
      page = await store.readLog(hub.scope, last, READ_BATCH);
    } catch (error) {
      // The team's room is now another team's: it was deleted and made again by them.
      if (hub.existed && error instanceof RoomError && error.kind === "denied") throw new RoomGone();
      throw error;
    }
    // Gone, or a log shorter than this hub has seen (a new life starts again at seq 1): it was deleted.
    if (hub.existed && (!page.exists || page.head < hub.head)) throw new RoomGone();
    if (page.exists) hub.existed = true;
    return page;
  }

  /** Reads the log beyond the cache until the head this process knows of. */
  async function readAhead(hub: Hub): Promise<void> {
    for (;;) {
      const last = hub.cache.at(-1)?.seq ?? hub.head;
      const page = await readPage(hub, last);
      hub.head = page.head;
      // The cache holds contiguous seqs; a page that does not continue it replaces it.
      if (page.events[0] && page.events[0].seq !== last + 1) {
        hub.cache = [];
        hub.cacheBytes = 0;
      }
      for (const event of page.events) {
        hub.cache.push(event);
        hub.cacheBytes += sizeOf(event);
      }
      // Bounded by count and by bytes (events of 64 KB payloads would make 1,000 of them 64 MB).
      let drop = 0;
      while (
        drop < hub.cache.length - 1 &&
        (hub.cache.length - drop > CACHE_EVENTS || hub.cacheBytes > CACHE_BYTES)
      ) {
        hub.cacheBytes -= sizeOf(hub.cache[drop] as RoomEvent);
        drop++;
      }
      if (drop > 0) hub.cache.splice(0, drop);
      if (page.events.length < READ_BATCH || (hub.cache.at(-1)?.seq ?? 0) >= hub.head) break;
    }
  }

  /**
   * Going offline is the passing of time, not a write, so no feed reports it: after each presence change the hub
   * reads the room's presence once and sets a timer for the moment the next online agent goes offline.
   */
  async function scheduleOffline(hub: Hub): Promise<void> {
    try {
      const presence = await store.getPresence(hub.scope);
      if (hubs.get(hub.scope.roomId) !== hub) return;
      const at = presence
        .filter((p) => p.status === "online")
        .map((p) => Date.parse(p.lastSeen) + LIMITS.presenceOnlineMs)
        .reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);
      clearTimeout(hub.offlineTimer);
      hub.offlineTimer = undefined;
      if (at === Number.POSITIVE_INFINITY) return;
      hub.offlineTimer = setTimeout(
        () => signal(hub, "presence"),
        Math.max(0, at - now()) + OFFLINE_SLACK_MS,
      );
      hub.offlineTimer.unref?.();
    } catch {
      // The store is down: the next presence change schedules again.
    }
  }

  function signal(hub: Hub, kind: SignalKind): void {
    if (hub.pendingSignal.has(kind)) return;
    const wait = (hub.lastSignal.get(kind) ?? Number.NEGATIVE_INFINITY) + SIGNAL_EVERY_MS - now();
    const fire = () => {
      hub.pendingSignal.delete(kind);
      hub.lastSignal.set(kind, now());
      if (kind === "presence") void scheduleOffline(hub);
      for (const watcher of hub.watchers) watcher.onSignal(kind);
    };
    if (wait <= 0) fire();
    else hub.pendingSignal.set(kind, setTimeout(fire, wait));
  }

  function onChange(hub: Hub, change: RoomChange): void {
    if ("signal" in change) signal(hub, change.signal);
    // seq 0: the room was deleted (or a new life of it begins). The feed says so before anything of a next life,
    // so the hub ends here, before a signal or event of the next owner can reach its watchers.
    else if ("seq" in change && change.seq === 0) {
      if (hub.existed) gone(hub);
      else void refresh(hub);
    } else if ("resync" in change || change.seq > (hub.cache.at(-1)?.seq ?? hub.head)) void refresh(hub);
  }

  /** The room was deleted: every watcher is told, and the hub closes (a later join starts a new one). */
  function gone(hub: Hub): void {
    if (hub.closed) return;
    close(hub);
    for (const watcher of [...hub.watchers]) watcher.onEvents(new RoomGone());
  }

  function close(hub: Hub): void {
    if (hub.closed) return;
    hub.closed = true;
    hub.stop();
    clearTimeout(hub.offlineTimer);
    for (const timer of hub.pendingSignal.values()) clearTimeout(timer);
    if (hubs.get(hub.scope.roomId) === hub) hubs.delete(hub.scope.roomId);
  }

  return {
    get rooms() {
      return hubs.size;
    },
    onClose(listener) {
      closing.add(listener);
      return () => closing.delete(listener);
    },
    close() {
      for (const listener of [...closing]) listener();
      closing.clear();
      for (const hub of [...hubs.values()]) {
        for (const watcher of [...hub.watchers]) watcher.onEvents(new Error("shutting down"));
        close(hub);
      }
    },
    async join(scope, watcher) {
      // The room's head as the store has it now (and proof the team may read it), before any hub is made.
      const first = await store.readLog(
        { roomId: scope.roomId, teamId: scope.teamId, observe: true },
        Number.MAX_SAFE_INTEGER,
        1,
      );
      let hub = hubs.get(scope.roomId);
      if (hub && hub.scope.teamId !== scope.teamId) {
        // The room changed hands since this hub was made: its watchers belong to a team that lost it.
        for (const w of hub.watchers) w.onEvents(new Error("room changed owner"));
        close(hub);
        hub = undefined;
      }
      if (!hub) {
        const created: Hub = {
          // Watching is looking on: the hub's reads record no use of the room (its expiry stays).
          scope: { roomId: scope.roomId, teamId: scope.teamId, observe: true },
          head: first.head,
          cache: [],
          watchers: new Set(),
          stop: () => {},
          stale: false,
          closed: false,
          cacheBytes: 0,
          existed: first.exists,
          lastSignal: new Map(),
          pendingSignal: new Map(),
        };
        created.stop = store.changes.watch(scope.roomId, (change) => onChange(created, change));
        hubs.set(scope.roomId, created);
        hub = created;
        // A change between the read above and the watch would be missed: read once more now that it watches.
        void refresh(created);
        void scheduleOffline(created);
      }
      const joined = hub;
      joined.existed ||= first.exists;
      joined.watchers.add(watcher);
      // The store is ahead of this process's hub (a change it has not heard of yet): read it now, for every
      // watcher — raising the head without reading would leave the others waiting for a change already seen.
      if (first.head > joined.head) void refresh(joined);
      return {
        exists: first.exists,
        start: first.head,
        get head() {
          return joined.head;
        },
        async eventsAfter(after, limit) {
          const start = joined.cache[0]?.seq;
          if (start !== undefined && after >= start - 1 && after < (joined.cache.at(-1)?.seq ?? 0)) {
            const from = after - start + 1;
            return joined.cache.slice(from, from + limit);
          }
          if (after >= joined.head) return [];
          return (await store.readLog(joined.scope, after, Math.min(limit, READ_BATCH))).events;
        },
        leave() {
          joined.watchers.delete(watcher);
          if (joined.watchers.size === 0) close(joined);
        },
      };
    },
  };
}
