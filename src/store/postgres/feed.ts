/**
 * The change feed of the PostgreSQL driver (types.ts ChangeFeed): LISTEN / NOTIFY. A write queues its changes
 * (the log's new head, signals) and sends them as its transaction's last statement, `pg_notify` on the channel
 * `roomd_feed` — PostgreSQL delivers them only when the transaction commits, to every listening connection of
 * every process, and drops them when it rolls back. Each process holds one LISTEN connection (opened on the
 * first watch) and passes each notification to the watchers of its room: no polling, whatever the number of
 * watchers.
 *
 * Payloads: "<roomId> <seq>" when the log grew, "<roomId> s:<kind>" for a signal. When the listening connection
 * is established, and each time Bun's client re-establishes it after it dropped, every watched room gets `resync`
 * (anything sent before may have been missed), and so does every watched room once every RESYNC_MS, in case a
 * connection died without anyone noticing.
 */
import { type ChangeFeed, type RoomChange, SIGNAL_KINDS, type SignalKind } from "../types.ts";
import type { Pg } from "./db.ts";

export const CHANNEL = "roomd_feed";
const RESYNC_MS = 15_000;

type Listener = (change: RoomChange) => void;

export interface PgFeed {
  readonly feed: ChangeFeed;
  /** Inside a write: the room's log reached `seq`. */
  appended(roomId: string, seq: number): void;
  /** Inside a write: a signal of the room. */
  signal(roomId: string, kind: SignalKind): void;
  close(): Promise<void>;
}

export function parseNotification(payload: string): RoomChange | null {
  const space = payload.indexOf(" ");
  if (space <= 0) return null;
  const roomId = payload.slice(0, space);
  const rest = payload.slice(space + 1);
  if (/^\d+$/.test(rest)) return { roomId, seq: Number(rest) };
  const kind = rest.startsWith("s:") ? rest.slice(2) : "";
  return (SIGNAL_KINDS as readonly string[]).includes(kind) ? { roomId, signal: kind as SignalKind } : null;
}

export function createPgFeed(pg: Pg): PgFeed {
  const listeners = new Map<string, Set<Listener>>();
  let listening: Promise<{ unlisten(): Promise<void> } | null> | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;

  const emit = (change: RoomChange) => {
    for (const listener of listeners.get(change.roomId) ?? []) {
      try {
        listener(change);
      } catch {
        // One watcher's failure must not cost the others their changes.
      }
    }
  };
  const resyncAll = () => {
    for (const roomId of listeners.keys()) emit({ roomId, resync: true });
  };

  function listen(): void {
    if (listening) return;
    const attempt = async () => {
      try {
        // onlisten runs once LISTEN is acknowledged, and again each time Bun's client has re-established the
        // session after it dropped: anything sent in between was missed, so every watched room is re-read.
        const handle = await pg.sql.listen(
          CHANNEL,
          (payload: string) => {
            const change = parseNotification(payload);
            if (change) emit(change);
          },
          resyncAll,
        );
        return handle as unknown as { unlisten(): Promise<void> };
      } catch {
        // The database is down: try again while anything is watched.
        listening = undefined;
        if (listeners.size > 0) setTimeout(listen, 1000).unref?.();
        return null;
      }
    };
    listening = attempt();
    timer ??= setInterval(resyncAll, RESYNC_MS);
    timer.unref?.();
  }

  /** The changes the current transaction will send, sent as its last statement. */
  const queue = () =>
    pg.txValue<string[]>("feed", (beforeCommit) => {
      const payloads: string[] = [];
      beforeCommit(async () => {
        if (payloads.length === 0) return;
        await pg
          .query<unknown, [string[]]>(`SELECT pg_notify('${CHANNEL}', p) FROM unnest(?::text[]) AS p`)
          .run(payloads);
      });
      return payloads;
    });

  return {
    feed: {
      watch(roomId, onChange) {
        let set = listeners.get(roomId);
        if (!set) {
          set = new Set();
          listeners.set(roomId, set);
        }
        set.add(onChange);
        listen();
        return () => {
          set.delete(onChange);
          if (set.size === 0 && listeners.get(roomId) === set) listeners.delete(roomId);
        };
      },
      // The LISTEN connection the feed uses (opened now if nothing is watched yet): refused while it is down.
      async probe() {
        listen();
        if (!(await listening)) throw new Error("the change feed's LISTEN connection is down");
      },
    },
    appended(roomId, seq) {
      queue()?.push(`${roomId} ${seq}`);
    },
    signal(roomId, kind) {
      queue()?.push(`${roomId} s:${kind}`);
    },
    async close() {
      if (timer) clearInterval(timer);
      timer = undefined;
      listeners.clear();
      const handle = await listening;
      listening = undefined;
      await handle?.unlisten().catch(() => {});
    },
  };
}
