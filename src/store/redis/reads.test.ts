/**
 * Reads a script leaves to the caller (call.ts Reads): on a client that sends transactions, readPlan is READ_PLAN and
 * a plain HVALS in one MULTI/EXEC — one round trip, the tasks never pulled through Lua — with the EVAL fallback
 * inside the same transaction, and the same answers (and refusals) as the script alone gives.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { type RedisServer, startRedisServer } from "../../../test/support/redis-server.ts";
import type { RoomScope, RoomStore } from "../types.ts";
import type { ScriptClient } from "./client.ts";
import { createRedisStore } from "./store.ts";
import { createTcpScriptClient } from "./tcp-client.ts";

let server: RedisServer;
let raw: RedisClient;
let tcp: ScriptClient;
/** The store on the transaction-sending client, and one on the same client without transactions. */
let store: RoomStore;
let scriptOnly: RoomStore;
const sent = { transaction: 0, evalsha: 0, eval: 0 };

const newScope = (): RoomScope => ({
  roomId: `r-${crypto.randomUUID().slice(0, 8)}`,
  teamId: `t-${crypto.randomUUID().slice(0, 8)}`,
});

beforeAll(async () => {
  server = await startRedisServer();
  raw = new RedisClient(server.url);
  tcp = createTcpScriptClient(server.url, { timeoutMs: 10_000 });
  const transaction = tcp.transaction as NonNullable<ScriptClient["transaction"]>;
  const counted: ScriptClient = {
    evalsha: (...a) => {
      sent.evalsha++;
      return tcp.evalsha(...a);
    },
    eval: (...a) => {
      sent.eval++;
      return tcp.eval(...a);
    },
    ping: (d) => tcp.ping(d),
    transaction: (commands, d) => {
      sent.transaction++;
      return transaction(commands, d);
    },
  };
  const { transaction: _, ...plain } = counted;
  store = createRedisStore({ client: counted, driver: "redis", timeoutMs: 10_000 });
  scriptOnly = createRedisStore({ client: plain, driver: "redis", timeoutMs: 10_000 });
});

afterAll(async () => {
  await store.close?.();
  await scriptOnly.close?.();
  await tcp.close?.();
  raw.close();
  await server.stop();
});

describe("readPlan with the tasks read by the caller", () => {
  test("one transaction, the same plan as the script alone reads", async () => {
    const scope = newScope();
    for (let i = 0; i < 5; i++)
      await store.addTask(scope, { title: `t${i}`, description: "", depends_on: [], priority: null });
    await store.readPlan(scope); // the script is cached from here on
    const before = { ...sent };
    const plan = await store.readPlan(scope);
    expect({
      transaction: sent.transaction - before.transaction,
      evalsha: sent.evalsha - before.evalsha,
    }).toEqual({
      transaction: 1,
      evalsha: 0,
    });
    expect(plan.tasks.map((t) => t.title)).toEqual(["t0", "t1", "t2", "t3", "t4"]);
    expect(plan).toEqual(await scriptOnly.readPlan(scope));
  });

  test("an empty plan, an unowned room and another team's room answer as before", async () => {
    const scope = newScope();
    await store.setVar(scope, "k", "v", "a");
    expect(await store.readPlan(scope)).toEqual(await scriptOnly.readPlan(scope));
    expect((await store.readPlan(scope)).tasks).toEqual([]);
    const unowned = newScope();
    expect(await store.readPlan(unowned)).toEqual(await scriptOnly.readPlan(unowned));
    const other = { ...scope, teamId: `t-${crypto.randomUUID().slice(0, 8)}` };
    expect(store.readPlan(other)).rejects.toMatchObject({ kind: "denied" });
  });

  test("after SCRIPT FLUSH the script is sent whole inside the transaction", async () => {
    const scope = newScope();
    await store.addTask(scope, { title: "x", description: "", depends_on: [], priority: null });
    await raw.send("SCRIPT", ["FLUSH"]);
    const before = sent.transaction;
    expect((await store.readPlan(scope)).tasks.map((t) => t.title)).toEqual(["x"]);
    expect(sent.transaction - before).toBe(2);
    expect((await store.readPlan(scope)).tasks).toHaveLength(1);
  });
});
