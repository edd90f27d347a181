/** ScriptClient over Bun's built-in RedisClient (RESP over TCP). */
import { RedisClient } from "bun";
import { type ScriptClient, scanAll } from "./client.ts";
import { createShardedSubscriber } from "./cluster/sharded-subscriber.ts";
import { fixedSlotMap } from "./cluster/slot-map.ts";
import { parseClusterUrl } from "./cluster/url.ts";

export interface TcpClientOptions {
  /** Connection timeout in ms; the store bounds each call with the same budget. */
  timeoutMs: number;
}

/**
 * Connects lazily and reconnects on demand. The offline queue is off, so a call while Redis is down fails
 * instead of waiting for a reconnect that may never come; the store's timeout bounds the connect itself.
 */
export function createTcpScriptClient(url: string, options: TcpClientOptions): ScriptClient {
  const client = new RedisClient(url, {
    enableOfflineQueue: false,
    autoReconnect: true,
    connectionTimeout: options.timeoutMs,
  });
  let connecting: Promise<void> | undefined;

  // Concurrent callers share one connection attempt.
  const ready = async () => {
    if (client.connected) return;
    connecting ??= client.connect().finally(() => {
      connecting = undefined;
    });
    await connecting;
  };

  const send = async (command: string, args: string[]) => {
    await ready();
    return client.send(command, args);
  };

  // Subscriptions need a connection of their own (a subscribed RESP connection answers nothing else): the
  // sharded subscriber of the cluster client, on a map whose every slot is this one server.
  const seeds = parseClusterUrl(url);
  const node = seeds.seeds[0] as string;
  const subscriber = createShardedSubscriber({
    map: fixedSlotMap(node),
    seeds,
    timeoutMs: options.timeoutMs,
  });

  return {
    evalsha: (sha, keys, args) => send("EVALSHA", [sha, String(keys.length), ...keys, ...args]),
    eval: (script, keys, args) => send("EVAL", [script, String(keys.length), ...keys, ...args]),
    ping: () => send("PING", []),
    scan: (pattern) => scanAll((cursor) => send("SCAN", [cursor, "MATCH", pattern, "COUNT", "1000"])),
    subscribeSharded: (channel, onMessage) => subscriber.subscribe(channel, (message) => onMessage(message)),
    close: async () => {
      await subscriber.close();
      client.close();
    },
  };
}
