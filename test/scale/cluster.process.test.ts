/**
 * Three roomd processes on a real Redis Cluster (3 primaries + 3 replicas) under the 32-agent load: once while
 * the busy room's slot is migrated to another primary (and on to a third), once while the primary serving it is
 * SIGKILLed and its replica takes over. The audit afterwards must be clean; during the failover a call may only
 * succeed or answer "Store unavailable, retry shortly" (writes add how to retry safely), and none may outlast its
 * store timeouts.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { keySlot } from "../../src/store/redis/cluster/slot.ts";
import {
  audit,
  auditProblems,
  type CallRecord,
  type RunningLoad,
  startScaleLoad,
} from "../support/load-audit/index.ts";
import { type RedisCluster, startRedisCluster } from "../support/redis-cluster.ts";
import { type SpawnedServer, spawnServer, TEAM_A } from "../support/server.ts";
import { newRoomId } from "../support/stores.ts";

const BASE_ENV = { API_KEYS: `${TEAM_A.teamId}:${TEAM_A.secret}`, RATE_LIMIT_PER_MINUTE: "1000000" };
const STORE_UNAVAILABLE = "Error: Store unavailable, retry shortly";
const PLAN_LOCKED = /^Error: Plan is locked by agent-\d+ until \S+; retry after it$/;

async function waitFor(what: string, ready: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

/** A fraction of the random ops done and every handoff (which holds the "plan" lock) finished. */
const reached = (load: RunningLoad, fraction: number) =>
  waitFor(`${fraction} of the load`, () => load.progress() >= fraction && load.handoffsPending() === 0);

const describeCalls = (calls: CallRecord[]) =>
  calls.map((c) =>
    `${c.tool} on ${c.url} (${c.endedAt - c.startedAt} ms): ${c.outcome} ${c.error ?? ""}`.trim(),
  );

/** A private cluster and three roomd processes on it, stopped after the describe. */
function onCluster(env: Record<string, string> = {}) {
  const state = {
    cluster: undefined as RedisCluster | undefined,
    servers: [] as SpawnedServer[],
    urls: [] as string[],
  };
  afterAll(async () => {
    await Promise.all(state.servers.map((s) => s.stop()));
    await state.cluster?.stop();
  });
  const start = async () => {
    state.cluster = await startRedisCluster();
    const all = { ...BASE_ENV, STORE: "redis", REDIS_URL: state.cluster.url, ...env };
    state.servers.push(...(await Promise.all([spawnServer(all), spawnServer(all), spawnServer(all)])));
    state.urls = state.servers.map((s) => s.url);
    return { cluster: state.cluster, urls: state.urls };
  };
  return start;
}

describe("three roomd processes on a Redis Cluster while the busy room's slot migrates", () => {
  const start = onCluster();

  test("32 agents, the room's slot moved twice mid-load: every call answers, the audit is clean", async () => {
    const { cluster, urls } = await start();
    const roomId = newRoomId();
    const slot = keySlot(`room:{${roomId}}:meta`);
    const started = performance.now();
    const load = startScaleLoad({
      urls,
      secret: TEAM_A.secret,
      agents: 32,
      opsPerAgent: 40,
      roomId,
      seed: 404,
      thinkMs: 5,
    });
    await reached(load, 1 / 3);
    const first = await cluster.migrateRoom(roomId);
    const firstAt = Date.now();
    await reached(load, 2 / 3);
    const third = (await cluster.primaries()).find((p) => p !== first.from && p !== first.to);
    const second = await cluster.migrateRoom(roomId, third);
    const ledger = await load.done;

    const report = await audit(urls[1]!, TEAM_A.secret, roomId, ledger);
    console.log(
      `[cluster migration] slot ${slot}: ${first.from} → ${first.to} (${first.keys} keys, ${first.ms} ms), ` +
        `→ ${second.to} (${second.keys} keys, ${second.ms} ms); ${ledger.calls.length} calls, ${report.tasks} tasks, ` +
        `${report.events} events in ${Math.round(performance.now() - started)} ms; errors ${JSON.stringify(report.errorKinds)}`,
    );
    expect(new Set([first.from, first.to, second.to]).size).toBe(3);
    // The room's keys really moved (about 12 of its 17 parts exist by then; the rest come later or never).
    expect(first.keys).toBeGreaterThanOrEqual(5);
    expect(auditProblems(report)).toEqual([]);
    expect(report.unknownOutcomes).toEqual({});
    // Redirects and TRYAGAIN are followed inside the call: no call fails for the migration.
    expect(
      describeCalls(ledger.calls.filter((c) => c.outcome !== "ok" && !PLAN_LOCKED.test(c.error ?? ""))),
    ).toEqual([]);
    expect(ledger.calls.filter((c) => c.startedAt > firstAt && c.outcome === "ok").length).toBeGreaterThan(
      100,
    );
    expect(ledger.handoffsCompleted).toBe(16);
  });
});

describe("three roomd processes on a Redis Cluster while the busy room's primary fails over", () => {
  const TIMEOUT_MS = 1000;
  const start = onCluster({ STORE_TIMEOUT_MS: String(TIMEOUT_MS) });

  test("calls during the failover answer Store unavailable or succeed; every acknowledged write survives", async () => {
    const { cluster, urls } = await start();
    const roomId = newRoomId();
    const slot = keySlot(`room:{${roomId}}:meta`);
    let killedAt = Number.POSITIVE_INFINITY;
    const load = startScaleLoad({
      urls,
      secret: TEAM_A.secret,
      agents: 32,
      opsPerAgent: 40,
      roomId,
      seed: 505,
      thinkMs: 40,
      // A script running when its primary died may have run (and reached the replica) without its reply, so
      // "Store unavailable" for a call in flight at the kill does not mean "not applied": its outcome is
      // unknown. A call that started later never reached a running primary before it failed.
      unknownIf: (c) => c.error?.startsWith(STORE_UNAVAILABLE) === true && c.startedAt <= killedAt,
    });
    await reached(load, 1 / 3);
    // Once its replica holds every write it acknowledged (asynchronous replication may otherwise lose the last
    // acknowledged writes, as Redis documents): what is tested is roomd's side of the failover. The primary's
    // writes pause until then, so the outage starts there: a write that waited out its store timeout in the
    // pause fails before the kill (CI's process tier saw five such, the replica being slow to catch up).
    const outageFrom = Date.now();
    const failover = await cluster.killPrimaryOf(
      slot,
      (at) => {
        killedAt = at;
      },
      { replicated: true },
    );
    const promotedAt = Date.now();
    const ledger = await load.done;

    const failed = ledger.calls.filter((c) => c.outcome !== "ok" && !PLAN_LOCKED.test(c.error ?? ""));
    const inFlight = failed.filter((c) => c.outcome === "unknown");
    const report = await audit(urls[0]!, TEAM_A.secret, roomId, ledger);
    const longest = Math.max(...ledger.calls.map((c) => c.endedAt - c.startedAt));
    console.log(
      `[cluster failover] primary ${failover.killed} → replica ${failover.promoted} in ${failover.ms} ms; ` +
        `${ledger.calls.length} calls, ${failed.length} Store unavailable (${inFlight.length} in flight at the ` +
        `kill), longest call ${longest} ms, ` +
        `${report.tasks} tasks, ${report.events} events; problems ${JSON.stringify(auditProblems(report))}`,
    );
    // The failover bit, and every failure is the documented one, inside the outage (pause, kill, promotion).
    expect(failed.length).toBeGreaterThan(0);
    expect(describeCalls(failed.filter((c) => !c.error?.startsWith(STORE_UNAVAILABLE)))).toEqual([]);
    expect(
      describeCalls(failed.filter((c) => c.endedAt < outageFrom || c.startedAt > promotedAt + TIMEOUT_MS)),
    ).toEqual([]);
    // Nothing hangs: a tool call makes at most a few store calls (limiter, claim handshake), each bounded.
    expect(longest).toBeLessThan(4 * TIMEOUT_MS);
    // Unknown outcomes are only those calls (one per agent at most): nothing timed out or broke mid-request.
    expect(inFlight.length).toBeLessThanOrEqual(32);
    expect(
      describeCalls(
        ledger.calls.filter((c) => c.outcome === "unknown" && !c.error?.startsWith(STORE_UNAVAILABLE)),
      ),
    ).toEqual([]);
    expect(auditProblems(report)).toEqual([]);
    expect(ledger.calls.filter((c) => c.startedAt > promotedAt && c.outcome === "ok").length).toBeGreaterThan(
      100,
    );

    // The old primary comes back as the new primary's replica.
    await cluster.restartNode(failover.killed);
  });
});
