/**
 * The router against a real cluster of its own (this file reshards and kills a primary): routing by slot, MOVED
 * after a migration, ASK during one (without touching the map), TRYAGAIN until the migration ends, the deadline
 * (nothing sent after it), and a failover (an in-flight command is not re-run; later calls ride it out).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import {
  type RedisCluster,
  redisCommand,
  startRedisCluster,
} from "../../../../test/support/redis-cluster.ts";
import { createNodePool, type NodePool } from "./nodes.ts";
import { ClusterUnavailable, createRouter, type Router } from "./route.ts";
import { keySlot } from "./slot.ts";
import { createSlotMap, type SlotMap } from "./slot-map.ts";
import { parseClusterUrl } from "./url.ts";

let cluster: RedisCluster;
let pool: NodePool;
let map: SlotMap;
let router: Router;

beforeAll(async () => {
  cluster = await startRedisCluster();
  const seeds = parseClusterUrl(cluster.url);
  pool = createNodePool(seeds, 1000);
  map = createSlotMap(seeds.seeds, async (address, command, args) =>
    (await pool.connected(address)).send(command, args),
  );
  router = createRouter(map, pool);
});

afterAll(async () => {
  pool.close();
  await cluster.stop();
});

const room = () => `r-${crypto.randomUUID().slice(0, 12)}`;
const within = (ms: number) => performance.now() + ms;
const run = (keys: string[], script: string, args: string[] = [], deadline = within(5000)) =>
  router.send(keySlot(keys[0] as string), "EVAL", [script, String(keys.length), ...keys, ...args], deadline);
const SET = "return redis.call('SET', KEYS[1], ARGV[1])";
const GET = "return redis.call('GET', KEYS[1])";
const INCR_ALL = "for _, k in ipairs(KEYS) do redis.call('INCR', k) end return 'OK'";
const portOf = (address: string | undefined) => Number(address?.split(":").pop());

/** The primary port serving `slot` and another primary's node id and port. */
async function primaries(slot: number) {
  const from = await cluster.ownerOf(slot);
  const nodes = String(await redisCommand(from, "CLUSTER", ["NODES"]))
    .trim()
    .split("\n");
  const ids = new Map(
    nodes.map((l) => [Number(l.split(" ")[1]?.split("@")[0]?.split(":")[1]), l.split(" ")[0]]),
  );
  const target = nodes.find(
    (l) => l.includes("master") && !l.includes("myself") && /\d+-\d+/.test(l),
  ) as string;
  const to = Number(target.split(" ")[1]?.split("@")[0]?.split(":")[1]);
  return { from, fromId: ids.get(from) as string, to, toId: ids.get(to) as string };
}

async function finishMigration(slot: number, toId: string) {
  for (const port of cluster.alive()) {
    await redisCommand(port, "CLUSTER", ["SETSLOT", String(slot), "NODE", toId]).catch(() => {});
  }
}

test("routes each call to the primary serving its first key's slot, over all three primaries", async () => {
  const keys = Array.from({ length: 30 }, () => `room:{${room()}}:meta`);
  for (const key of keys) expect(await run([key], SET, ["v"])).toBe("OK");
  const owners = await Promise.all(keys.map((k) => cluster.ownerOf(keySlot(k))));
  for (const [i, key] of keys.entries())
    expect(await redisCommand(owners[i] as number, "EXISTS", [key])).toBe(1);
  expect(new Set(owners).size).toBe(3);
});

test("MOVED after a migration: the call reaches the new owner and the map learns it", async () => {
  const key = `room:{${room()}}:meta`;
  const slot = keySlot(key);
  await run([key], SET, ["before"]);
  const moved = await cluster.migrateSlot(slot);
  expect(portOf(map.owner(slot))).toBe(moved.from);
  expect(await run([key], GET)).toBe("before");
  expect(portOf(map.owner(slot))).toBe(moved.to);
});

test("ASK during a migration: ASKING then the command on the importing node; the map is unchanged", async () => {
  const key = `room:{${room()}}:new`;
  const slot = keySlot(key);
  const { from, fromId, to, toId } = await primaries(slot);
  await run([`room:{${hashOf(key)}}:warm`], SET, ["x"]);
  await redisCommand(to, "CLUSTER", ["SETSLOT", String(slot), "IMPORTING", fromId]);
  await redisCommand(from, "CLUSTER", ["SETSLOT", String(slot), "MIGRATING", toId]);
  try {
    // The key is not on the migrating node, so it answers ASK; the importing node takes it after ASKING.
    expect(await run([key], SET, ["asked"])).toBe("OK");
    expect(await redisCommand(to, "CLUSTER", ["COUNTKEYSINSLOT", String(slot)])).toBe(1);
    expect(portOf(map.owner(slot))).toBe(from);
    // A key still on the migrating node is served there.
    expect(await run([`room:{${hashOf(key)}}:warm`], GET)).toBe("x");
  } finally {
    await finishMigration(slot, toId);
  }
});

/** The hash tag of a room key. */
const hashOf = (key: string) => key.slice(key.indexOf("{") + 1, key.indexOf("}"));

test("TRYAGAIN while a multi-key call's keys are split: retried until the deadline, never sent after it", async () => {
  const id = room();
  const keys = [`room:{${id}}:a`, `room:{${id}}:b`];
  const slot = keySlot(keys[0] as string);
  for (const k of keys) await run([k], SET, ["10"]);
  const { from, fromId, to, toId } = await primaries(slot);
  await redisCommand(to, "CLUSTER", ["SETSLOT", String(slot), "IMPORTING", fromId]);
  await redisCommand(from, "CLUSTER", ["SETSLOT", String(slot), "MIGRATING", toId]);
  try {
    await redisCommand(from, "MIGRATE", ["127.0.0.1", String(to), keys[0] as string, "0", "5000"]);
    const started = performance.now();
    const late = await run(keys, INCR_ALL, [], within(300)).then(String, (err) => err);
    expect(late).toBeInstanceOf(ClusterUnavailable);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect(performance.now() - started).toBeLessThan(800);

    const patient = run(keys, INCR_ALL, [], within(5000));
    await Bun.sleep(200);
    await redisCommand(from, "MIGRATE", ["127.0.0.1", String(to), keys[1] as string, "0", "5000"]);
    await finishMigration(slot, toId);
    expect(await patient).toBe("OK");
  } finally {
    await finishMigration(slot, toId);
  }
  // Give a stray retry of the timed-out call every chance to land: it must not.
  await Bun.sleep(300);
  for (const k of keys) expect(await run([k], GET)).toBe("11");
});

test("failover: the command in flight is not re-run; calls during it wait for the promotion or time out", async () => {
  const id = room();
  const slot = keySlot(`room:{${id}}:k`);
  await run([`room:{${id}}:k`], SET, ["kept"]);
  // INCR, then spin for 1.5 s: the primary dies mid-script, before it replies.
  const spin =
    "redis.call('INCR', KEYS[1]) local t = redis.call('TIME') local s = t[1] * 1e6 + t[2] " +
    "repeat t = redis.call('TIME') until t[1] * 1e6 + t[2] - s > 1500000 return 'done'";
  const busy = run([`room:{${id}}:busy`], spin, [], within(15_000)).then(String, (err) => err);
  await Bun.sleep(200);
  const failover = cluster.killPrimaryOf(slot);
  const broken = await busy;
  // The connection broke after the command was written: unknown outcome, so an error, not a retry elsewhere.
  expect(broken).toBeInstanceOf(Error);
  expect(broken).not.toBeInstanceOf(ClusterUnavailable);

  const started = performance.now();
  const short = run([`room:{${id}}:short`], SET, ["x"], within(500)).then(String, (err) => err);
  const patient = run([`room:{${id}}:after`], SET, ["y"], within(15_000));
  expect(await short).toBeInstanceOf(ClusterUnavailable);
  expect(performance.now() - started).toBeLessThan(1000);
  const { killed, promoted, ms } = await failover;
  expect(await patient).toBe("OK");
  expect(portOf(map.owner(slot))).toBe(promoted);
  expect(promoted).not.toBe(killed);
  console.log(`[router failover] primary ${killed} → replica ${promoted} in ${ms} ms`);
  expect(await run([`room:{${id}}:k`], GET)).toBe("kept");
  expect(await run([`room:{${id}}:busy`], GET)).toBeNull();
  expect(await run([`room:{${id}}:short`], GET)).toBeNull();
});
