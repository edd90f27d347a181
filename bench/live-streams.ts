/**
 * Many open streams on one roomd process (A) over many rooms: A's resident size without and with them, delivery
 * while they are open (events posted into random rooms through process B, received on every stream of the room),
 * and what watching costs the store while nothing is written, against the same idle window without streams.
 */
import { RedisClient } from "bun";
import { openTimedStream, type Stats, stats, type TimedStream, timedPost } from "./live-client.ts";
import { gap, MISS_MS, otherMeter } from "./live-latency.ts";
import { waitForQuiet } from "./phase.ts";
import { cpuMs } from "./probes.ts";
import { type BenchTarget, callTool, rssMb } from "./server.ts";

/** What an idle window (no writes) cost, per second. */
export interface IdleCost {
  /** Commands clients sent to redis-server (round trips). */
  clientPerSecond?: number;
  /** Every command redis-server ran, including those inside scripts. */
  allPerSecond?: number;
  /** REST requests at the Upstash front. */
  restPerSecond?: number;
  /** Commands per second by name (those that ran at all), e.g. "evalsha 5.0, hmget 500.0". */
  byCommand?: string;
  /** CPU of process A, ms per second of wall time. */
  cpuMsPerSecond: number;
  otherPercent: number;
}

export interface StreamsResult {
  streams: number;
  rooms: number;
  openSeconds: number;
  rss: { before: number; open: number; afterDelivery: number; afterClose: number; cycles: number[] };
  /** Every stream's receipt of every sample (all streams of the posted room). */
  delivery: { fromAck: Stats; fromSend: Stats; lastOfRoomFromAck: Stats; missed: number };
  deliveryOtherPercent: number;
  /** Streams that ended on their own while open (should be none). */
  endedEarly: number;
  idle: { none: IdleCost; open: IdleCost; afterClose: IdleCost };
  /** Sharded pub/sub channels at redis-server (redis store only), with the streams open and after closing. */
  channels?: { open: number; afterClose: number };
}

async function idleCost(target: BenchTarget, seconds: number): Promise<IdleCost> {
  await waitForQuiet(target);
  const pid = target.server.proc.pid;
  const other = otherMeter(target);
  const redis0 = await target.redis?.probe.snapshot();
  const rest0 = target.front?.requests ?? 0;
  const cpu0 = cpuMs(pid);
  const started = performance.now();
  await Bun.sleep(seconds * 1000);
  const wall = (performance.now() - started) / 1000;
  const cpu = (cpuMs(pid) - cpu0) / wall;
  const rest1 = target.front?.requests ?? 0;
  const redis1 = await target.redis?.probe.snapshot();
  return {
    ...(redis0 && redis1
      ? {
          clientPerSecond: (redis1.clientCommands - redis0.clientCommands) / wall,
          allPerSecond: (redis1.allCommands - redis0.allCommands) / wall,
          byCommand: [...redis1.byCommand]
            .map(([name, c]) => [name, (c.calls - (redis0.byCommand.get(name)?.calls ?? 0)) / wall] as const)
            .filter(([name, rate]) => rate > 0 && name !== "info")
            .map(([name, rate]) => `${name} ${rate.toFixed(1)}`)
            .join(", "),
        }
      : {}),
    ...(target.front ? { restPerSecond: (rest1 - rest0) / wall } : {}),
    cpuMsPerSecond: cpu,
    otherPercent: await other(),
  };
}

/** Sharded channels subscribed at the redis-server (one per watched room per process). */
async function shardChannels(target: BenchTarget): Promise<number | undefined> {
  if (target.store !== "redis" || !target.redis) return undefined;
  const client = new RedisClient(target.redis.server.url);
  try {
    return ((await client.send("PUBSUB", ["SHARDCHANNELS"])) as unknown[]).length;
  } finally {
    client.close();
  }
}

/** Opens `count` streams on `url`, stream i on room i mod rooms, `parallel` at a time. */
async function openAll(url: string, rooms: string[], count: number, parallel = 50): Promise<TimedStream[]> {
  const streams: TimedStream[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let i = next++; i < count; i = next++) {
        streams[i] = await openTimedStream(url, rooms[i % rooms.length] as string);
      }
    }),
  );
  return streams;
}

export async function manyStreams(
  target: BenchTarget,
  count: number,
  roomCount: number,
  samples: number,
  idleSeconds: number,
  cycles: number,
): Promise<StreamsResult> {
  const [a, b] = target.servers;
  if (!a || !b) throw new Error("the streams phase needs two roomd processes");
  const rooms = Array.from({ length: roomCount }, (_, i) => `many-${crypto.randomUUID().slice(0, 8)}-${i}`);
  for (const roomId of rooms) await callTool(b.url, "post_event", { roomId, type: "open", from: "seeder" });
  // Warm the stream path on A (JIT, the feed's first watch) before the baseline.
  for (const stream of await openAll(a.url, rooms.slice(0, 5), 5)) stream.close();
  await Bun.sleep(1000);

  const none = await idleCost(target, idleSeconds);
  const before = rssMb(a.proc.pid);
  const opening = performance.now();
  const streams = await openAll(a.url, rooms, count);
  const openSeconds = (performance.now() - opening) / 1000;
  await Bun.sleep(2000);
  const open = rssMb(a.proc.pid);
  const openChannels = await shardChannels(target);
  const idleOpen = await idleCost(target, idleSeconds);

  await waitForQuiet(target);
  const other = otherMeter(target);
  const fromAck: number[] = [];
  const fromSend: number[] = [];
  const lastOfRoom: number[] = [];
  let missed = 0;
  for (let i = 0; i < samples; i++) {
    const r = Math.floor(Math.random() * roomCount);
    const ofRoom = streams.filter((_, s) => s % roomCount === r);
    await gap();
    const posted = await timedPost(b.url, rooms[r] as string);
    const arrivals = await Promise.all(ofRoom.map((s) => s.arrival(posted.seq, MISS_MS)));
    for (const at of arrivals) {
      if (at === undefined) missed++;
      else {
        fromAck.push(at - posted.ackAt);
        fromSend.push(at - posted.sentAt);
      }
    }
    const got = arrivals.filter((at): at is number => at !== undefined);
    if (got.length > 0) lastOfRoom.push(Math.max(...got) - posted.ackAt);
  }
  const deliveryOtherPercent = await other();
  const afterDelivery = rssMb(a.proc.pid);
  const endedEarly = streams.filter((s) => s.ended).length;

  for (const stream of streams) stream.close();
  await Bun.sleep(3000);
  const afterClose = rssMb(a.proc.pid);
  const closedChannels = await shardChannels(target);
  const idleAfter = await idleCost(target, Math.max(3, idleSeconds / 2));
  // Memory that only grows would show over repeated opening and closing of every stream; a garbage collector
  // that frees it late shows as a saw-tooth.
  const afterCycles: number[] = [];
  for (let c = 0; c < cycles; c++) {
    const again = await openAll(a.url, rooms, count);
    for (const roomId of rooms)
      await callTool(b.url, "post_event", { roomId, type: "cycle", from: "seeder" });
    await Bun.sleep(500);
    for (const stream of again) stream.close();
    await Bun.sleep(1500);
    afterCycles.push(rssMb(a.proc.pid));
  }
  return {
    streams: count,
    rooms: roomCount,
    openSeconds,
    rss: { before, open, afterDelivery, afterClose, cycles: afterCycles },
    delivery: {
      fromAck: stats(fromAck),
      fromSend: stats(fromSend),
      lastOfRoomFromAck: stats(lastOfRoom),
      missed,
    },
    deliveryOtherPercent,
    endedEarly,
    idle: { none, open: idleOpen, afterClose: idleAfter },
    ...(openChannels !== undefined && closedChannels !== undefined
      ? { channels: { open: openChannels, afterClose: closedChannels } }
      : {}),
  };
}
