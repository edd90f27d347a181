/**
 * Sharded subscribe through the cluster client on a real cluster of its own: messages published by room
 * scripts (SPUBLISH on `room:{<roomId>}:feed`, in the room's slot) reach the listeners of that channel only, on
 * every primary; a subscription follows its slot through a migration and through a failover.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type RedisCluster, startRedisCluster } from "../../../../test/support/redis-cluster.ts";
import { freePort } from "../../../../test/support/redis-server.ts";
import { type ClusterScriptClient, createClusterScriptClient } from "./client.ts";
import { keySlot } from "./slot.ts";

let cluster: RedisCluster;
let client: ClusterScriptClient;
let publisher: ClusterScriptClient;

beforeAll(async () => {
  cluster = await startRedisCluster();
  client = createClusterScriptClient(cluster.url, { timeoutMs: 1000 });
  publisher = createClusterScriptClient(cluster.url, { timeoutMs: 5000 });
});

afterAll(async () => {
  await client.close?.();
  await publisher.close?.();
  await cluster.stop();
});

const newRoom = () => `r-${crypto.randomUUID().slice(0, 12)}`;
const feed = (roomId: string) => `room:{${roomId}}:feed`;
const PUBLISH = "return redis.call('SPUBLISH', ARGV[1], ARGV[2])";

/** Publishes from inside a script run in the room's slot, as the live notifier will. */
const publish = (roomId: string, message: string) =>
  publisher.eval(PUBLISH, [`room:{${roomId}}:meta`], [feed(roomId), message]);

/** Listens on a room's feed, keeping what arrives. */
async function listen(roomId: string) {
  const got: string[] = [];
  const stop = await client.subscribeSharded(feed(roomId), (message, channel) => {
    got.push(`${channel} ${message}`);
  });
  return { got, stop };
}

/** Publishes numbered messages every 100 ms until one arrives; returns how long that took. */
async function publishUntilHeard(roomId: string, got: string[], timeoutMs = 10_000): Promise<number> {
  const started = performance.now();
  for (let n = 0; performance.now() - started < timeoutMs; n++) {
    await publish(roomId, `probe ${n}`).catch(() => {});
    await Bun.sleep(100);
    if (got.some((m) => m.startsWith(`${feed(roomId)} probe`)))
      return Math.round(performance.now() - started);
  }
  throw new Error(`nothing heard on ${feed(roomId)} within ${timeoutMs} ms`);
}

const until = async (what: string, ready: () => boolean, timeoutMs = 10_000) => {
  const deadline = performance.now() + timeoutMs;
  while (!ready()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
};

test("a message published in each room's slot reaches that room's listeners only, on every primary", async () => {
  // Twelve rooms, four on each primary (random ids alone left a primary without a room in 2% of runs).
  const byOwner = new Map<number, string[]>();
  while ([...byOwner.values()].filter((r) => r.length >= 4).length < 3) {
    const roomId = newRoom();
    const owner = await cluster.ownerOf(keySlot(feed(roomId)));
    byOwner.set(owner, [...(byOwner.get(owner) ?? []), roomId]);
  }
  expect(byOwner.size).toBe(3);
  const rooms = [...byOwner.values()].flatMap((r) => r.slice(0, 4));
  const listeners = await Promise.all(rooms.map(listen));
  const second = await listen(rooms[0] as string);
  for (const [i, roomId] of rooms.entries()) expect(await publish(roomId, `hello ${i}`)).toBeGreaterThan(0);
  await until("every message", () => listeners.every((l) => l.got.length === 1) && second.got.length === 1);
  for (const [i, roomId] of rooms.entries())
    expect(listeners[i]?.got).toEqual([`${feed(roomId)} hello ${i}`]);
  expect(second.got).toEqual([`${feed(rooms[0] as string)} hello 0`]);

  // One listener stops; the other on the same channel keeps hearing.
  await listeners[0]?.stop();
  await publish(rooms[0] as string, "after stop");
  await until("the remaining listener", () => second.got.length === 2);
  await Bun.sleep(100);
  expect(listeners[0]?.got).toHaveLength(1);
  await second.stop();
  await Promise.all(listeners.slice(1).map((l) => l.stop()));
});

test("a subscription follows its slot to another primary", async () => {
  const roomId = newRoom();
  const { got, stop } = await listen(roomId);
  const migration = await cluster.migrateSlot(keySlot(feed(roomId)));
  const ms = await publishUntilHeard(roomId, got);
  console.log(
    `[sharded subscribe] slot moved ${migration.from} → ${migration.to}; heard again after ${ms} ms`,
  );
  await stop();
});

test("a subscription comes back after its primary fails over to the replica", async () => {
  const roomId = newRoom();
  const { got, stop } = await listen(roomId);
  await publish(roomId, "before");
  await until("the first message", () => got.length === 1);
  const failover = await cluster.killPrimaryOf(keySlot(feed(roomId)));
  const ms = await publishUntilHeard(roomId, got);
  console.log(
    `[sharded subscribe] primary ${failover.killed} → replica ${failover.promoted} in ${failover.ms} ms; ` +
      `heard again ${ms} ms after the promotion`,
  );
  await stop();
});

test("subscribing on a cluster nobody answers fails within the timeout", async () => {
  const dead = createClusterScriptClient(`redis-cluster://127.0.0.1:${await freePort()}`, { timeoutMs: 300 });
  const started = performance.now();
  await expect(dead.subscribeSharded("room:{x}:feed", () => {})).rejects.toThrow();
  expect(performance.now() - started).toBeLessThan(1000);
  await dead.close?.();
});
