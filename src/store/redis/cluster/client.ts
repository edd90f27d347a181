/**
 * The Redis Cluster ScriptClient: a slot router over one Bun RedisClient per node. Each call is routed by the
 * slot of its first key (all of an operation's keys share one hash tag, hence one slot) and retried only inside
 * the caller's deadline and only when the cluster's answer proves it did not run (see route.ts). It also
 * subscribes to sharded channels (see sharded-subscriber.ts) for live notification.
 */
import { type ScriptClient, scanAll } from "../client.ts";
import { beforeDeadline } from "../run.ts";
import { createNodePool } from "./nodes.ts";
import { createRouter } from "./route.ts";
import { createShardedSubscriber, type ShardedListener } from "./sharded-subscriber.ts";
import { keySlot, SLOTS } from "./slot.ts";
import { createSlotMap } from "./slot-map.ts";
import { parseClusterUrl } from "./url.ts";

export interface ClusterClientOptions {
  /** The store's per-call budget: connection timeout, and the deadline of calls made without one. */
  timeoutMs: number;
}

/** A ScriptClient on a cluster, plus sharded pub/sub. */
export interface ClusterScriptClient extends ScriptClient {
  /**
   * Listens on a sharded channel (a name with a hash tag, e.g. `room:{<roomId>}:feed`, lives in that room's
   * slot). Resolves once the primary serving the slot confirms (rejects after the client's timeout); the
   * subscription then follows the slot through MOVED, resharding, failover and reconnects until the returned
   * function is called. Messages published while it is being re-established are missed.
   */
  subscribeSharded(channel: string, onMessage: ShardedListener): Promise<() => Promise<void>>;
}

/**
 * `url`: `redis-cluster://[user:password@]host:port[,host:port…]`, or a redis:// / rediss:// URL of one seed.
 * Connects lazily: the slot map is loaded by the first call.
 */
export function createClusterScriptClient(url: string, options: ClusterClientOptions): ClusterScriptClient {
  const seeds = parseClusterUrl(url);
  const pool = createNodePool(seeds, options.timeoutMs);
  // Each map load is bounded on its own: a hung node must not hold up every later reload.
  const map = createSlotMap(seeds.seeds, async (address, command, args) => {
    const deadline = performance.now() + options.timeoutMs;
    const client = await beforeDeadline(pool.connected(address), deadline);
    return beforeDeadline(client.send(command, args), deadline);
  });
  const router = createRouter(map, pool);
  const subscriber = createShardedSubscriber({ map, seeds, timeoutMs: options.timeoutMs });

  const within = (deadline?: number) => deadline ?? performance.now() + options.timeoutMs;
  const slotOf = (keys: string[]) => {
    if (keys[0] === undefined) throw new Error("a cluster call needs a key to route by");
    return keySlot(keys[0]);
  };

  return {
    evalsha: (sha, keys, args, deadline) =>
      router.send(slotOf(keys), "EVALSHA", [sha, String(keys.length), ...keys, ...args], within(deadline)),
    eval: (script, keys, args, deadline) =>
      router.send(slotOf(keys), "EVAL", [script, String(keys.length), ...keys, ...args], within(deadline)),
    ping: (deadline) => router.any("PING", [], within(deadline)),
    // Every primary of the current map holds its own keys: SCAN each to its end.
    async scan(pattern) {
      await map.refresh();
      const primaries = [...new Set(Array.from({ length: SLOTS }, (_, slot) => map.owner(slot)))].filter(
        (node): node is string => node !== undefined,
      );
      const keys: string[] = [];
      for (const node of primaries) {
        const client = await pool.connected(node);
        keys.push(
          ...(await scanAll((cursor) => client.send("SCAN", [cursor, "MATCH", pattern, "COUNT", "1000"]))),
        );
      }
      return keys;
    },
    subscribeSharded: (channel, onMessage) => subscriber.subscribe(channel, onMessage),
    close: async () => {
      await subscriber.close();
      pool.close();
    },
  };
}
