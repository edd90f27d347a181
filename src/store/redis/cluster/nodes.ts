/**
 * One Bun RedisClient per cluster node, connected on demand. Connecting is kept apart from sending so the router
 * knows which failures are safe to retry: a node that cannot be reached never saw the command, while a
 * connection that breaks after the command was written leaves its outcome unknown.
 */
import { RedisClient } from "bun";
import { type ClusterSeeds, nodeUrl } from "./url.ts";

/** The node could not be reached: the command was never written, so it may be retried elsewhere. */
export class Unreachable extends Error {
  override readonly name = "Unreachable";
}

export interface NodePool {
  /** A connected client for `address` ("host:port"); rejects with Unreachable when it cannot connect. */
  connected(address: string): Promise<RedisClient>;
  close(): void;
}

/** Connections time out after `timeoutMs`; callers bound their own waits with their deadline. */
export function createNodePool(seeds: ClusterSeeds, timeoutMs: number): NodePool {
  const clients = new Map<string, RedisClient>();
  const connecting = new Map<string, Promise<void>>();
  let closed = false;

  const clientFor = (address: string) => {
    let client = clients.get(address);
    if (!client) {
      // No offline queue and no background reconnects: a call either finds the node connected or connects
      // itself, so nothing is ever sent later than the caller asked.
      client = new RedisClient(nodeUrl(address, seeds), {
        enableOfflineQueue: false,
        autoReconnect: false,
        connectionTimeout: timeoutMs,
      });
      clients.set(address, client);
    }
    return client;
  };

  return {
    async connected(address) {
      if (closed) throw new Unreachable("the cluster client is closed");
      const client = clientFor(address);
      if (client.connected) return client;
      // Concurrent callers share one attempt per node.
      let attempt = connecting.get(address);
      if (!attempt) {
        attempt = client.connect().finally(() => connecting.delete(address));
        connecting.set(address, attempt);
      }
      try {
        await attempt;
      } catch (err) {
        throw new Unreachable(`cannot connect to ${address}`, { cause: err });
      }
      return client;
    },
    close() {
      closed = true;
      for (const client of clients.values()) client.close();
      clients.clear();
    },
  };
}
