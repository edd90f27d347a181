/** keySlot against published values and against CLUSTER KEYSLOT of a real cluster node. */
import { expect, test } from "bun:test";
import { redisCommand, sharedRedisCluster } from "../../../../test/support/redis-cluster.ts";
import { roomKeys, teamKeys } from "../keys.ts";
import { crc16, hashTag, keySlot } from "./slot.ts";

test("CRC16/XMODEM check value and the cluster specification's examples", () => {
  expect(crc16(new TextEncoder().encode("123456789"))).toBe(0x31c3);
  expect(keySlot("{user1000}.following")).toBe(3443);
  expect(keySlot("{user1000}.followers")).toBe(3443);
  expect(keySlot("foo")).toBe(12182);
});

test("hash tags: the first {…} with something inside, else the whole key", () => {
  expect(hashTag("room:{r-1}:meta")).toBe("r-1");
  expect(hashTag("foo{}{bar}")).toBe("foo{}{bar}");
  expect(hashTag("foo{{bar}}zap")).toBe("{bar");
  expect(hashTag("foo{bar}{zap}")).toBe("bar");
  expect(hashTag("no-tag")).toBe("no-tag");
  expect(hashTag("open{only")).toBe("open{only");
});

test("every key of a room (and of a team) is in one slot", () => {
  const slots = new Set(roomKeys("r-abc").map(keySlot));
  expect(slots.size).toBe(1);
  expect(new Set(teamKeys("team-x").map(keySlot)).size).toBe(1);
  expect([...slots][0]).toBe(keySlot("room:{r-abc}:feed"));
});

test("agrees with CLUSTER KEYSLOT on 300 keys, tags, edge cases and non-ASCII names", async () => {
  const cluster = await sharedRedisCluster();
  const keys = [
    "",
    "{}",
    "{",
    "}",
    "foo{}{bar}",
    "foo{{bar}}zap",
    "foo{bar}{zap}",
    "room:{é-ü-日本}:meta",
    "😀",
    ...Array.from({ length: 150 }, (_, i) => `room:{r-${crypto.randomUUID().slice(0, 12)}}:p${i}`),
    ...Array.from({ length: 141 }, () => crypto.randomUUID()),
  ];
  const port = cluster.ports[0] as number;
  const answers = await Promise.all(keys.map((k) => redisCommand(port, "CLUSTER", ["KEYSLOT", k])));
  expect(keys.map(keySlot)).toEqual(answers.map(Number));
});
