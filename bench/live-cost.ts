/**
 * What live rooms add to a write: post_event calls through process A into one room with nobody watching it, then
 * with one SSE stream of it on A, then with one on B. Counted at the store (redis-server commands, Upstash REST
 * requests) and as roomd CPU per call, so the difference between the rows is the cost of watching.
 */

import { openTimedStream, type TimedStream } from "./live-client.ts";
import { otherMeter } from "./live-latency.ts";
import { type Call, runLoad } from "./load.ts";
import { waitForQuiet } from "./phase.ts";
import { cpuMs, type RedisSnapshot } from "./probes.ts";
import { type BenchTarget, callTool, SECRET } from "./server.ts";

export type Watching = "nobody" | "1 stream on A" | "1 stream on B";

export interface CostResult {
  watching: Watching;
  posts: number;
  errors: number;
  perSecond: number;
  /** Commands clients sent to redis-server per post (round trips; the hub's reads included). */
  clientCommandsPerPost?: number;
  /** Every command redis-server ran per post, including those inside scripts. */
  allCommandsPerPost?: number;
  /** SPUBLISH run per post (inside the scripts). */
  spublishPerPost?: number;
  /** µs redis-server spent in SPUBLISH per post (part of the script's time). */
  spublishUsPerPost?: number;
  /** REST requests at the Upstash front per post. */
  restPerPost?: number;
  /** roomd CPU-ms per 1,000 posts, process A and process B. */
  cpuA: number;
  cpuB: number;
  seconds: number;
  otherPercent: number;
}

const calls = (s: RedisSnapshot, name: string) => s.byCommand.get(name)?.calls ?? 0;

async function measure(
  target: BenchTarget,
  watching: Watching,
  posts: number,
  agents: number,
): Promise<CostResult> {
  const [a, b] = target.servers;
  if (!a || !b) throw new Error("the cost phase needs two roomd processes");
  const roomId = `cost-${crypto.randomUUID().slice(0, 8)}`;
  const opened = await callTool<{ seq: number }>(a.url, "post_event", {
    roomId,
    type: "open",
    from: "poster",
  });
  let stream: TimedStream | undefined;
  if (watching !== "nobody") {
    stream = await openTimedStream(watching === "1 stream on A" ? a.url : b.url, roomId);
    await Bun.sleep(500);
  }
  try {
    await waitForQuiet(target);
    const pids = [a.proc.pid, b.proc.pid];
    const other = otherMeter(target);
    const cpu0 = pids.map(cpuMs);
    const rest0 = target.front?.requests ?? 0;
    const redis0 = await target.redis?.probe.snapshot();
    const load = await runLoad({
      url: a.url,
      secret: SECRET,
      agents,
      calls: posts,
      next: (agent, n): Call => ({
        method: "tools/call",
        params: {
          name: "post_event",
          arguments: { roomId, type: "progress", from: `agent-${agent}`, payload: { n } },
        },
      }),
    });
    // The stream's delivery of the last post belongs to the phase's cost: wait for it before reading counters.
    // The log's seqs are contiguous, so the last post's is known without asking (which would count too).
    if (stream) {
      const last = opened.seq + load.calls - load.errors;
      if ((await stream.arrival(last, 5000)) === undefined)
        throw new Error(`the stream missed seq ${last} of ${roomId}`);
    }
    const redis1 = await target.redis?.probe.snapshot();
    const rest1 = target.front?.requests ?? 0;
    const cpu = pids.map((pid, i) => ((cpuMs(pid) - (cpu0[i] ?? 0)) * 1000) / load.calls);
    const n = load.calls;
    return {
      watching,
      posts: n,
      errors: load.errors,
      perSecond: load.perSecond,
      ...(redis0 && redis1
        ? {
            clientCommandsPerPost: (redis1.clientCommands - redis0.clientCommands) / n,
            allCommandsPerPost: (redis1.allCommands - redis0.allCommands) / n,
            spublishPerPost: (calls(redis1, "spublish") - calls(redis0, "spublish")) / n,
            spublishUsPerPost:
              ((redis1.byCommand.get("spublish")?.usec ?? 0) -
                (redis0.byCommand.get("spublish")?.usec ?? 0)) /
              n,
          }
        : {}),
      ...(target.front ? { restPerPost: (rest1 - rest0) / n } : {}),
      cpuA: cpu[0] ?? 0,
      cpuB: cpu[1] ?? 0,
      seconds: load.seconds,
      otherPercent: await other(),
    };
  } finally {
    stream?.close();
  }
}

/** The three cases, each retried (up to `tries`) while other work took more than 10% of the machine. */
export async function callCost(
  target: BenchTarget,
  posts: number,
  tries: number,
  agents = 4,
): Promise<CostResult[]> {
  const results: CostResult[] = [];
  for (const watching of ["nobody", "1 stream on A", "1 stream on B"] as const) {
    let best: CostResult | undefined;
    for (let t = 0; t < tries; t++) {
      const result = await measure(target, watching, posts, agents);
      if (!best || result.otherPercent < best.otherPercent) best = result;
      if (best.otherPercent < 10) break;
    }
    results.push(best as CostResult);
  }
  return results;
}
