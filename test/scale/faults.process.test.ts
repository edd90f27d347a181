/**
 * Faults under load: Redis going away under three roomd processes, one of three processes SIGKILLed mid-write,
 * a SQLite-backed process killed and replaced mid-load, and PostgreSQL killed and restarted under three roomd
 * processes. Each scenario has fixed op counts; the audit of what was acknowledged must come out clean.
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
import { type PostgresServer, startPostgres } from "../support/postgres.ts";
import { waitUntilReady } from "../support/processes.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { type SpawnedServer, spawnServer, TEAM_A } from "../support/server.ts";
import { openSse } from "../support/sse.ts";
import { newRoomId } from "../support/stores.ts";

const BASE_ENV = { API_KEYS: `${TEAM_A.teamId}:${TEAM_A.secret}`, RATE_LIMIT_PER_MINUTE: "1000000" };
const STORE_UNAVAILABLE = "Error: Store unavailable, retry shortly";
const PLAN_LOCKED = /^Error: Plan is locked by agent-\d+ until \S+; retry after it$/;

/**
 * Polls `ready` every 20 ms until it holds; fails naming `what` after 60 s, a bound wide enough for a machine
 * kept busy by other work (these waits follow load that takes longer there), not a measurement.
 */
function waitFor(what: string, ready: () => boolean | Promise<boolean>): Promise<void> {
  return waitUntilReady(what, async () => await ready(), { timeoutMs: 60_000, everyMs: 20 });
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
    // A stopped Redis refuses connections at once, so the outage's calls fail fast whatever the timeout; 2 s keeps a
    // loaded machine's slow answers (load 20 in a CI run) from passing for the outage's, before and after it.
    const env = { ...BASE_ENV, STORE: "redis", REDIS_URL: redis.url, STORE_TIMEOUT_MS: "2000" };
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
  });
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
  });
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
  });
});

describe("PostgreSQL killed and restarted under three roomd processes", () => {
  const DOWN_MS = 1_500;
  let postgres: PostgresServer;
  const servers: SpawnedServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await postgres?.stop();
  });

  test("errors only while it is down, every acknowledged write is there afterwards, and the feed resumes", async () => {
    postgres = await startPostgres();
    const env = {
      ...BASE_ENV,
      STORE: "postgres",
      DATABASE_URL: await postgres.createDatabase(),
      // A killed PostgreSQL refuses connections at once, so the outage's calls fail fast whatever the timeout; 2 s
      // keeps a loaded machine's slow answers (load 20 in a CI run) from passing for the outage's after it.
      STORE_TIMEOUT_MS: "2000",
    };
    servers.push(...(await Promise.all([spawnServer(env), spawnServer(env), spawnServer(env)])));
    const urls = servers.map((s) => s.url);
    const roomId = newRoomId();
    const watched = newRoomId();
    const http = httpClient(urls[1]!);
    await http.tool(TEAM_A.secret, "post_event", { roomId: watched, type: "before", from: "watcher" });
    // watcher-2's cursor at the head: its wait after the outage has to wait for the next event.
    await http.tool(TEAM_A.secret, "get_unread_events", { roomId: watched, agentId: "watcher-2" });
    const stream = await openSse({ url: `${urls[0]}/rooms/${watched}/stream`, secret: TEAM_A.secret });
    expect(stream.status).toBe(200);

    // A write whose commit was in flight when the server died may have landed: roomd says so, and the audit
    // counts such calls as unknown-outcome (every acknowledged one must be there).
    const load = startScaleLoad({
      urls,
      secret: TEAM_A.secret,
      agents: 32,
      opsPerAgent: 30,
      roomId,
      seed: 404,
      thinkMs: 50,
      unknownIf: (call) =>
        call.error?.startsWith(`${STORE_UNAVAILABLE} (the write may have been applied`) === true,
    });
    await midLoad(load);
    const killAt = Date.now();
    const restarted = postgres.restart({ downMs: DOWN_MS });
    // Down from the first 503 on (the server is gone once killed), and surely until DOWN_MS after the kill began.
    await waitFor("/health 503", async () => (await healthStatus(urls[0]!)) === 503);
    const downAt = Date.now();
    for (const url of urls) {
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({ ok: false, store: "postgres" });
    }
    await restarted;
    // Back once every roomd says so: its pool finds the new server on its next statement, which on a busy machine
    // can come a moment after PostgreSQL itself answers.
    for (const url of urls) await waitFor(`${url}/health 200`, async () => (await healthStatus(url)) === 200);
    const upAt = Date.now();
    const ledger = await load.done;

    const errors = ledger.calls.filter((c) => c.outcome !== "ok" && !PLAN_LOCKED.test(c.error ?? ""));
    // Every failure is the documented text, no 500 and no hang, and it came while the server was away: a call
    // that started after it was back answered normally.
    expect(describeCalls(errors.filter((c) => !c.error?.startsWith(STORE_UNAVAILABLE)))).toEqual([]);
    expect(describeCalls(errors.filter((c) => c.startedAt > upAt))).toEqual([]);
    const during = ledger.calls.filter((c) => c.startedAt >= downAt && c.endedAt <= killAt + DOWN_MS);
    expect(during.length).toBeGreaterThan(32);
    expect(describeCalls(during.filter((c) => c.outcome === "ok"))).toEqual([]);

    // The database kept everything: the same room audits clean against what was acknowledged.
    const report = await audit(urls[2]!, TEAM_A.secret, roomId, ledger);
    console.log(
      `[faults postgres-restart] ${ledger.calls.length} calls, ${during.length} during the outage ` +
        `(${errors.length} failed), ${report.tasks} tasks, ${report.events} events, unknown ` +
        `${JSON.stringify(report.unknownOutcomes)}, problems ${JSON.stringify(auditProblems(report))}`,
    );
    expect(auditProblems(report)).toEqual([]);
    expect(report.halfWritten).toEqual([]);

    // The live feed listens again: a stream opened before the outage sees an event posted after it, and so does
    // a wait on another process. A stream whose store read failed during the outage has ended (docs/http.md): it
    // is opened again as an EventSource does, with the id of the last event it saw.
    let live = stream;
    if (stream.ended) {
      const last = stream.messages.findLast((m) => m.id !== undefined)?.id;
      live = await openSse({
        url: `${urls[0]}/rooms/${watched}/stream`,
        secret: TEAM_A.secret,
        headers: last === undefined ? {} : { "Last-Event-ID": last },
      });
      expect(live.status).toBe(200);
    }
    const waiting = httpClient(urls[2]!).tool(TEAM_A.secret, "wait_for_events", {
      roomId: watched,
      agentId: "watcher-2",
      timeoutSeconds: 10,
    });
    await Bun.sleep(200);
    await http.tool(TEAM_A.secret, "post_event", { roomId: watched, type: "after", from: "watcher" });
    await live.until((r) => r.messages.some((m) => m.data.includes('"after"')), 10_000);
    const waited = JSON.parse((await waiting).text);
    expect(waited.events.map((e: { type: string }) => e.type)).toContain("after");
    stream.close();
    live.close();
  });
});
