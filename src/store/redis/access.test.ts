/**
 * Driver-specific properties of the Redis store's access half, on a private redis-server: round trips per
 * operation (one each, three for the claim handshake of a room's first write), the team and invite key layout,
 * and views that write nothing. The room index is in room-index.test.ts.
 * Behaviour shared with the other drivers is in test/store/conformance/access-*.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { type CountingClient, countingClient } from "../../../bench/round-trips-measure.ts";
import { type RedisServer, startRedisServer } from "../../../test/support/redis-server.ts";
import { KEY_USE_STEP_MS, keyLive, useDue } from "../../protocol/key-life.ts";
import { iso } from "../../protocol/time.ts";
import type { NewInvite, NewKey } from "../access-types.ts";
import type { RoomScope, RoomStore } from "../types.ts";
import { SCRIPTS } from "./scripts.ts";
import { createRedisStore } from "./store.ts";
import { createTcpScriptClient } from "./tcp-client.ts";

const TIMEOUT_MS = 2000;
let server: RedisServer;
let raw: RedisClient;
let t = Math.floor(Date.now() / 1000) * 1000;
const now = () => t;
let client: CountingClient;
let store: RoomStore;

async function roundTrips(op: () => Promise<unknown>): Promise<number> {
  client.count = 0;
  await op();
  return client.count;
}

const id8 = () => crypto.randomUUID().slice(0, 8);
const newScope = (): RoomScope => ({ roomId: `r-${id8()}`, teamId: `t-${id8()}` });
const digest = () => new Bun.CryptoHasher("sha256").update(crypto.randomUUID()).digest("hex");
const newKey = (teamId: string): NewKey => ({
  keyId: `k_${teamId}_${id8()}`,
  teamId,
  kind: "dynamic",
  createdAt: iso(t),
  hint: "****abcd",
  digest: digest(),
});
const newInvite = (scope: RoomScope): NewInvite => ({
  tokenId: `i_${id8()}`,
  roomId: scope.roomId,
  teamId: scope.teamId,
  createdAt: iso(t),
  expiresAt: iso(t + 3_600_000),
  hint: "****abcd",
  digest: digest(),
});
const task = { title: "t", description: "", depends_on: [], priority: null };
const keysOf = async (pattern: string) => ((await raw.send("KEYS", [pattern])) as string[]).sort();

beforeAll(async () => {
  server = await startRedisServer();
  raw = new RedisClient(server.url);
  client = countingClient(createTcpScriptClient(server.url, { timeoutMs: TIMEOUT_MS }));
  store = createRedisStore({
    client,
    driver: "redis",
    now,
    timeoutMs: TIMEOUT_MS,
  });
  for (const script of Object.values(SCRIPTS)) await raw.send("SCRIPT", ["LOAD", script.text]);
});

afterAll(async () => {
  await store.close();
  raw.close();
  await server.stop();
});

describe("round trips", () => {
  test("a room's first write costs three (the claim handshake), every later call one", async () => {
    const s = newScope();
    expect(await roundTrips(() => store.addTask(s, task))).toBe(3);
    expect(await roundTrips(() => store.addTask(s, task))).toBe(1);
    expect(await roundTrips(() => store.setVar(s, "k", "v", "a"))).toBe(1);
    const fresh = newScope();
    expect(await roundTrips(() => store.createRoom(fresh))).toBe(3);
    expect(await roundTrips(() => store.createRoom(fresh))).toBe(1);
    // An invite holder on an unowned room is refused after the first run: no reservation.
    const unowned = { ...newScope(), mayClaim: false };
    expect(await roundTrips(() => store.heartbeat(unowned, "a").catch(() => {}))).toBe(1);
  });

  test("every access operation costs one round trip (key creation two, deleteRoom two, listRooms one plus one per room)", async () => {
    const s = newScope();
    await store.createRoom(s);
    const key = newKey(s.teamId);
    const invite = newInvite(s);
    const rate = { bucket: "tools", limit: 100, windowMs: 60_000 } as const;
    // Storing a key also lists its team in the teams index, a key of its own slot: a second round trip.
    expect(await roundTrips(() => store.provisionTeam(newKey(`${s.teamId}-new`)))).toBe(2);
    expect(await roundTrips(() => store.createKey(key, 50))).toBe(2);
    const session = digest();
    const record = { teamId: s.teamId, humanId: "p", credential: { kind: "proxy" as const }, createdAt: "x" };
    const measured: Record<string, number> = {
      listTeams: await roundTrips(() => store.listTeams()),
      createSession: await roundTrips(() => store.createSession(session, record, 60_000)),
      touchSession: await roundTrips(() => store.touchSession(session, 60_000)),
      deleteSession: await roundTrips(() => store.deleteSession(session)),
      resolveKey: await roundTrips(() => store.resolveKey(s.teamId, key.digest)),
      "resolveKey (rate)": await roundTrips(() => store.resolveKey(s.teamId, key.digest, rate)),
      "resolveKey (unknown)": await roundTrips(() => store.resolveKey(s.teamId, digest(), rate)),
      consumeRate: await roundTrips(() => store.consumeRate(s.teamId, rate)),
      listKeys: await roundTrips(() => store.listKeys(s.teamId)),
      // The team is indexed already (it has a key): a rotation is its one script.
      rotateKey: await roundTrips(() =>
        store.rotateKey(s.teamId, key.keyId, newKey(s.teamId), iso(t + 60_000), 50),
      ),
      deleteKey: await roundTrips(() => store.deleteKey(s.teamId, key.keyId)),
      createInvite: await roundTrips(() => store.createInvite(invite, 50)),
      resolveInvite: await roundTrips(() => store.resolveInvite(s.roomId, invite.digest)),
      "resolveInvite (rate)": await roundTrips(() => store.resolveInvite(s.roomId, invite.digest, rate)),
      listInvites: await roundTrips(() => store.listInvites(s)),
      deleteInvite: await roundTrips(() => store.deleteInvite(s, invite.tokenId)),
      roomStats: await roundTrips(() => store.roomStats(s.roomId)),
      roomSummary: await roundTrips(() => store.roomSummary(s.roomId, s.teamId)),
    };
    expect(measured).toEqual(Object.fromEntries(Object.keys(measured).map((op) => [op, 1])));
    await store.createRoom({ ...s, roomId: `r-${id8()}` });
    expect(await roundTrips(() => store.listRooms(s.teamId))).toBe(1 + 2);
    expect(await roundTrips(() => store.deleteRoom(s))).toBe(2);
  });
});

describe("a key's use", () => {
  test("lastUsedAt is a field of the team's key_used hash, written inside the lookup's one script, once a minute", async () => {
    const s = newScope();
    const key = newKey(s.teamId);
    await store.createKey(key, 50);
    const rate = { bucket: "tools", limit: 100, windowMs: 60_000 } as const;
    const used = () => raw.send("HGET", [`team:{${s.teamId}}:key_used`, key.keyId]);
    // Without a charge the lookup is a read: one round trip, nothing written.
    expect(await roundTrips(() => store.resolveKey(s.teamId, key.digest))).toBe(1);
    expect(await used()).toBeNull();
    // The charged lookup, the charge and the use: still one round trip.
    expect(await roundTrips(() => store.resolveKey(s.teamId, key.digest, rate))).toBe(1);
    expect(await used()).toBe(String(t));
    const first = t;
    t += 30_000;
    expect(await roundTrips(() => store.resolveKey(s.teamId, key.digest, rate))).toBe(1);
    expect(await used()).toBe(String(first));
    t += 30_000;
    expect(await roundTrips(() => store.resolveKey(s.teamId, key.digest, rate))).toBe(1);
    expect(await used()).toBe(String(t));
    expect((await store.listKeys(s.teamId))[0]?.lastUsedAt).toBe(iso(t));
    // Deleting the key forgets its use.
    await store.deleteKey(s.teamId, key.keyId);
    expect(await used()).toBeNull();
  });
});

describe("the key rules in Lua agree with protocol/key-life.ts", () => {
  test("useDue and keyLive: RESOLVE_KEY writes a use and finds a key exactly when the TypeScript rules say so", async () => {
    const rate = { bucket: "tools", limit: 1000, windowMs: 60_000 } as const;
    for (const ago of [
      undefined,
      0,
      1,
      KEY_USE_STEP_MS - 1,
      KEY_USE_STEP_MS,
      KEY_USE_STEP_MS + 1,
      3_600_000,
    ]) {
      for (const ahead of [undefined, -1, 0, 1, 60_000]) {
        const key = {
          ...newKey(`t-${id8()}`),
          ...(ago !== undefined ? { lastUsedAt: iso(t - ago) } : {}),
          ...(ahead !== undefined ? { expiresAt: iso(t + ahead) } : {}),
        };
        await store.createKey(key, 50);
        const found = (await store.resolveKey(key.teamId, key.digest, rate)).key !== null;
        const live = keyLive(ahead === undefined ? undefined : t + ahead, t);
        expect({ ago, ahead, found }).toEqual({ ago, ahead, found: live });
        const used = await raw.send("HGET", [`team:{${key.teamId}}:key_used`, key.keyId]);
        const due = live && useDue(ago === undefined ? undefined : t - ago, t);
        const expected = due ? String(t) : ago === undefined ? null : String(t - ago);
        expect({ ago, ahead, used }).toEqual({ ago, ahead, used: expected });
      }
    }
  });
});

describe("key layout", () => {
  test("team records live under team:{<teamId>}; rate windows expire windowMs after their last admission", async () => {
    const s = newScope();
    await store.createKey(newKey(s.teamId), 50);
    await store.addTask(s, task);
    await store.consumeRate(s.teamId, { bucket: "tools", limit: 5, windowMs: 60_000 });
    await store.consumeRate(s.teamId, { bucket: "meta", limit: 5, windowMs: 30_000 });
    const parts = ["key_digests", "keys", "meta", "rl:meta", "rl:tools", "rooms"];
    expect(await keysOf(`team:{${s.teamId}}:*`)).toEqual(parts.map((p) => `team:{${s.teamId}}:${p}`));
    const ttl = (key: string) => raw.send("PTTL", [`team:{${s.teamId}}:${key}`]) as Promise<number>;
    expect(await ttl("rl:tools")).toBeWithin(55_000, 60_001);
    expect(await ttl("rl:meta")).toBeWithin(25_000, 30_001);
    expect(await ttl("keys")).toBe(-1);
  });

  test("invite records live in the room's slot; its rate window is its own key there, expiring with the window", async () => {
    const s = newScope();
    await store.createRoom(s);
    const invite = newInvite(s);
    await store.createInvite(invite, 50);
    await store.resolveInvite(s.roomId, invite.digest, { bucket: "tools", limit: 5, windowMs: 60_000 });
    const windows = await keysOf(`room:{${s.roomId}}:rl:*`);
    expect(windows).toHaveLength(1);
    expect(windows[0]).toMatch(new RegExp(`^room:\\{${s.roomId}\\}:rl:[0-9a-f]{16}:tools$`));
    expect(windows[0]).not.toContain(invite.digest);
    expect((await raw.send("PTTL", [windows[0] as string])) as number).toBeWithin(55_000, 60_001);
    expect(await raw.send("HGET", [`room:{${s.roomId}}:invite_digests`, invite.digest])).toBe(invite.tokenId);

    await store.deleteRoom(s);
    // Everything but the rate window (which expires on its own) is gone, and so is the index place.
    expect(await keysOf(`room:{${s.roomId}}:*`)).toEqual(windows);
    expect(await raw.send("ZSCORE", [`team:{${s.teamId}}:rooms`, s.roomId])).toBeNull();
  });

  test("roomStats and roomSummary write nothing and refresh no TTL", async () => {
    const s = newScope();
    await store.addTask(s, task);
    const meta = `room:{${s.roomId}}:meta`;
    await raw.send("PEXPIRE", [meta, "100000"]);
    const before = await raw.send("HGETALL", [meta]);
    t += 5_000;
    await store.roomStats(s.roomId);
    await store.roomSummary(s.roomId);
    await store.roomSummary(s.roomId, s.teamId);
    expect((await raw.send("PTTL", [meta])) as number).toBeLessThanOrEqual(100_000);
    expect(await raw.send("HGETALL", [meta])).toEqual(before);
  });
});
