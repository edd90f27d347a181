/**
 * `bun bench/cluster-capacity.ts [--calls 8000] [--agents 16] [--rooms 12,48,96] [--processes 1] [--tries 2]
 * [--trials 20000]`
 * — what a Redis Cluster of N shards costs per tool call, and how evenly the load spreads, measured against a
 * single redis-server in the same run:
 *   1. four stores, each behind its own roomd process(es): one redis-server; one redis-server with a replica
 *      (REPLICAOF); a real cluster of 3 primaries + 3 replicas (test/support/redis-cluster.ts); and, as a control,
 *      a cluster of one primary holding every slot (cluster mode on both sides, one process);
 *   2. for each room count R, the mixed workload (bench/load.ts) spread over R freshly seeded rooms (each call's
 *      room drawn by a fixed hash of agent and call number, so every store gets the same sequence) on each store in
 *      turn; per node: main-thread CPU (INFO cpu), commands and EVALSHA calls (INFO commandstats), keys (DBSIZE);
 *      in roomd: CPU per call, round trips per call, calls/s; each store's idle CPU; then two controls at the
 *      largest R: the single node with a replica at a third of the agents (about what each of 3 primaries sees at
 *      once), and the cluster with every room on one primary (one node does all the work, as the single node does);
 *   3. the balance: each primary's share of the rooms, of the room scripts and of the Redis CPU, against 1/N; the
 *      team's rate charges (`team:{bench}`, one slot) land on one primary, and their cost is separated out;
 *   4. the per-team ceiling: redis-benchmark of the rate-charge script on that primary;
 *   5. memory per room (MEMORY USAGE over its keys), connections per node with and without SSE streams open;
 *   6. a simulation of max-over-mean shard load for R rooms over N primaries (rooms hash uniformly to 16384 slots,
 *      the slots split evenly), for rooms of equal load and for a Zipf-skewed mix.
 * All nodes, roomd and the load generator share one machine: read costs per call and shares, not throughput.
 * Each phase records the CPU other processes took meanwhile and is tried again (--tries) while that exceeds 10%.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { RedisClient } from "bun";
import { keySlot, SLOTS } from "../src/store/redis/cluster/slot.ts";
import { teamKeys } from "../src/store/redis/keys.ts";
import { prng } from "../test/support/prng.ts";
import { startRedisCluster } from "../test/support/redis-cluster.ts";
import { freePort, startRedisServer, waitForPort } from "../test/support/redis-server.ts";
import { type SpawnedServer, spawnServer } from "../test/support/server.ts";
import { type Call, mixedWorkload, runLoad, toolsList } from "./load.ts";
import {
  CLIENT_COMMANDS,
  cpuMs,
  machineBusyMs,
  type RedisProbe,
  type RedisSnapshot,
  redisProbe,
} from "./probes.ts";
import { checkedRateCharge, redisBenchmark } from "./rate-charge.ts";
import { callTool, SECRET, seedRooms, table } from "./server.ts";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "8000" },
    agents: { type: "string", default: "16" },
    rooms: { type: "string", default: "12,48,96" },
    processes: { type: "string", default: "1" },
    trials: { type: "string", default: "20000" },
    tries: { type: "string", default: "2" },
  },
});
const calls = Number(values.calls);
const agents = Number(values.agents);
const roomCounts = values.rooms.split(",").map(Number);
const processes = Number(values.processes);
const trials = Number(values.trials);
const tries = Number(values.tries);
if (![calls, agents, processes, trials, tries, ...roomCounts].every((n) => Number.isInteger(n) && n > 0))
  throw new Error("--calls, --agents, --rooms, --processes, --trials and --tries take positive integers");
const TEAM = "bench";
const TEAM_SLOT = keySlot(teamKeys(TEAM)[0] as string);

/** One redis-server of a store: its probe (INFO cpu + commandstats), an admin connection and its pid. */
interface Node {
  port: number;
  role: "primary" | "replica";
  probe: RedisProbe;
  admin: RedisClient;
  pid: number;
}

interface Store {
  label: string;
  /** Main-thread CPU µs per second each node spends with no calls (cron, cluster bus, replication pings). */
  idleUsPerSecond?: number[];
  servers: SpawnedServer[];
  nodes: Node[];
  /** The port of the primary serving `slot`. */
  ownerOf(slot: number): number;
  stop(): Promise<void>;
}

const info = async (node: Node, section: string) => String(await node.admin.send("INFO", [section]));
const field = (text: string, name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(text)?.[1]);

async function node(port: number, role: Node["role"]): Promise<Node> {
  const url = `redis://127.0.0.1:${port}`;
  const admin = new RedisClient(url);
  await admin.connect();
  const probe = await redisProbe(url);
  const pid = field(String(await admin.send("INFO", ["server"])), "process_id");
  return { port, role, probe, admin, pid };
}

async function spawnRoomd(redisUrl: string): Promise<SpawnedServer[]> {
  // Every phase creates fresh rooms for the one team: lift the per-team room limit with the rate limit.
  const env = {
    API_KEYS: `${TEAM}:${SECRET}`,
    RATE_LIMIT_PER_MINUTE: "1000000",
    ROOMS_PER_TEAM: "1000000",
    STORE: "redis",
    REDIS_URL: redisUrl,
  };
  const servers: SpawnedServer[] = [];
  for (let i = 0; i < processes; i++) servers.push(await spawnServer(env));
  return servers;
}

async function singleStore(withReplica: boolean): Promise<Store> {
  const primary = await startRedisServer();
  const replica = withReplica ? await startRedisServer() : undefined;
  const nodes = [await node(primary.port, "primary")];
  if (replica) {
    const r = await node(replica.port, "replica");
    await r.admin.send("REPLICAOF", ["127.0.0.1", String(primary.port)]);
    for (let i = 0; !/master_link_status:up/.test(await info(r, "replication")); i++) {
      if (i > 200) throw new Error("the replica did not sync within 10 s");
      await Bun.sleep(50);
    }
    nodes.push(r);
  }
  const servers = await spawnRoomd(primary.url);
  return {
    label: withReplica ? "1 redis + 1 replica" : "1 redis",
    servers,
    nodes,
    ownerOf: () => primary.port,
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop()));
      for (const n of nodes) closeNode(n);
      await replica?.stop();
      await primary.stop();
    },
  };
}

/**
 * A cluster of ONE primary holding all 16384 slots (no replica): roomd in cluster mode, Redis in cluster mode, one
 * process — the control that tells what cluster mode itself costs from what spreading over processes costs.
 */
async function oneNodeCluster(): Promise<Store> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "roomd-bench-cluster1-"));
  const proc = Bun.spawn(
    [
      "redis-server",
      ...["--port", String(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes"],
      ...["--cluster-config-file", "nodes.conf", "--save", "", "--appendonly", "no", "--dir", dir],
      ...["--loglevel", "warning"],
    ],
    { stdin: "ignore", stdout: "ignore", stderr: "ignore" },
  );
  await waitForPort(port, "redis-server");
  const n = await node(port, "primary");
  await n.admin.send("CLUSTER", ["ADDSLOTSRANGE", "0", String(SLOTS - 1)]);
  for (let i = 0; !/cluster_state:ok/.test(String(await n.admin.send("CLUSTER", ["INFO"]))); i++) {
    if (i > 200) throw new Error("the one-node cluster did not reach cluster_state:ok within 10 s");
    await Bun.sleep(50);
  }
  const servers = await spawnRoomd(`redis-cluster://127.0.0.1:${port}`);
  return {
    label: "cluster of 1 primary",
    servers,
    nodes: [n],
    ownerOf: () => port,
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop()));
      closeNode(n);
      proc.kill("SIGKILL");
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function clusterStore(): Promise<Store> {
  const cluster = await startRedisCluster();
  const primaries = await cluster.primaries();
  const nodes = await Promise.all(
    cluster.ports.map((p) => node(p, primaries.includes(p) ? "primary" : "replica")),
  );
  const owner = new Array<number>(SLOTS);
  const slots = (await nodes[0]?.admin.send("CLUSTER", ["SLOTS"])) as [number, number, [string, number]][];
  for (const [from, to, [, port]] of slots) owner.fill(Number(port), from, to + 1);
  const servers = await spawnRoomd(cluster.url);
  return {
    label: `cluster ${primaries.length}+${nodes.length - primaries.length}`,
    servers,
    nodes,
    ownerOf: (slot) => owner[slot] as number,
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop()));
      for (const n of nodes) closeNode(n);
      await cluster.stop();
    },
  };
}

function closeNode(n: Node): void {
  n.probe.close();
  n.admin.close();
}

const roomSlot = (roomId: string) => keySlot(`room:{${roomId}}:meta`);

/** A deterministic room for each (agent, n): the same call sequence on every store, spread evenly over rooms. */
function roomIndex(agent: number, n: number, count: number): number {
  let h = Math.imul(agent + 1, 0x9e3779b1) ^ Math.imul(n + 1, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  return ((h ^ (h >>> 15)) >>> 0) % count;
}

function spread(rooms: string[], sent: number[]): (agent: number, n: number) => Call {
  return (agent, n) => {
    const i = roomIndex(agent, n, rooms.length);
    sent[i] = (sent[i] ?? 0) + 1;
    return mixedWorkload([rooms[i] as string])(agent, n);
  };
}

/** CPU ms so far of everything the bench runs: roomd processes, this process, every redis-server. */
function ownMs(store: Store): number {
  const self = process.cpuUsage();
  return (
    store.servers.reduce((s, p) => s + cpuMs(p.proc.pid), 0) +
    store.nodes.reduce((s, n) => s + cpuMs(n.pid), 0) +
    (self.user + self.system) / 1000
  );
}

/** Waits (at most 10 s) until the machine's CPU outside the bench stays under 10% for half a second. */
async function waitForQuiet(store: Store): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const [busy0, own0, t0] = [machineBusyMs(), ownMs(store), performance.now()];
    await Bun.sleep(500);
    const other = otherPercent(machineBusyMs() - busy0, ownMs(store) - own0, performance.now() - t0);
    if (other < 10 || Date.now() > deadline) return other;
  }
}

const otherPercent = (busyMs: number, ownMsSpent: number, wallMs: number) =>
  Math.max(0, (100 * (busyMs - ownMsSpent)) / (wallMs * cpus().length));

interface NodeCost {
  port: number;
  role: Node["role"];
  /** Of mainUs: system time, and the time inside scripts as INFO commandstats counts it. */
  sysUs: number;
  scriptUs: number;
  /** Main-thread CPU µs, whole phase. */
  mainUs: number;
  /** Commands executed (incl. inside scripts), client commands (round trips), EVALSHA calls. */
  commands: number;
  trips: number;
  evalsha: number;
  keys: number;
}

interface Phase {
  store: string;
  rooms: number;
  calls: number;
  errors: number;
  perSecond: number;
  roomdCpuMsPer1000: number;
  other: number;
  seconds: number;
  /** The store's label (`store` may name the phase more precisely). */
  base: string;
  nodes: NodeCost[];
  /** Client commands (round trips) by name, all primaries, per call. */
  tripsByCommand: string;
  /** Calls sent to each room, and each room's primary. */
  roomOwner: number[];
  sent: number[];
  roomIds: string[];
}

/** Main-thread CPU seconds split: system (syscalls: epoll, socket reads and writes) and user. */
async function cpuSplit(n: Node): Promise<{ sys: number; user: number }> {
  const text = await info(n, "cpu");
  const sys = field(text, "used_cpu_sys_main_thread");
  const user = field(text, "used_cpu_user_main_thread");
  if (Number.isFinite(sys) && Number.isFinite(user)) return { sys, user };
  processCpuFallback = true;
  return { sys: field(text, "used_cpu_sys"), user: field(text, "used_cpu_user") };
}

/**
 * Main-thread CPU seconds (the thread that runs commands and scripts); the whole process's where the server does
 * not report its main thread (INFO cpu without the *_main_thread fields, before Redis 6.2).
 */
function mainCpu(s: RedisSnapshot): number {
  if (s.mainThreadCpuSeconds > 0) return s.mainThreadCpuSeconds;
  processCpuFallback = true;
  return s.cpuSeconds;
}
let processCpuFallback = false;

/** µs spent executing scripts (EVALSHA and EVAL, Lua included) so far. */
const scriptUs = (s: RedisSnapshot) =>
  (s.byCommand.get("evalsha")?.usec ?? 0) + (s.byCommand.get("eval")?.usec ?? 0);

/** Runs a phase up to --tries times (fresh rooms each time) while other load exceeds 10%; keeps the cleanest. */
async function phase(
  store: Store,
  rooms: number,
  callers = agents,
  label = store.label,
  onPort?: number,
): Promise<Phase> {
  let best: Phase | undefined;
  for (let i = 0; i < tries && (!best || best.other >= 10); i++) {
    const result = await onePhase(store, rooms, callers, label, onPort);
    if (!best || result.other < best.other) best = result;
  }
  return best as Phase;
}

/**
 * One measured phase: `rooms` fresh rooms, the spread mixed workload from `callers` agents; `label` names the phase
 * when it differs from the store's; `onPort`: only room ids whose slot that primary serves (all the room load on
 * one primary).
 */
async function onePhase(
  store: Store,
  rooms: number,
  callers: number,
  label: string,
  onPort?: number,
): Promise<Phase> {
  const url = store.servers[0]?.url as string;
  // 8 tasks per room (update_task and get_task hit real tasks); callTool throws on any refusal.
  const roomIds: string[] = [];
  while (roomIds.length < rooms) {
    const id = `cc-${crypto.randomUUID().slice(0, 8)}-${roomIds.length}`;
    if (onPort === undefined || store.ownerOf(roomSlot(id)) === onPort) roomIds.push(id);
  }
  for (const roomId of roomIds)
    for (let t = 1; t <= 8; t++) await callTool(url, "add_task", { roomId, title: `seed ${t}` });
  const sent: number[] = [];
  await waitForQuiet(store);
  const pids = store.servers.map((s) => s.proc.pid);
  const roomd0 = pids.reduce((s, pid) => s + cpuMs(pid), 0);
  const [busy0, own0] = [machineBusyMs(), ownMs(store)];
  const before: RedisSnapshot[] = await Promise.all(store.nodes.map((n) => n.probe.snapshot()));
  const split0 = await Promise.all(store.nodes.map(cpuSplit));
  const load = await runLoad({
    url: store.servers.map((s) => s.url),
    secret: SECRET,
    agents: callers,
    calls,
    next: spread(roomIds, sent),
  });
  if (load.errors > 0)
    throw new Error(`${label}, ${rooms} rooms: ${load.errors} of ${load.calls} calls failed`);
  const after = await Promise.all(store.nodes.map((n) => n.probe.snapshot()));
  const split1 = await Promise.all(store.nodes.map(cpuSplit));
  const roomdMs = pids.reduce((s, pid) => s + cpuMs(pid), 0) - roomd0;
  const other = otherPercent(machineBusyMs() - busy0, ownMs(store) - own0, load.seconds * 1000);
  const nodes = await Promise.all(
    store.nodes.map(async (n, i): Promise<NodeCost> => {
      const [a, b] = [after[i] as RedisSnapshot, before[i] as RedisSnapshot];
      const evalsha = (s: RedisSnapshot) => s.byCommand.get("evalsha")?.calls ?? 0;
      return {
        port: n.port,
        role: n.role,
        mainUs: (mainCpu(a) - mainCpu(b)) * 1e6,
        sysUs: ((split1[i]?.sys ?? 0) - (split0[i]?.sys ?? 0)) * 1e6,
        scriptUs: scriptUs(a) - scriptUs(b),
        commands: a.allCommands - b.allCommands,
        trips: a.clientCommands - b.clientCommands,
        evalsha: evalsha(a) - evalsha(b),
        keys: Number(await n.admin.send("DBSIZE", [])),
      };
    }),
  );
  return {
    store: label,
    base: store.label,
    rooms,
    calls: load.calls,
    errors: load.errors,
    perSecond: load.perSecond,
    seconds: load.seconds,
    tripsByCommand: [...CLIENT_COMMANDS]
      .map((name) => {
        const count = sum(
          store.nodes.map((n, i) =>
            n.role === "primary"
              ? ((after[i] as RedisSnapshot).byCommand.get(name)?.calls ?? 0) -
                ((before[i] as RedisSnapshot).byCommand.get(name)?.calls ?? 0)
              : 0,
          ),
        );
        return count > 0 ? `${name} ${fixed(count / load.calls, 3)}` : "";
      })
      .filter(Boolean)
      .join(", "),
    roomdCpuMsPer1000: (roomdMs * 1000) / load.calls,
    other,
    nodes,
    roomOwner: roomIds.map((id) => store.ownerOf(roomSlot(id))),
    sent,
    roomIds,
  };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const fixed = (x: number, d = 1) => x.toFixed(d);
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** Expected max-over-mean primary load for R rooms with `weights` hashed uniformly to slots split over N. */
function simulate(rooms: number, shards: number, weights: (k: number) => number, runs: number): number {
  const random = prng(rooms * 7919 + shards);
  const w = Array.from({ length: rooms }, (_, k) => weights(k));
  const total = sum(w);
  let acc = 0;
  for (let t = 0; t < runs; t++) {
    const load = new Array<number>(shards).fill(0);
    for (let k = 0; k < rooms; k++) {
      // A uniform slot, and the primary whose even range holds it (redis-cli --cluster create splits evenly).
      const slot = Math.floor(random() * SLOTS);
      const shard = Math.min(shards - 1, Math.floor((slot * shards) / SLOTS));
      load[shard] = (load[shard] ?? 0) + (w[k] as number);
    }
    acc += Math.max(...load) / (total / shards);
  }
  return acc / runs;
}

// ── Run ────────────────────────────────────────────────────────────────────────────────────────────────────────
const loadBefore = loadavg()[0] ?? 0;
const started = performance.now();
const stores = [
  await singleStore(false),
  await singleStore(true),
  await clusterStore(),
  await oneNodeCluster(),
];
const phases: Phase[] = [];
let ceiling: { port: number; rate: number } | undefined;
let memory: { rooms: number; bytes: number[]; keys: number[]; tasks: number[]; events: number[] } | undefined;
let connections: { store: string; port: number; role: string; idle: number; streams: number }[] = [];
try {
  for (const store of stores) {
    const url = store.servers[0]?.url as string;
    const warm = await seedRooms(url, 4);
    await runLoad({ url, secret: SECRET, agents, calls: 2000, next: toolsList });
    await runLoad({ url, secret: SECRET, agents, calls: 2000, next: mixedWorkload(warm) });
  }
  for (const store of stores) {
    await waitForQuiet(store);
    const before = await Promise.all(store.nodes.map((n) => n.probe.snapshot()));
    const t0 = performance.now();
    await Bun.sleep(3000);
    const after = await Promise.all(store.nodes.map((n) => n.probe.snapshot()));
    const seconds = (performance.now() - t0) / 1000;
    store.idleUsPerSecond = store.nodes.map(
      (_, i) => ((mainCpu(after[i] as RedisSnapshot) - mainCpu(before[i] as RedisSnapshot)) * 1e6) / seconds,
    );
  }
  for (const rooms of roomCounts) for (const store of stores) phases.push(await phase(store, rooms));
  // The single node with the replica again, at a third of the callers: about the concurrency each primary of a
  // 3-primary cluster sees, to show how Redis CPU per call depends on how many commands arrive together.
  const third = Math.max(1, Math.round(agents / 3));
  const paced = stores[1] as Store;
  phases.push(await phase(paced, roomCounts.at(-1) as number, third, `${paced.label}, ${third} agents`));
  // The cluster again with every room on the team's primary: that primary alone does all the work, as the single
  // node does, while the other five nodes idle — what being one node of a cluster costs, without the spreading.
  const whole = stores[2] as Store;
  const teamPrimary = whole.ownerOf(TEAM_SLOT);
  phases.push(
    await phase(
      whole,
      roomCounts.at(-1) as number,
      agents,
      `${whole.label}, all rooms on one primary`,
      teamPrimary,
    ),
  );

  const cluster = stores[2] as Store;
  const last = phases.filter((p) => p.store === cluster.label).at(-1) as Phase;
  // Memory per room: every key of each room of the last cluster phase, exactly (SAMPLES 0).
  memory = { rooms: last.rooms, bytes: [], keys: [], tasks: [], events: [] };
  for (const [i, roomId] of last.roomIds.entries()) {
    const owner = cluster.nodes.find((n) => n.port === last.roomOwner[i]) as Node;
    const keys: string[] = [];
    let cursor = "0";
    do {
      const [next, found] = (await owner.admin.send("SCAN", [
        cursor,
        "MATCH",
        `room:{${roomId}}:*`,
        "COUNT",
        "1000",
      ])) as [string, string[]];
      cursor = String(next);
      keys.push(...found);
    } while (cursor !== "0");
    let bytes = 0;
    for (const key of keys) bytes += Number(await owner.admin.send("MEMORY", ["USAGE", key, "SAMPLES", "0"]));
    memory.bytes.push(bytes);
    memory.keys.push(keys.length);
    memory.tasks.push(Number(await owner.admin.send("HLEN", [`room:{${roomId}}:tasks`])));
    memory.events.push(Number(await owner.admin.send("HLEN", [`room:{${roomId}}:events`])));
  }

  // Connections per node: idle, then with one SSE stream open on every room of the last phase (per store).
  for (const store of stores) {
    const p = phases.filter((x) => x.store === store.label).at(-1) as Phase;
    const count = async () =>
      Promise.all(store.nodes.map(async (n) => field(await info(n, "clients"), "connected_clients") - 2));
    const idle = await count();
    const streams = await Promise.all(
      p.roomIds.map((roomId) =>
        fetch(`${store.servers[0]?.url}/rooms/${roomId}/stream`, {
          headers: { Authorization: `Bearer ${SECRET}` },
        }),
      ),
    );
    if (streams.some((s) => s.status !== 200))
      throw new Error(`SSE: ${streams.map((s) => s.status).join(",")}`);
    await Bun.sleep(1000);
    const open = await count();
    for (const s of streams) await s.body?.cancel();
    connections = connections.concat(
      store.nodes.map((n, i) => ({
        store: store.label,
        port: n.port,
        role: n.role,
        idle: idle[i] as number,
        streams: open[i] as number,
      })),
    );
  }

  // Per-team ceiling: the rate-charge script alone, 50 clients, on the primary serving the team's slot.
  const teamPort = cluster.ownerOf(TEAM_SLOT);
  let probeTeam = "ceiling-0";
  for (let i = 1; cluster.ownerOf(keySlot(teamKeys(probeTeam)[0] as string)) !== teamPort; i++)
    probeTeam = `ceiling-${i}`;
  const teamNode = cluster.nodes.find((n) => n.port === teamPort) as Node;
  const args = await checkedRateCharge(teamNode.admin, probeTeam);
  const rate = redisBenchmark(teamPort, ["-n", "100000", ...args]);
  ceiling = { port: teamPort, rate };
} finally {
  for (const store of stores) await store.stop();
}

// ── Report ─────────────────────────────────────────────────────────────────────────────────────────────────────
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? "?"}; 1-min load average before: ${fixed(loadBefore, 2)}; ` +
    `bun ${Bun.version}; agents=${agents} calls/phase=${calls} roomd processes per store=${processes}; ` +
    `${fixed((performance.now() - started) / 1000, 0)} s\n`,
);

const idleOf = (p: Phase, n: NodeCost) => {
  const store = stores.find((s) => s.label === p.base) as Store;
  return store.idleUsPerSecond?.[store.nodes.findIndex((x) => x.port === n.port)] ?? 0;
};
if (processCpuFallback)
  console.log(
    "NOTE: a redis-server reported no main-thread CPU: its figures below are the whole process's.\n",
  );
console.log("Idle main-thread CPU per node (3 s, no calls), µs per second:\n");
console.log(
  table(
    stores.flatMap((s) =>
      s.nodes.map((n, i) => ({
        store: s.label,
        port: n.port,
        role: n.role,
        "µs/s": fixed(s.idleUsPerSecond?.[i] ?? 0),
      })),
    ),
  ),
);
console.log();
console.log("Per store and room count (per tool call; Redis CPU is each node's main thread):\n");
console.log(
  table(
    phases.map((p) => {
      const prim = p.nodes.filter((n) => n.role === "primary");
      const repl = p.nodes.filter((n) => n.role === "replica");
      return {
        store: p.store,
        rooms: p.rooms,
        "calls/s": Math.round(p.perSecond),
        errors: p.errors,
        "roomd CPU-ms / 1,000": Math.round(p.roomdCpuMsPer1000),
        "round trips": fixed(sum(prim.map((n) => n.trips)) / p.calls, 2),
        "commands (incl. in scripts)": fixed(sum(prim.map((n) => n.commands)) / p.calls),
        "primaries' CPU µs (sum)": fixed(sum(prim.map((n) => n.mainUs)) / p.calls),
        "primaries' less idle": fixed(sum(prim.map((n) => n.mainUs - idleOf(p, n) * p.seconds)) / p.calls),
        "of which in scripts": fixed(sum(prim.map((n) => n.scriptUs)) / p.calls),
        "of which sys": fixed(sum(prim.map((n) => n.sysUs)) / p.calls),
        "replicas' CPU µs (sum)": repl.length ? fixed(sum(repl.map((n) => n.mainUs)) / p.calls) : "–",
        "other load": `${fixed(p.other, 0)}%`,
      };
    }),
  ),
);
console.log("\nRound trips by command (client commands at the primaries, per call):\n");
console.log(table(phases.map((p) => ({ store: p.store, rooms: p.rooms, "per call": p.tripsByCommand }))));

const clusterPhases = phases.filter((p) => p.store === stores[2]?.label);
console.log(
  `\nPer primary of the cluster (the team's rate charges, slot ${TEAM_SLOT}, all land on one primary: marked *):\n`,
);
const perPrimary: Record<string, string | number>[] = [];
const balance: Record<string, string | number>[] = [];
const charges: Record<string, string | number>[] = [];
for (const p of clusterPhases) {
  const prim = p.nodes.filter((n) => n.role === "primary");
  const teamPort = stores[2]?.ownerOf(TEAM_SLOT);
  const totalUs = sum(prim.map((n) => n.mainUs));
  // Room scripts per primary: its EVALSHA calls less the rate charges (one per tool call, on the team's primary).
  const roomEvals = prim.map((n) => n.evalsha - (n.port === teamPort ? p.calls : 0));
  const sentTo = prim.map((n) => sum(p.sent.filter((_, i) => p.roomOwner[i] === n.port)));
  for (const [i, n] of prim.entries()) {
    perPrimary.push({
      rooms: p.rooms,
      primary: `${n.port}${n.port === teamPort ? " *" : ""}`,
      "rooms on it": p.roomOwner.filter((o) => o === n.port).length,
      "calls to its rooms": pct((sentTo[i] as number) / p.calls),
      "room EVALSHA": pct((roomEvals[i] as number) / sum(roomEvals)),
      "CPU share": pct(n.mainUs / totalUs),
      "CPU µs / cluster call": fixed(n.mainUs / p.calls),
      "EVALSHA / call": fixed(n.evalsha / p.calls, 2),
      keys: n.keys,
    });
  }
  const N = prim.length;
  const maxOver = (xs: number[]) => Math.max(...xs) / (sum(xs) / xs.length);
  const roomUs = prim.map((n) => n.mainUs);
  // µs per room script on the primaries without the team (all their EVALSHA are room scripts), and the charge's
  // µs as what the team's primary spent beyond its room scripts at that rate.
  const others = prim.filter((n) => n.port !== teamPort);
  const perRoomEval = sum(others.map((n) => n.mainUs)) / sum(others.map((n) => n.evalsha));
  const teamIdx = prim.findIndex((n) => n.port === teamPort);
  const chargeUs = ((prim[teamIdx]?.mainUs ?? 0) - perRoomEval * (roomEvals[teamIdx] ?? 0)) / p.calls;
  const roomOnlyUs = roomUs.map((us, i) => us - (i === teamIdx ? chargeUs * p.calls : 0));
  balance.push({
    rooms: p.rooms,
    N,
    "rooms max/mean": fixed(maxOver(prim.map((n) => p.roomOwner.filter((o) => o === n.port).length)), 2),
    "calls max/mean": fixed(maxOver(sentTo), 2),
    "room EVALSHA max/mean": fixed(maxOver(roomEvals), 2),
    "room CPU max/mean": fixed(maxOver(roomOnlyUs), 2),
    "CPU max/mean (with charges)": fixed(maxOver(roomUs), 2),
    "busiest CPU share vs 1/N": `${pct(Math.max(...roomUs) / totalUs)} vs ${pct(1 / N)}`,
    "simulated E[max/mean] for this R and N": fixed(
      simulate(p.rooms, N, () => 1, trials),
      2,
    ),
  });
  charges.push({
    rooms: p.rooms,
    "µs per room script (primaries without the team)": fixed(perRoomEval),
    "µs per rate charge (team's primary, the rest)": fixed(chargeUs),
    "→ charges/s one shard sustains (1e6 / µs)": Math.round(1e6 / chargeUs),
  });
}
console.log(table(perPrimary));
console.log("\nBalance (max over mean across primaries; 1.00 is perfect):\n");
console.log(table(balance));
console.log("\nThe rate charge, separated (CPU on the team's primary beyond its room scripts):\n");
console.log(table(charges));
if (ceiling)
  console.log(
    `\nper-team ceiling: redis-benchmark -c 50 -P 1 -n 100000 EVALSHA <CONSUME_RATE> on the team's primary ` +
      `(${ceiling.port}): ${Math.round(ceiling.rate)} charges/s`,
  );

// Single node vs cluster: Redis CPU per call, summed over primaries.
console.log(
  "\nWhat the cluster costs extra (primaries' main-thread CPU per call, summed; same rooms, same calls):\n",
);
console.log(
  table(
    roomCounts.map((rooms) => {
      const of = (label: string) => phases.find((p) => p.rooms === rooms && p.store === label) as Phase;
      const us = (p: Phase, idle: boolean) =>
        sum(
          p.nodes
            .filter((n) => n.role === "primary")
            .map((n) => n.mainUs - (idle ? idleOf(p, n) * p.seconds : 0)),
        ) / p.calls;
      const [one, repl, clu, c1] = stores.map((s) => us(of(s.label), false)) as number[] as [
        number,
        number,
        number,
        number,
      ];
      const [oneI, replI, cluI] = stores.map((s) => us(of(s.label), true)) as number[] as [
        number,
        number,
        number,
      ];
      return {
        rooms,
        "1 redis µs": fixed(one),
        "1 redis + replica µs": fixed(repl),
        "cluster µs (sum)": fixed(clu),
        "cluster / (redis + replica)": fixed(clu / repl, 2),
        "cluster of 1 primary µs": fixed(c1),
        "cluster of 1 / 1 redis": fixed(c1 / one, 2),
        "less idle: 1 redis / + replica / cluster": `${fixed(oneI)} / ${fixed(replI)} / ${fixed(cluI)}`,
        "less idle: cluster / (redis + replica)": fixed(cluI / replI, 2),
        "S = 1e6 / (redis + replica µs)": Math.round(1e6 / repl),
      };
    }),
  ),
);

{
  const whole = phases.find((p) => p.store.endsWith("all rooms on one primary"));
  const paired = phases.find((p) => p.store === stores[1]?.label && p.rooms === whole?.rooms);
  if (whole && paired) {
    const usOf = (p: Phase) =>
      sum(p.nodes.filter((n) => n.role === "primary").map((n) => n.mainUs)) / p.calls;
    const busy = whole.nodes
      .filter((n) => n.role === "primary")
      .sort((a, b) => b.mainUs - a.mainUs)[0] as NodeCost;
    console.log(
      `\n${whole.store} (${whole.rooms} rooms, other load ${fixed(whole.other, 0)}%): that primary ` +
        `${fixed(busy.mainUs / whole.calls)} µs/call (${fixed(busy.sysUs / whole.calls)} sys), all primaries ` +
        `${fixed(usOf(whole))} µs/call; 1 redis + replica, same rooms count: ${fixed(usOf(paired))} µs/call → ` +
        `ratio ${fixed(usOf(whole) / usOf(paired), 2)}`,
    );
  }
}

if (memory) {
  const mean = (xs: number[]) => sum(xs) / xs.length;
  const sorted = [...memory.bytes].sort((a, b) => a - b);
  console.log(
    `\nmemory per room (last cluster phase, ${memory.rooms} rooms, MEMORY USAGE SAMPLES 0 over every key): ` +
      `mean ${Math.round(mean(memory.bytes))} B, median ${sorted[Math.floor(sorted.length / 2)]} B, ` +
      `max ${sorted.at(-1)} B; mean ${fixed(mean(memory.keys))} keys, ${fixed(mean(memory.tasks))} tasks, ` +
      `${fixed(mean(memory.events))} events per room`,
  );
}

console.log(
  `\nconnections per node from ${processes} roomd process(es) (connected_clients less the bench's 2): idle, and ` +
    "with one SSE stream open on each room of the last phase (a replica's 1 is its link to its primary):\n",
);
console.log(table(connections.map((c) => ({ ...c }))));

console.log(
  `\nsimulated E[max/mean] of primary load (${trials} trials): rooms hash uniformly to ${SLOTS} slots split ` +
    "evenly over N primaries; equal = every room the same load; 1/√k and 1/k = room k (k = 1…R) carries that " +
    "much (Zipf-like skews; with 1/k the busiest room alone is 1/H(R) of all calls, 10% for R = 10,000):\n",
);
const sims: Record<string, string | number>[] = [];
for (const N of [3, 4, 5, 6, 8, 12, 16, 24]) {
  for (const R of [12, 48, 96, 1000, 10000]) {
    const runs = Math.max(200, Math.round((trials * 96) / Math.max(R, 96)));
    sims.push({
      N,
      R,
      "equal: max/mean": fixed(
        simulate(R, N, () => 1, runs),
        3,
      ),
      "equal: ≈ 1 + √(2 ln N · (N−1) / R)": fixed(1 + Math.sqrt((2 * Math.log(N) * (N - 1)) / R), 3),
      "1/√k: max/mean": fixed(
        simulate(R, N, (k) => 1 / Math.sqrt(k + 1), runs),
        3,
      ),
      "1/k: max/mean": fixed(
        simulate(R, N, (k) => 1 / (k + 1), runs),
        3,
      ),
    });
  }
}
console.log(table(sims));
