/**
 * `bun bench/live.ts [--store sqlite,redis,upstash] [--streams 1000] [--rooms 100] [--samples 200] [--posts 2000]
 *  [--idle 10] [--tries 2] [--cycles 10] [--upstash-poll-ms 200,100] [--phases latency,cost,streams]` — live rooms (SSE streams and wait_for_events) on real roomd processes per store:
 * 1. delivery latency, same-process and cross-process (two roomd processes on one store);
 * 2. `--streams` open streams on one process over `--rooms` rooms: resident size, delivery while open, and the
 *    store requests watching costs while nothing is written, and the resident size over `--cycles` more rounds
 *    of opening and closing them all;
 * 3. what a post_event costs with nobody watching its room and with one stream of it.
 * Upstash runs once per `--upstash-poll-ms` value (UPSTASH_POLL_MS: its feed's tick). `--phases` picks the parts.
 * Prints markdown tables. A phase during which other work took more than 10% of the machine is run again (up to
 * `--tries`; the cleanest run is kept); each table shows how busy the machine was.
 */
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { openTimedStream, triple } from "./live-client.ts";
import { callCost } from "./live-cost.ts";
import { deliveryLatency } from "./live-latency.ts";
import { type IdleCost, manyStreams } from "./live-streams.ts";
import { BENCH_STORES, type BenchStore, callTool, startTarget, table } from "./server.ts";

const { values } = parseArgs({
  options: {
    store: { type: "string" },
    streams: { type: "string", default: "1000" },
    rooms: { type: "string", default: "100" },
    samples: { type: "string", default: "200" },
    posts: { type: "string", default: "2000" },
    idle: { type: "string", default: "10" },
    tries: { type: "string", default: "2" },
    cycles: { type: "string", default: "10" },
    "upstash-poll-ms": { type: "string", default: "200" },
    phases: { type: "string", default: "latency,cost,streams" },
  },
});
const streamCount = Number(values.streams);
const roomCount = Number(values.rooms);
const samples = Number(values.samples);
const posts = Number(values.posts);
const idleSeconds = Number(values.idle);
const tries = Number(values.tries);
const cycles = Number(values.cycles);
const upstashTicks = values["upstash-poll-ms"].split(",").filter(Boolean);
const phases = new Set(values.phases.split(","));
const stores = values.store ? (values.store.split(",").filter(Boolean) as BenchStore[]) : BENCH_STORES;
for (const store of stores) if (!BENCH_STORES.includes(store)) throw new Error(`unknown store ${store}`);

// Bun's fetch runs at most BUN_CONFIG_MAX_HTTP_REQUESTS (default 256) requests at once, read at start-up; each
// open stream is one. Run again with room for every stream (and the calls beside them).
const needed = Math.max(512, streamCount + 256);
if (Number(process.env.BUN_CONFIG_MAX_HTTP_REQUESTS ?? 256) < needed) {
  const child = Bun.spawn([process.execPath, ...process.argv.slice(1)], {
    env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: String(needed) },
    stdio: ["inherit", "inherit", "inherit"],
  });
  process.exit(await child.exited);
}

// Every stream and room here belongs to one team: lift the per-team limits (not what is measured).
const limits = { STREAMS_PER_TEAM: "100000", ROOMS_PER_TEAM: "100000" };
const log = (text: string) =>
  process.stderr.write(`[live ${new Date().toISOString().slice(11, 19)}] ${text}\n`);
const fixed = (n: number | undefined, digits = 2) => (n === undefined ? "—" : n.toFixed(digits));
const latencyRows: Record<string, string | number>[] = [];
const streamRows: Record<string, string | number>[] = [];
const idleRows: Record<string, string | number>[] = [];
const costRows: Record<string, string | number>[] = [];

/** JIT, connection pools and script caches of both processes, before anything is measured. */
async function warmUp(urls: string[]): Promise<void> {
  const roomId = `warm-${crypto.randomUUID().slice(0, 8)}`;
  for (let i = 0; i < 150; i++) {
    for (const url of urls) await callTool(url, "post_event", { roomId, type: "warm", from: "warm" });
  }
  for (const url of urls) {
    const stream = await openTimedStream(url, roomId);
    await callTool(url, "post_event", { roomId, type: "warm", from: "warm" });
    await Bun.sleep(300);
    stream.close();
    await callTool(url, "wait_for_events", { roomId, agentId: "warm-w", timeoutSeconds: 0 });
  }
}

/** Runs the chosen phases on `store`; its rows are labelled `label` (the store, with Upstash's tick). */
async function benchStore(store: BenchStore, label: string, env: Record<string, string>): Promise<void> {
  if (phases.has("latency") || phases.has("cost")) await latencyAndCost(store, label, env);
  if (phases.has("streams")) await streams(store, label, env);
}

async function latencyAndCost(store: BenchStore, label: string, env: Record<string, string>): Promise<void> {
  log(`${label}: latency and call cost`);
  const target = await startTarget(store, { processes: 2, env });
  try {
    await warmUp(target.servers.map((s) => s.url));
    const measured = phases.has("latency") ? await deliveryLatency(target, samples, tries) : [];
    for (const r of measured) {
      latencyRows.push({
        store: label,
        delivery: r.via,
        path: r.path,
        samples: r.fromAck.n,
        missed: r.missed,
        "from ack: p50 / p99 / max ms": triple(r.fromAck),
        "from send: p50 / p99 / max ms": triple(r.fromSend),
        "post_event p50 ms": r.post.p50,
        "other load %": Math.round(r.otherPercent),
      });
    }
    log(`${label}: cost per post_event`);
    const costs = phases.has("cost") ? await callCost(target, posts, tries) : [];
    for (const r of costs) {
      costRows.push({
        store: label,
        watching: r.watching,
        posts: r.posts,
        errors: r.errors,
        "posts/s": Math.round(r.perSecond),
        "round trips/post (redis-server)": fixed(r.clientCommandsPerPost),
        "REST requests/post": fixed(r.restPerPost),
        "commands/post incl. inside Lua": fixed(r.allCommandsPerPost),
        "SPUBLISH/post (µs)":
          r.spublishPerPost === undefined
            ? "—"
            : `${fixed(r.spublishPerPost)} (${fixed(r.spublishUsPerPost, 1)})`,
        "roomd CPU-ms/1k posts A + B": `${Math.round(r.cpuA)} + ${Math.round(r.cpuB)}`,
        "other load %": Math.round(r.otherPercent),
      });
    }
  } finally {
    await target.stop();
  }
}

async function streams(store: BenchStore, label: string, env: Record<string, string>): Promise<void> {
  log(`${label}: ${streamCount} streams over ${roomCount} rooms`);
  const fresh = await startTarget(store, { processes: 2, env });
  try {
    await warmUp(fresh.servers.map((s) => s.url));
    const r = await manyStreams(fresh, streamCount, roomCount, samples, idleSeconds, cycles);
    streamRows.push({
      store: label,
      "streams / rooms": `${r.streams} / ${r.rooms}`,
      "open time s": r.openSeconds,
      "RSS before MB": Math.round(r.rss.before),
      "RSS open MB": Math.round(r.rss.open),
      "added MB": Math.round(r.rss.open - r.rss.before),
      "RSS after delivery / after close MB": `${Math.round(r.rss.afterDelivery)} / ${Math.round(r.rss.afterClose)}`,
      [`RSS after each of ${cycles} more open/close cycles: min–max (last) MB`]:
        r.rss.cycles.length === 0
          ? "—"
          : `${Math.round(Math.min(...r.rss.cycles))}–${Math.round(Math.max(...r.rss.cycles))} (${Math.round(r.rss.cycles.at(-1) ?? 0)})`,
      "delivery from ack: p50 / p99 / max ms": triple(r.delivery.fromAck),
      "last stream of room p99 ms": fixed(r.delivery.lastOfRoomFromAck.p99, 1),
      receipts: r.delivery.fromAck.n,
      missed: r.delivery.missed,
      "ended early": r.endedEarly,
      "other load %": Math.round(r.deliveryOtherPercent),
    });
    const idle = (window: string, c: IdleCost) =>
      idleRows.push({
        store: label,
        window,
        "REST requests/s": fixed(c.restPerSecond),
        "redis-server round trips/s": fixed(c.clientPerSecond),
        "redis-server commands/s incl. inside Lua": fixed(c.allPerSecond),
        "redis-server commands/s by name": c.byCommand || "—",
        "roomd A CPU ms/s": fixed(c.cpuMsPerSecond, 1),
        "sharded channels": "",
        "other load %": Math.round(c.otherPercent),
      });
    idle("no stream", r.idle.none);
    idle(`${r.streams} streams open`, r.idle.open);
    idle("after closing them", r.idle.afterClose);
    if (r.channels) {
      const rows = idleRows.slice(-2);
      if (rows[0]) rows[0]["sharded channels"] = r.channels.open;
      if (rows[1]) rows[1]["sharded channels"] = r.channels.afterClose;
    }
  } finally {
    await fresh.stop();
  }
}

const loadBefore = loadavg()[0] ?? 0;
for (const store of stores) {
  if (store !== "upstash") await benchStore(store, store, limits);
  else {
    for (const tick of upstashTicks)
      await benchStore(store, `upstash (${tick} ms)`, { ...limits, UPSTASH_POLL_MS: tick });
  }
}
console.log(
  `streams=${streamCount} rooms=${roomCount} samples=${samples} posts=${posts} idle=${idleSeconds}s bun=${Bun.version}`,
);
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model}; 1-min load average before: ${loadBefore.toFixed(2)}\n`,
);
/** A section's table, only when the phases run filled it. */
function section(title: string, rows: Record<string, string | number>[], note?: string): void {
  if (rows.length === 0) return;
  console.log(`### ${title}\n`);
  console.log(table(rows));
  if (note) console.log(`\n${note}`);
  console.log("");
}
section("Delivery latency (posted through process A; watched on A or on B)", latencyRows);
section(
  `${streamCount} streams on process A over ${roomCount} rooms (posts through B, received on every stream of the room)`,
  streamRows,
);
section(
  "Store requests while idle (no writes), process A watching",
  idleRows,
  stores.includes("sqlite")
    ? "SQLite: nothing to count at a store; watching costs one `PRAGMA data_version` per 50 ms per process while any room is watched (in-process), shown as roomd CPU."
    : undefined,
);
section("Cost of a post_event (through A, one room)", costRows);
