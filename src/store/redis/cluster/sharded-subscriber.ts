/**
 * Sharded pub/sub over a cluster: each channel is subscribed (SSUBSCRIBE) on the primary serving its slot, with
 * one connection per node shared by every channel placed there. A channel whose node drops it (slot moved) or
 * whose connection closes (failover, restart) is placed again — on whichever primary the reloaded slot map
 * names — until it succeeds or nobody listens any more. Messages published while a channel is being placed
 * again are not seen: listeners must treat a message as a hint and read the state itself.
 */
import { beforeDeadline } from "../run.ts";
import { clusterAnswer } from "./route.ts";
import { openShardConnection, type ShardConnection, type ShardEvents } from "./shard-connection.ts";
import { keySlot } from "./slot.ts";
import type { SlotMap } from "./slot-map.ts";
import type { ClusterSeeds } from "./url.ts";

/** Called with each message published on the channel (SPUBLISH). */
export type ShardedListener = (message: string, channel: string) => void;

export interface ShardedSubscriber {
  /**
   * Listens on a sharded channel. Resolves once the owning primary has confirmed the subscription (rejects if
   * that does not happen within the client's timeout); the returned function stops listening.
   */
  subscribe(channel: string, listener: ShardedListener): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface SubscriberDeps {
  map: SlotMap;
  seeds: ClusterSeeds;
  timeoutMs: number;
}

/** Sharded subscriptions placed by `map`, on connections authenticated as `seeds` says, bounded by `timeoutMs`. */
export function createShardedSubscriber({ map, seeds, timeoutMs }: SubscriberDeps): ShardedSubscriber {
  const listeners = new Map<string, Set<ShardedListener>>();
  const placed = new Map<string, ShardConnection>();
  const placing = new Map<string, Promise<void>>();
  const connections = new Map<string, Promise<ShardConnection>>();
  let closed = false;

  const wanted = (channel: string) => !closed && listeners.has(channel);

  function connection(address: string): Promise<ShardConnection> {
    const existing = connections.get(address);
    if (existing) return existing;
    let self: ShardConnection | undefined;
    const events: ShardEvents = {
      message(channel, message) {
        for (const listener of listeners.get(channel) ?? []) {
          try {
            listener(message, channel);
          } catch {
            // One listener's failure must not cost the others their messages.
          }
        }
      },
      dropped(channel) {
        if (placed.get(channel) !== self) return;
        placed.delete(channel);
        replace(channel);
      },
      closed() {
        if (connections.get(address) === opening) connections.delete(address);
        for (const [channel, conn] of placed) {
          if (conn !== self) continue;
          placed.delete(channel);
          replace(channel);
        }
      },
    };
    const opening = openShardConnection(address, seeds, events, timeoutMs).then((conn) => {
      self = conn;
      return conn;
    });
    connections.set(address, opening);
    opening.catch(() => {
      if (connections.get(address) === opening) connections.delete(address);
    });
    return opening;
  }

  /** Subscribes `channel` on its slot's primary; retries until done, unwanted, or past `deadline` (if any). */
  async function place(channel: string, deadline?: number): Promise<void> {
    const slot = keySlot(channel);
    let last: unknown;
    for (let attempt = 0; wanted(channel); attempt++) {
      if (deadline !== undefined && performance.now() >= deadline) {
        throw new Error(`could not subscribe to ${channel} in time`, { cause: last });
      }
      const owner =
        map.owner(slot) ??
        (await map.refresh().then(
          () => map.owner(slot),
          () => undefined,
        ));
      if (owner) {
        try {
          const conn = await connection(owner);
          await conn.ssubscribe(channel);
          if (!wanted(channel)) return conn.sunsubscribe(channel);
          placed.set(channel, conn);
          return;
        } catch (err) {
          last = err;
          const answer = clusterAnswer(err, owner);
          if (answer?.kind === "moved") map.moved(slot, answer.address);
          await map.refresh().catch(() => {});
          if (answer?.kind === "moved" && attempt < 3) continue;
        }
      }
      const left = deadline === undefined ? 250 : deadline - performance.now();
      await Bun.sleep(Math.max(0, Math.min(50 * 2 ** Math.min(attempt, 5), 250, left)));
    }
  }

  /** Starts (or joins) placing `channel`; a first subscription bounds it, a lost one retries without end. */
  function replace(channel: string, deadline?: number): Promise<void> {
    let running = placing.get(channel);
    if (!running) {
      running = place(channel, deadline).finally(() => placing.delete(channel));
      placing.set(channel, running);
    }
    return running;
  }

  function stopListening(channel: string, listener: ShardedListener) {
    const set = listeners.get(channel);
    if (!set?.delete(listener) || set.size > 0) return;
    listeners.delete(channel);
    const conn = placed.get(channel);
    placed.delete(channel);
    // The node's connection stays open for the next channel placed there: one connection per node.
    conn?.sunsubscribe(channel);
  }

  return {
    async subscribe(channel, listener) {
      if (closed) throw new Error("the cluster client is closed");
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
      }
      set.add(listener);
      const deadline = performance.now() + timeoutMs;
      try {
        if (!placed.has(channel)) await beforeDeadline(replace(channel, deadline), deadline);
        if (!placed.has(channel)) throw new Error(`could not subscribe to ${channel}`);
      } catch (err) {
        stopListening(channel, listener);
        throw err;
      }
      return async () => stopListening(channel, listener);
    },
    async close() {
      closed = true;
      listeners.clear();
      placed.clear();
      const open = [...connections.values()];
      connections.clear();
      await Promise.all(
        open.map((c) =>
          c.then(
            (conn) => conn.close(),
            () => {},
          ),
        ),
      );
    },
  };
}
