/**
 * Which primary serves each of the 16384 slots, loaded with CLUSTER SLOTS from the first node that answers and
 * corrected slot by slot from MOVED answers. Reloads are shared by concurrent callers and spaced out, so a burst
 * of redirects during a failover or resharding costs one CLUSTER SLOTS, not one per call.
 */
import { SLOTS } from "./slot.ts";

/** Sends one command to one node ("host:port"); rejects when the node cannot be reached or answers an error. */
export type NodeCommand = (address: string, command: string, args: string[]) => Promise<unknown>;

export interface SlotMap {
  /** The primary serving `slot`, or undefined while the map has never been loaded. */
  owner(slot: number): string | undefined;
  /** Records a MOVED answer at once (the rest of the map is reloaded by the caller's next refresh). */
  moved(slot: number, address: string): void;
  /** Reloads the map unless a reload is running (then shares it) or finished less than `minIntervalMs` ago. */
  refresh(): Promise<void>;
  /** Every node known: the map's primaries first, then the seeds and any node seen before. */
  nodes(): string[];
}

/** "host:port", bracketing IPv6 hosts. */
export const address = (host: string, port: number) =>
  host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;

const hostOf = (addr: string) => addr.slice(0, addr.lastIndexOf(":")).replace(/^\[|\]$/g, "");

/**
 * Turns a CLUSTER SLOTS reply into a slot → primary array. A node that does not know its own address reports an
 * empty host (or "?"); it is then the node that answered.
 */
export function parseClusterSlots(reply: unknown, answeredBy: string): (string | undefined)[] {
  if (!Array.isArray(reply)) throw new Error("CLUSTER SLOTS: unexpected reply");
  const owners = new Array<string | undefined>(SLOTS).fill(undefined);
  for (const range of reply as unknown[][]) {
    const [start, end, primary] = range as [number, number, unknown[]];
    const [host, port] = primary as [string, number];
    const owner = address(host === "" || host === "?" ? hostOf(answeredBy) : host, Number(port));
    for (let slot = Number(start); slot <= Number(end); slot++) owners[slot] = owner;
  }
  return owners;
}

/**
 * A slot map bootstrapped from `seeds` and loaded through `send`; reloads closer together than `minIntervalMs`
 * share the last result (a burst of MOVED answers is one reload).
 */
export function createSlotMap(seeds: string[], send: NodeCommand, minIntervalMs = 100): SlotMap {
  let owners: (string | undefined)[] = [];
  const seen = new Set(seeds);
  let loading: Promise<void> | undefined;
  let loadedAt = Number.NEGATIVE_INFINITY;

  const nodes = () => [...new Set([...owners.filter((o): o is string => o !== undefined), ...seen])];

  const load = async () => {
    let lastError: unknown = new Error("no cluster node known");
    for (const node of nodes()) {
      try {
        const next = parseClusterSlots(await send(node, "CLUSTER", ["SLOTS"]), node);
        owners = next;
        for (const owner of next) if (owner) seen.add(owner);
        loadedAt = performance.now();
        return;
      } catch (err) {
        lastError = err;
      }
    }
    throw lastError;
  };

  return {
    owner: (slot) => owners[slot],
    moved(slot, addr) {
      if (owners.length === 0) owners = new Array<string | undefined>(SLOTS).fill(undefined);
      owners[slot] = addr;
      seen.add(addr);
    },
    refresh() {
      if (loading) return loading;
      if (performance.now() - loadedAt < minIntervalMs) return Promise.resolve();
      loading = load().finally(() => {
        loading = undefined;
      });
      return loading;
    },
    nodes,
  };
}

/** The map of a single Redis server: every slot is served by it, and there is nothing to reload. */
export function fixedSlotMap(node: string): SlotMap {
  return {
    owner: () => node,
    moved: () => {},
    refresh: () => Promise.resolve(),
    nodes: () => [node],
  };
}
