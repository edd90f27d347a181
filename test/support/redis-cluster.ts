/**
 * Starts a real Redis Cluster on loopback: 3 primaries + 3 replicas (Debian's redis-server), created with
 * `redis-cli --cluster create … --cluster-replicas 1`, with a small cluster-node-timeout so a failover takes a
 * couple of seconds. One shared cluster per test process (sharedRedisCluster); tests that kill, restart or
 * reshard start their own (startRedisCluster) so they never disturb the shared one.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keySlot } from "../../src/store/redis/cluster/slot.ts";
import { roomKeys } from "../../src/store/redis/keys.ts";
import {
  startWatched,
  stopWithTestProcess,
  type WatchedProcess,
  waitForPort,
  watchdogScript,
} from "./processes.ts";
import {
  clusterView,
  migrateSlot,
  ownerOf,
  primaries,
  type RedisCluster,
  redisCommand,
  shardOf,
  viewsAgree,
  waitUntil,
} from "./redis-cluster-ops.ts";
import { attachedServers, refusedOnShared } from "./shared-servers.ts";

export type { ClusterView, Migration, RedisCluster } from "./redis-cluster-ops.ts";
export { redisCommand } from "./redis-cluster-ops.ts";

export interface ClusterOptions {
  /** cluster-node-timeout: how long a silent node takes to be marked failing, hence the failover time. */
  nodeTimeoutMs?: number;
}

const NODES = 6;

/** Starts 6 nodes, creates the cluster and waits until every node says ok and all agree on the slot map. */
export async function startRedisCluster(options: ClusterOptions = {}): Promise<RedisCluster> {
  for (const tool of ["redis-server", "redis-cli"]) {
    if (!Bun.which(tool))
      throw new Error(`${tool} is not installed: the cluster tests need it (apt-get install redis-server)`);
  }
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 1000;
  const dir = mkdtempSync(join(tmpdir(), "roomd-cluster-"));
  // Client and bus ports are both picked (the default bus port, port + 10000, may exceed 65535), below the
  // ephemeral range: a port from there could be taken as the source port of some client connection (the load
  // tests open thousands) between the check and redis-server's bind.
  const ports: number[] = [];
  const busPorts = new Map<number, number>();
  const taken = new Set<number>();
  while (ports.length < NODES) {
    const port = await loopbackPort(taken);
    ports.push(port);
    busPorts.set(port, await loopbackPort(taken));
  }
  const nodes = new Map<number, WatchedProcess>();

  const launch = async (port: number) => {
    const args = [
      `--port ${port} --cluster-port ${busPorts.get(port)} --bind 127.0.0.1`,
      `--cluster-enabled yes --cluster-config-file nodes-${port}.conf --cluster-node-timeout ${nodeTimeoutMs}`,
      // A replica always may take over (no data-age check), slots never move between shards by themselves,
      // and a failing shard does not stop the others: what docs/operations.md recommends.
      "--cluster-replica-validity-factor 0 --cluster-allow-replica-migration no --cluster-require-full-coverage no",
      // Replicas sync at once (the default waits 5 s to batch diskless syncs): a replica that has not synced yet
      // would lose everything in a failover test.
      `--repl-diskless-sync-delay 0 --save '' --appendonly no --dir '${dir}' --loglevel warning`,
    ].join(" ");
    const node = await startWatched(`Redis Cluster node ${port}`, watchdogScript(`redis-server ${args}`));
    nodes.set(port, node);
    await waitForPort(port, `Redis Cluster node ${port}`);
    // Something else answering on the port would pass waitForPort; our server must still be running.
    process.kill(node.pid, 0);
  };

  const alive = () => ports.filter((p) => nodes.get(p)?.proc.exitCode === null);

  /** SIGKILLs a node; `onKilled` hears the moment at once (the watchdog shell notices up to 0.5 s later). */
  const kill = async (port: number, onKilled?: (at: number) => void) => {
    const node = nodes.get(port);
    if (!node || node.proc.exitCode !== null) return;
    try {
      process.kill(node.pid, "SIGKILL");
      onKilled?.(Date.now());
    } catch {
      // Already gone (it failed to start): its watchdog shell exits by itself.
    }
    await node.proc.exited;
  };

  /**
   * Every live node reports cluster_state:ok and the same slot → primary map, no live node is flagged failing,
   * and every live replica's link to its primary is up (it has synced).
   */
  const settled = async () => {
    const live = alive();
    const views = await Promise.all(live.map((p) => clusterView(p)));
    if (!views.every((v) => v.ok) || !viewsAgree(views, live)) return false;
    const replicas = views.filter((v) => v.nodes.some((n) => n.id === v.myId && n.master !== undefined));
    const links = await Promise.all(replicas.map((v) => redisCommand(v.port, "INFO", ["replication"])));
    return links.every((info) => /master_link_status:up/.test(String(info)));
  };

  /** A primary's INFO replication: every replica's acknowledged offset has reached the primary's own. */
  const replicated = (info: string) => {
    const own = Number(/master_repl_offset:(\d+)/.exec(info)?.[1] ?? Number.NaN);
    const offsets = [...info.matchAll(/^slave\d+:.*offset=(\d+)/gm)].map((m) => Number(m[1]));
    return offsets.length > 0 && offsets.every((offset) => offset >= own);
  };

  await Promise.all(ports.map(launch));
  const create = Bun.spawn(
    [
      "redis-cli",
      "--cluster",
      "create",
      ...ports.map((p) => `127.0.0.1:${p}`),
      "--cluster-replicas",
      "1",
      "--cluster-yes",
    ],
    { stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  );
  if ((await create.exited) !== 0) {
    const out = `${await new Response(create.stdout).text()}${await new Response(create.stderr).text()}`;
    await Promise.all(ports.map((p) => kill(p)));
    throw new Error(`redis-cli --cluster create failed: ${out.slice(-2000)}`);
  }
  await waitUntil("the new cluster to settle", settled);

  return {
    url: `redis-cluster://${ports.map((p) => `127.0.0.1:${p}`).join(",")}`,
    ports,
    nodeTimeoutMs,
    alive,
    settled: () => waitUntil("the cluster to settle", settled),
    ownerOf: (slot) => ownerOf(alive(), slot),
    primaries: () => primaries(alive()),
    async killPrimaryOf(slot, onKilled, options = {}) {
      const { port: owner, replicas } = await shardOf(alive(), slot);
      if (options.replicated) {
        await redisCommand(owner, "CLIENT", ["PAUSE", String(nodeTimeoutMs * 10), "WRITE"]);
        await waitUntil(
          `the replicas of ${owner} to hold every write it acknowledged`,
          async () => replicated(String(await redisCommand(owner, "INFO", ["replication"]))),
          nodeTimeoutMs * 5,
        );
      }
      await kill(owner, onKilled);
      const killedAt = performance.now();
      let promoted = 0;
      await waitUntil(
        `a replica of ${owner} to take slot ${slot}`,
        async () => {
          promoted = await ownerOf(alive(), slot).catch(() => owner);
          return promoted !== owner && replicas.includes(promoted) && (await settled());
        },
        nodeTimeoutMs * 20,
      );
      return { killed: owner, promoted, ms: Math.round(performance.now() - killedAt) };
    },
    async restartNode(port) {
      await launch(port);
      // It reads its nodes file, learns that its slots have a newer owner and rejoins as that owner's replica.
      await waitUntil(
        `node ${port} to rejoin as a synced replica`,
        async () => {
          const info = String(await redisCommand(port, "INFO", ["replication"]));
          return /role:slave/.test(info) && (await settled());
        },
        nodeTimeoutMs * 20,
      );
    },
    migrateSlot: (slot, to) => migrateSlot(alive(), slot, to),
    migrateRoom: (roomId, to) => migrateSlot(alive(), keySlot(roomKeys(roomId)[0] as string), to),
    kill,
    async stop() {
      // By pid, even where a node's watchdog shell is gone (Bun kills the shell, not the server, if a test times out).
      for (const node of nodes.values()) {
        try {
          process.kill(node.pid, "SIGKILL");
        } catch {}
      }
      await Promise.all([...nodes.values()].map((node) => node.proc.exited));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A random loopback port in 20000–32767 that is free now and not in `taken` (which it joins). */
async function loopbackPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 12768);
    if (taken.has(port)) continue;
    try {
      Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } }).stop(true);
    } catch {
      continue;
    }
    taken.add(port);
    return port;
  }
}

let shared: Promise<RedisCluster> | undefined;

/**
 * One cluster shared by every test file of this process that only reads and writes (never kills or reshards),
 * stopped after the last file; under `bun run test`, the run's own (test/support/shared-servers.ts).
 */
export function sharedRedisCluster(): Promise<RedisCluster> {
  const given = attachedServers()?.cluster;
  if (!shared && given) {
    const refuse = (what: string) => refusedOnShared("Redis Cluster", what);
    const alive = () => given.ports;
    shared = Promise.resolve({
      ...given,
      alive,
      settled: () =>
        waitUntil("the cluster to settle", async () => {
          const views = await Promise.all(alive().map((p) => clusterView(p)));
          return views.every((v) => v.ok) && viewsAgree(views, alive());
        }),
      ownerOf: (slot) => ownerOf(alive(), slot),
      primaries: () => primaries(alive()),
      killPrimaryOf: refuse("killed"),
      restartNode: refuse("restarted"),
      migrateSlot: refuse("resharded"),
      migrateRoom: refuse("resharded"),
      kill: refuse("killed"),
      stop: async () => {},
    });
  }
  if (!shared) {
    const started = startRedisCluster();
    shared = started;
    // Forgotten once stopped: a worker that keeps its modules across files (`--no-isolate`) starts another.
    stopWithTestProcess(async () => {
      shared = undefined;
      await (await started).stop();
    });
  }
  return shared;
}
