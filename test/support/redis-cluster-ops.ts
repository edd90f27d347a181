/**
 * What the cluster test support does to a running cluster: read one node's view (CLUSTER NODES), check that the
 * live nodes agree, and move a slot between primaries the way an operator's resharding does.
 */
import { RedisClient } from "bun";

/** A running test cluster (see redis-cluster.ts). Ports are loopback client ports. */
export interface RedisCluster {
  /** `redis-cluster://127.0.0.1:p1,…` naming every node, as REDIS_URL takes it. */
  url: string;
  ports: number[];
  nodeTimeoutMs: number;
  /** Ports whose server process is running. */
  alive(): number[];
  /** Waits until every live node reports ok and all agree on the slot map. */
  settled(): Promise<void>;
  /** The port of the primary serving `slot`, as the live nodes see it. */
  ownerOf(slot: number): Promise<number>;
  /** Ports of the live primaries that serve slots, ascending. */
  primaries(): Promise<number[]>;
  /**
   * SIGKILLs the primary of `slot` (calling `onKilled` with Date.now() at once), then waits until its replica
   * serves the slot and the cluster is settled; `ms` is the time from the kill to that point.
   * With `replicated`, the primary's writes are first paused until its replicas hold everything it acknowledged
   * (CLIENT PAUSE WRITE, then their offsets reach its own): Redis replicates asynchronously, so a primary killed at
   * a random instant may take writes it acknowledged a moment earlier with it (docs/operations.md) — Redis's
   * guarantee, not roomd's to test. Calls arriving during the pause wait, and are in flight at the kill.
   */
  killPrimaryOf(
    slot: number,
    onKilled?: (at: number) => void,
    options?: { replicated?: boolean },
  ): Promise<{ killed: number; promoted: number; ms: number }>;
  /** Starts a killed node again; waits until it has rejoined as a synced replica. */
  restartNode(port: number): Promise<void>;
  /** Moves `slot` and its keys to another primary (`to`, or the first other one); see migrateSlot. */
  migrateSlot(slot: number, to?: number): Promise<Migration>;
  /** migrateSlot for the slot of a room's keys (`room:{<roomId>}:…`). */
  migrateRoom(roomId: string, to?: number): Promise<Migration>;
  kill(port: number): Promise<void>;
  stop(): Promise<void>;
}

/** One node as a CLUSTER NODES line describes it. */
export interface ClusterNode {
  id: string;
  port: number;
  flags: string[];
  /** The primary's id for a replica, undefined for a primary. */
  master?: string;
  /** Inclusive slot ranges served (primaries only). */
  slots: [number, number][];
}

/** One node's view of the cluster. */
export interface ClusterView {
  port: number;
  myId: string;
  ok: boolean;
  nodes: ClusterNode[];
}

export interface Migration {
  from: number;
  to: number;
  keys: number;
  /** From SETSLOT MIGRATING to the last SETSLOT NODE: the window in which the slot answers ASK / TRYAGAIN. */
  ms: number;
}

/** One command on one node over a short-lived connection (test support only; never retried). */
export async function redisCommand(port: number, command: string, args: string[] = []): Promise<unknown> {
  const client = new RedisClient(`redis://127.0.0.1:${port}`, {
    autoReconnect: false,
    enableOfflineQueue: false,
    connectionTimeout: 2000,
  });
  try {
    await client.connect();
    return await client.send(command, args);
  } finally {
    client.close();
  }
}

function parseNodes(text: string): ClusterNode[] {
  return text
    .trim()
    .split("\n")
    .map((line) => {
      const [id = "", address = "", flags = "", master = "-", , , , , ...slots] = line.trim().split(" ");
      return {
        id,
        port: Number(address.split("@")[0]?.split(":").pop()),
        flags: flags.split(","),
        master: master === "-" ? undefined : master,
        // "[slot->-id]" / "[slot-<-id]" mark a migration in progress, not a served range.
        slots: slots
          .filter((s) => !s.startsWith("["))
          .map((s) => s.split("-").map(Number))
          .map(([a = 0, b]) => [a, b ?? a] as [number, number]),
      };
    });
}

/** One node's view: its id, whether it reports cluster_state:ok, and every node it knows. */
export async function clusterView(port: number): Promise<ClusterView> {
  const [info, nodes] = await Promise.all([
    redisCommand(port, "CLUSTER", ["INFO"]),
    redisCommand(port, "CLUSTER", ["NODES"]),
  ]);
  const parsed = parseNodes(String(nodes));
  const me = parsed.find((n) => n.flags.includes("myself"));
  return { port, myId: me?.id ?? "", ok: /cluster_state:ok/.test(String(info)), nodes: parsed };
}

const failing = (n: ClusterNode) => n.flags.some((f) => ["fail", "fail?", "handshake", "noaddr"].includes(f));

/** Who serves what, as one comparable string: "port=a-b,c-d" per primary with slots, sorted. */
const slotMap = (view: ClusterView) =>
  view.nodes
    .filter((n) => n.flags.includes("master") && n.slots.length > 0)
    .map((n) => `${n.port}=${n.slots.map(([a, b]) => `${a}-${b}`).join(",")}`)
    .sort()
    .join(" ");

/**
 * True when the views (one per live port) show one slot map, every slot owner is live, and no live node is seen
 * as failing by anyone.
 */
export function viewsAgree(views: ClusterView[], live: number[]): boolean {
  const first = views[0];
  if (!first) return false;
  const map = slotMap(first);
  const owners = first.nodes.filter((n) => n.flags.includes("master") && n.slots.length > 0);
  if (!owners.every((n) => live.includes(n.port))) return false;
  return views.every(
    (v) => slotMap(v) === map && live.every((port) => v.nodes.some((n) => n.port === port && !failing(n))),
  );
}

/** The primary serving a slot and its replicas, as one node sees them. */
export interface Shard {
  port: number;
  id: string;
  replicas: number[];
}

/**
 * The shard serving `slot` as the first live node to answer sees it. Nodes are asked at once: one busy in a
 * long script (or stopped) must not hold the answer up.
 */
export async function shardOf(live: number[], slot: number): Promise<Shard> {
  const views = live.map(async (port) => {
    const view = await clusterView(port);
    const owner = view.nodes.find(
      (n) => n.flags.includes("master") && !failing(n) && n.slots.some(([a, b]) => a <= slot && slot <= b),
    );
    if (!owner) throw new Error(`node ${port} knows no owner of slot ${slot}`);
    const replicas = view.nodes.filter((n) => n.master === owner.id).map((n) => n.port);
    return { port: owner.port, id: owner.id, replicas };
  });
  return Promise.any(views).catch(() => {
    throw new Error(`no live node knows an owner of slot ${slot}`);
  });
}

/** Ports of the primaries serving slots, as the first live node to answer sees them, ascending. */
export async function primaries(live: number[]): Promise<number[]> {
  const view = await Promise.any(live.map((port) => clusterView(port)));
  return view.nodes
    .filter((n) => n.flags.includes("master") && !failing(n) && n.slots.length > 0)
    .map((n) => n.port)
    .sort((a, b) => a - b);
}

/** The port of the primary serving `slot`. */
export async function ownerOf(live: number[], slot: number): Promise<number> {
  return (await shardOf(live, slot)).port;
}

/**
 * Moves `slot` from its primary to `to` (or the first other live primary) as resharding does: IMPORTING on the
 * target, MIGRATING on the source, MIGRATE of every key in the slot, then SETSLOT NODE on the target, the source
 * and every other primary. Clients see ASK or TRYAGAIN for the slot in between, MOVED afterwards.
 */
export async function migrateSlot(live: number[], slot: number, to?: number): Promise<Migration> {
  const from = await ownerOf(live, slot);
  const view = await clusterView(from);
  if (view.myId === "") throw new Error(`node ${from} did not name itself`);
  const primaries = view.nodes.filter((n) => n.flags.includes("master") && !failing(n) && n.slots.length > 0);
  const target = primaries.find((n) => (to === undefined ? n.port !== from : n.port === to));
  if (!target || target.port === from) throw new Error(`no primary to move slot ${slot} to`);
  const started = performance.now();
  const s = String(slot);
  await redisCommand(target.port, "CLUSTER", ["SETSLOT", s, "IMPORTING", view.myId]);
  await redisCommand(from, "CLUSTER", ["SETSLOT", s, "MIGRATING", target.id]);
  let moved = 0;
  for (;;) {
    const keys = (await redisCommand(from, "CLUSTER", ["GETKEYSINSLOT", s, "1000"])) as string[];
    if (keys.length === 0) break;
    await redisCommand(from, "MIGRATE", ["127.0.0.1", String(target.port), "", "0", "5000", "KEYS", ...keys]);
    moved += keys.length;
  }
  for (const node of [target, ...primaries.filter((n) => n.id !== target.id)]) {
    await redisCommand(node.port, "CLUSTER", ["SETSLOT", s, "NODE", target.id]);
  }
  return { from, to: target.port, keys: moved, ms: Math.round(performance.now() - started) };
}

/** Polls `ready` every 50 ms; fails naming `what` after `timeoutMs` (a bound, not a measurement). */
export async function waitUntil(
  what: string,
  ready: () => Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}
