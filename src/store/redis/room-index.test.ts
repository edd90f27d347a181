/**
 * The Redis driver's team room index (room-index.ts, the claim handshake in call.ts) on a private redis-server:
 * places of rooms the team no longer owns are pruned at the limit, a failed claim gives its place back, and
 * concurrent first writes of one room take one place. The limit itself is in test/store/conformance/access-rooms.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { type RedisServer, startRedisServer } from "../../../test/support/redis-server.ts";
import type { RoomError } from "../../protocol/errors.ts";
import type { RoomScope, RoomStore } from "../types.ts";
import type { ScriptClient } from "./client.ts";
import { createRedisStore } from "./store.ts";
import { createTcpScriptClient } from "./tcp-client.ts";

const TIMEOUT_MS = 2000;
let server: RedisServer;
let raw: RedisClient;
let t = Math.floor(Date.now() / 1000) * 1000;
/** Runs before each EVALSHA with its ARGV, to stage races. */
let beforeCall: (args: string[]) => Promise<void> = async () => {};
/** A store with roomsPerTeam = 2. */
let limited: RoomStore;

function hooked(inner: ScriptClient): ScriptClient {
  return {
    evalsha: async (sha, keys, args) => {
      await beforeCall(args);
      return inner.evalsha(sha, keys, args);
    },
    eval: (script, keys, args) => inner.eval(script, keys, args),
    ping: () => inner.ping(),
    close: () => inner.close?.(),
  };
}

const id8 = () => crypto.randomUUID().slice(0, 8);
const newScope = (): RoomScope => ({ roomId: `r-${id8()}`, teamId: `t-${id8()}` });
const task = { title: "t", description: "", depends_on: [], priority: null };

beforeAll(async () => {
  server = await startRedisServer();
  raw = new RedisClient(server.url);
  limited = createRedisStore({
    client: hooked(createTcpScriptClient(server.url, { timeoutMs: TIMEOUT_MS })),
    driver: "redis",
    now: () => t,
    timeoutMs: TIMEOUT_MS,
    limits: { roomsPerTeam: 2 },
  });
});

afterAll(async () => {
  await limited.close();
  raw.close();
  await server.stop();
});

describe("room index", () => {
  const reserved = (s: RoomScope) => raw.send("ZSCORE", [`team:{${s.teamId}}:rooms`, s.roomId]);
  const limitError = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: RoomError) => e.kind,
    );

  test("at the limit, places of rooms the team no longer owns are pruned (once past the grace period)", async () => {
    const teamId = `t-${id8()}`;
    const [a, b, c] = [0, 1, 2].map((): RoomScope => ({ roomId: `r-${id8()}`, teamId })) as [
      RoomScope,
      RoomScope,
      RoomScope,
    ];
    await limited.addTask(a, task);
    await limited.addTask(b, task);
    expect(await limitError(limited.addTask(c, task))).toBe("limit");
    // Room a vanishes without deleteRoom (as when it expires).
    await raw.send("DEL", [`room:{${a.roomId}}:meta`]);
    expect(await limitError(limited.addTask(c, task))).toBe("limit"); // a claim may be in flight
    t += 2 * TIMEOUT_MS + 1;
    expect(await limited.addTask(c, task)).toMatchObject({ title: "t" });
    expect(await reserved(a)).toBeNull();
    expect((await limited.listRooms(teamId)).map((r) => r.roomId).sort()).toEqual(
      [b.roomId, c.roomId].sort(),
    );
  });

  test("a claim that fails after its reservation gives the place back", async () => {
    const s = newScope();
    const thief = `t-${id8()}`;
    // Another team claims the room between our reservation and our second run.
    beforeCall = async (args) => {
      if (args.at(-1) === "1") await raw.send("HSET", [`room:{${s.roomId}}:meta`, "owner", thief]);
    };
    try {
      expect(await limitError(limited.setVar(s, "k", "v", "a"))).toBe("denied");
    } finally {
      beforeCall = async () => {};
    }
    expect(await reserved(s)).toBeNull();
    expect(await limited.listRooms(s.teamId)).toEqual([]);
  });

  test("10 concurrent first writes of one new room by its team: one place, every write lands", async () => {
    const s = newScope();
    await Promise.all(Array.from({ length: 10 }, (_, i) => limited.setVar(s, `k${i}`, "v", "a")));
    expect(Object.keys(await limited.listVars(s))).toHaveLength(10);
    expect((await raw.send("ZCARD", [`team:{${s.teamId}}:rooms`])) as number).toBe(1);
  });
});
