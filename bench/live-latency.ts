/**
 * Delivery latency of live rooms: one event at a time posted through roomd process A, received on an SSE stream
 * or by a pending wait_for_events on A (same process) or on B (cross-process, learning of the write through the
 * store's change feed). Each sub-phase runs alone on a fresh room, so nothing else watches or writes meanwhile.
 */
import { cpus } from "node:os";
import { openTimedStream, type Posted, type Stats, stats, timedPost } from "./live-client.ts";
import { otherPercent, waitForQuiet } from "./phase.ts";
import { cpuMs, machineBusyMs } from "./probes.ts";
import { type BenchTarget, callTool } from "./server.ts";

export type Path = "same-process" | "cross-process";
export type Via = "SSE stream" | "wait_for_events";

export interface LatencyResult {
  path: Path;
  via: Via;
  /** Receipt minus the moment the acknowledged post_event answer was read (negative: the event came first). */
  fromAck: Stats;
  /** Receipt minus the moment just before the post was sent. */
  fromSend: Stats;
  /** The post_event round trip itself. */
  post: Stats;
  /** Posts never delivered within 5 s (or delivered wrong). */
  missed: number;
  /** Share of the machine used by other work during the sub-phase, %. */
  otherPercent: number;
}

/** How long a delivery may take before the sample counts as missed. */
export const MISS_MS = 5000;

/**
 * Gap before each post: 20 ms plus up to 200 ms, uniformly. Posts follow the previous delivery, which follows a
 * feed poll tick (SQLite 50 ms, Upstash UPSTASH_POLL_MS); a gap spread over a whole poll period lands each post at a
 * uniformly random point of the period, as real writes do. A fixed or narrow gap would lock the posts to the
 * ticks and bias the measured latency.
 */
export const gap = () => Bun.sleep(20 + Math.random() * 200);

/** Measures the share of the machine other work took between start and stop (see phase.ts). */
export function otherMeter(target: BenchTarget): () => Promise<number> {
  const pids = target.servers.map((s) => s.proc.pid);
  const own = () => pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  const redisMs = async () => ((await target.redis?.probe.snapshot())?.cpuSeconds ?? 0) * 1000;
  const started = performance.now();
  const busy0 = machineBusyMs();
  const own0 = own();
  const self0 = process.cpuUsage();
  const redis0 = redisMs();
  return async () => {
    const self = process.cpuUsage(self0);
    const spent = [own() - own0, (self.user + self.system) / 1000, (await redisMs()) - (await redis0)];
    return otherPercent(machineBusyMs() - busy0, (performance.now() - started) * cpus().length, spent);
  };
}

const newRoom = () => `live-${crypto.randomUUID().slice(0, 8)}`;

/** Posts `samples` events one at a time through `poster`; `receive` says when each arrived (undefined: missed). */
async function sample(
  samples: number,
  post: () => Promise<Posted>,
  receive: (posted: Posted) => Promise<number | undefined>,
  before: () => void = () => {},
) {
  const fromAck: number[] = [];
  const fromSend: number[] = [];
  const posts: number[] = [];
  let missed = 0;
  for (let i = 0; i < samples; i++) {
    before();
    await gap();
    const posted = await post();
    posts.push(posted.ackAt - posted.sentAt);
    const at = await receive(posted);
    if (at === undefined || at < posted.sentAt) {
      missed++;
      continue;
    }
    fromAck.push(at - posted.ackAt);
    fromSend.push(at - posted.sentAt);
  }
  return { fromAck: stats(fromAck), fromSend: stats(fromSend), post: stats(posts), missed };
}

async function viaStream(poster: string, watcher: string, samples: number) {
  const roomId = newRoom();
  await callTool(poster, "post_event", { roomId, type: "open", from: "poster" });
  const stream = await openTimedStream(watcher, roomId);
  // The feed's own start (Redis SSUBSCRIBE, the first Upstash poll) settles before measuring.
  await Bun.sleep(500);
  try {
    const result = await sample(
      samples,
      () => timedPost(poster, roomId),
      (posted) => stream.arrival(posted.seq, MISS_MS),
    );
    if (stream.ended) throw new Error(`the stream of ${roomId} on ${watcher} ended during the run`);
    return result;
  } finally {
    stream.close();
  }
}

async function viaWait(poster: string, watcher: string, samples: number) {
  const roomId = newRoom();
  const agentId = "waiter";
  await callTool(poster, "post_event", { roomId, type: "open", from: "poster", to: "someone-else" });
  let pending: Promise<number | undefined> = Promise.resolve(undefined);
  let abort = new AbortController();
  let got: { seqs: number[]; timedOut: boolean } | undefined;
  // Each sample's wait is sent before the gap, so it is parked on the hub when the post lands.
  const startWait = () => {
    abort = new AbortController();
    got = undefined;
    pending = callTool<{ events: { seq: number }[]; timedOut: boolean }>(
      watcher,
      "wait_for_events",
      { roomId, agentId, timeoutSeconds: 30, limit: 50 },
      abort.signal,
    ).then(
      (r) => {
        got = { seqs: r.events.map((e) => e.seq), timedOut: r.timedOut };
        return performance.now();
      },
      () => undefined,
    );
  };
  try {
    return await sample(
      samples,
      () => timedPost(poster, roomId, agentId),
      async (posted) => {
        const at = await Promise.race([pending, Bun.sleep(MISS_MS).then(() => undefined)]);
        if (at === undefined || !got || got.timedOut || !got.seqs.includes(posted.seq)) {
          abort.abort();
          // Whatever the failed wait left unread would end the next one early: consume it now.
          await callTool(watcher, "get_unread_events", { roomId, agentId, limit: 100 });
          return undefined;
        }
        return at;
      },
      startWait,
    );
  } finally {
    abort.abort();
  }
}

/**
 * Same-process and cross-process latency, through SSE and wait_for_events, on a target of at least two
 * processes. A sub-phase during which other work took more than 10% of the machine is run again (up to
 * `tries`; the cleanest is kept).
 */
export async function deliveryLatency(
  target: BenchTarget,
  samples: number,
  tries: number,
): Promise<LatencyResult[]> {
  const [a, b] = target.servers;
  if (!a || !b) throw new Error("delivery latency needs two roomd processes");
  const results: LatencyResult[] = [];
  for (const via of ["SSE stream", "wait_for_events"] as const) {
    for (const path of ["same-process", "cross-process"] as const) {
      const watcher = path === "same-process" ? a.url : b.url;
      let best: LatencyResult | undefined;
      for (let t = 0; t < tries; t++) {
        await waitForQuiet(target);
        const other = otherMeter(target);
        const run = via === "SSE stream" ? viaStream : viaWait;
        const result = { path, via, ...(await run(a.url, watcher, samples)), otherPercent: await other() };
        process.stderr.write(
          `  ${via}, ${path}, try ${t + 1}: p99 ${result.fromAck.p99.toFixed(1)} ms, other load ${Math.round(result.otherPercent)}%\n`,
        );
        if (!best || result.otherPercent < best.otherPercent) best = result;
        if (best.otherPercent < 10) break;
      }
      results.push(best as LatencyResult);
    }
  }
  return results;
}
