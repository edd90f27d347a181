/**
 * Faults under load: Redis going away under three roomd processes, one of three processes SIGKILLed mid-write,
 * and a SQLite-backed process killed and replaced mid-load. Each scenario has fixed op counts; the audit of what
 * was acknowledged must come out clean.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { httpClient } from "../support/http.ts";
import {
  audit,
  auditProblems,
  type CallRecord,
  type RunningLoad,
  runScaleLoad,
  startScaleLoad,
} from "../support/load-audit/index.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { type SpawnedServer, spawnServer, TEAM_A } from "../support/server.ts";
import { newRoomId } from "../support/stores.ts";

const BASE_ENV = { API_KEYS: `${TEAM_A.teamId}:${TEAM_A.secret}`, RATE_LIMIT_PER_MINUTE: "1000000" };
const STORE_UNAVAILABLE = "Error: Store unavailable, retry shortly";
const PLAN_LOCKED = /^Error: Plan is locked by agent-\d+ until \S+; retry after it$/;

/** Polls `ready` every 20 ms until it holds; fails naming `what` after `timeoutMs` (a bound, not a measurement). */
async function waitFor(
  what: string,
  ready: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

/** Mid-load: a third of the random ops done and every handoff (which holds the "plan" lock) finished. */
const midLoad = (load: RunningLoad) =>
  waitFor("a third of the load", () => load.progress() >= 1 / 3 && load.handoffsPending() === 0);

const healthStatus = async (url: string) =>
  (await fetch(`${url}/health`, { signal: AbortSignal.timeout(5_000) })).status;

const describeCalls = (calls: CallRecord[]) =>
  calls.map((c) => `${c.tool} on ${c.url}: ${c.outcome} ${c.error ?? ""}`.trim());

describe("Redis outage under three roomd processes", () => {
  let redis: RedisServer;
  const servers: SpawnedServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await redis?.stop();
  });

  test("calls fail with Store unavailable, /health 503, admin 200; after restart a fresh room audits clean", async () => {
    redis = await startRedisServer();
    const env = { ...BASE_ENV, STORE: "redis", REDIS_URL: redis.url, STORE_TIMEOUT_MS: "500" };
    servers.push(...(await Promise.all([spawnServer(env), spawnServer(env), spawnServer(env)])));
    const urls = servers.map((s) => s.url);

    // Paced so that about a second of it remains when Redis goes away at one third.
    const load = startScaleLoad({
      urls,
      secret: TEAM_A.secret,
      agents: 32,
      opsPerAgent: 30,
      roomId: newRoomId(),
      seed: 101,
      thinkMs: 50,
    });
    await midLoad(load);
    await redis.stop();
    const downAt = Date.now();
    await Bun.sleep(1_000);
    for (const url of urls) {
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({ ok: false, store: "redis" });
      // Static keys need no store and the limiter fails open by default: admin routes still answer.
      expect((await httpClient(url).get("/admin/me", TEAM_A.secret)).status).toBe(200);
    }
    const upAt = Date.now();
    await redis.restart();
    const ledger = await load.done;

    // Every call made wholly inside the outage failed with exactly the documented text: no 500, no hang.
    const during = ledger.calls.filter((c) => c.startedAt >= downAt && c.endedAt <= upAt);
    expect(during.length).toBeGreaterThan(32);
    // Writes add that they may have been applied (and how to retry safely); the text starts the same.
    expect(describeCalls(during.filter((c) => !c.error?.startsWith(STORE_UNAVAILABLE)))).toEqual([]);
    expect(describeCalls(ledger.calls.filter((c) => c.outcome === "unknown"))).toEqual([]);

    for (const url of urls) await waitFor(`${url}/health 200`, async () => (await healthStatus(url)) === 200);
    // The restarted Redis has no persistence, so the outage room is gone; a new room proves full recovery.
    const roomId = newRoomId();
    const after = await runScaleLoad({
      urls,
      secret: TEAM_A.secret,
      agents: 32,
      opsPerAgent: 20,
      roomId,
      seed: 102,
    });
    const report = await audit(urls[2]!, TEAM_A.secret, roomId, after);
    console.log(
      `[faults redis-outage] outage calls ${during.length}, phase 1 ${ledger.calls.length} calls; after recovery ` +
        `${after.calls.length} calls, ${report.tasks} tasks, ${report.events} events, problems ${JSON.stringify(auditProblems(report))}`,
    );
    expect(auditProblems(report)).toEqual([]);
    expect(report.unknownOutcomes).toEqual({});
    expect(describeCalls(after.calls.filter((c) => c.error && !PLAN_LOCKED.test(c.error)))).toEqual([]);
    expect(after.handoffsCompleted).toBe(16);
  }, 40_000);
});

describe("one of three roomd processes SIGKILLed during writes (Redis)", () => {
  let redis: RedisServer;
  const servers: SpawnedServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await redis?.stop();
  });

  test("the other two carry on; acknowledged writes all land; nothing half-written", async () => {
    redis = await startRedisServer();
    const env = { ...BASE_ENV, STORE: "redis", REDIS_URL: redis.url };
    servers.push(...(await Promise.all([spawnServer(env), spawnServer(env), spawnServer(env)])));
    const urls = servers.map((s) => s.url);
    const victim = servers[2]!;
    const roomId = newRoomId();
    const load = startScaleLoad({
      urls,
      secret: TEAM_A.secret,
      agents: 32,
      opsPerAgent: 30,
      roomId,
      seed: 202,
      thinkMs: 10,
    });
    await midLoad(load);
    victim.proc.kill("SIGKILL");
    await victim.proc.exited;
    const killedAt = Date.now();
    const ledger = await load.done;

    const afterKill = ledger.calls.filter((c) => c.startedAt > killedAt);
    const survivors = afterKill.filter((c) => c.url !== victim.url);
    expect(survivors.filter((c) => c.outcome === "ok").length).toBeGreaterThan(100);
    expect(
      describeCalls(survivors.filter((c) => c.outcome !== "ok" && !PLAN_LOCKED.test(c.error ?? ""))),
    ).toEqual([]);
    // The dead process answers nothing; its agents' calls are refused (not applied).
    expect(afterKill.filter((c) => c.url === victim.url && c.outcome === "ok")).toEqual([]);

    // Unknown-outcome calls (in flight at the kill) may have landed or not; the audit allows exactly those.
    const report = await audit(urls[0]!, TEAM_A.secret, roomId, ledger);
    console.log(
      `[faults sigkill] ${ledger.calls.length} calls (${afterKill.length} after the kill), ${report.tasks} tasks, ` +
        `${report.events} events, unknown ${JSON.stringify(report.unknownOutcomes)}, ` +
        `errors ${JSON.stringify(report.errorKinds)}, problems ${JSON.stringify(auditProblems(report))}`,
    );
    expect(auditProblems(report)).toEqual([]);
    expect(report.halfWritten).toEqual([]);
  }, 30_000);
});

describe("SQLite-backed process killed and replaced mid-load", () => {
  const servers: SpawnedServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  test("every write acknowledged before the kill is present afterwards", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "roomd-faults-")), "roomd.sqlite");
    const env = { ...BASE_ENV, STORE: "sqlite", SQLITE_PATH: path };
    servers.push(await spawnServer(env), await spawnServer(env));
    const urls = servers.map((s) => s.url);
    // The replacement on the same file starts up front, so the dead slot is re-pointed soon after the kill:
    // each refused call fails at once, and the slot's agents must still have ops left when it comes back.
    const replacement = await spawnServer(env);
    servers.push(replacement);
    const roomId = newRoomId();
    const load = startScaleLoad({
      urls,
      secret: TEAM_A.secret,
      agents: 32,
      opsPerAgent: 30,
      roomId,
      seed: 303,
      thinkMs: 20,
    });
    await midLoad(load);
    servers[1]!.proc.kill("SIGKILL");
    await servers[1]!.proc.exited;
    const killedAt = Date.now();
    await Bun.sleep(100);
    urls[1] = replacement.url;
    const ledger = await load.done;

    const acknowledgedBefore = ledger.calls.filter((c) => c.outcome === "ok" && c.endedAt <= killedAt);
    expect(acknowledgedBefore.length).toBeGreaterThan(100);
    expect(
      ledger.calls.filter((c) => c.url === replacement.url && c.outcome === "ok").length,
    ).toBeGreaterThan(0);
    // Audited through the replacement, which read everything back from the file.
    const report = await audit(replacement.url, TEAM_A.secret, roomId, ledger);
    console.log(
      `[faults sqlite-restart] ${ledger.calls.length} calls (${acknowledgedBefore.length} acknowledged before the kill), ` +
        `${report.tasks} tasks, ${report.events} events, unknown ${JSON.stringify(report.unknownOutcomes)}, ` +
        `errors ${JSON.stringify(report.errorKinds)}, problems ${JSON.stringify(auditProblems(report))}`,
    );
    expect(auditProblems(report)).toEqual([]);
  }, 30_000);
});
