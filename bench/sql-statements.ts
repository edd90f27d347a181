/**
 * `bun bench/sql-statements.ts --store sqlite|postgres [--root <checkout>] [--rooms 10]`: the SQL statements each
 * store operation runs (BEGIN, COMMIT, SAVEPOINT and advisory locks included), for one scripted sequence of ~60
 * operations covering every area, run on `--rooms` rooms one operation at a time; the table gives the mean per
 * operation. SQLite's are counted in the process (every prepared statement's get/all/run/iterate, wrapped before
 * the store opens its file), PostgreSQL's at the server (pg_stat_statements on a private server). `--root` runs
 * another checkout (an exported copy of an older commit), so two versions' tables can be compared line by line.
 * The clock is fixed, so the counts do not depend on timing.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { RoomScope, RoomStore } from "../src/store/types.ts";
import { startPostgres } from "../test/support/postgres.ts";
import { pgProbe } from "./pg-probe.ts";

const { values } = parseArgs({
  options: {
    store: { type: "string", default: "sqlite" },
    root: { type: "string", default: join(import.meta.dir, "..") },
    rooms: { type: "string", default: "10" },
  },
});
const root = resolve(values.root);
const ROOMS = Number(values.rooms);
const T0 = Date.parse("2030-01-01T00:00:00.000Z");
const now = () => T0;

/** Counts every execution of a prepared SQLite statement (wrapped as the store prepares it). */
let sqliteCount = 0;
function countSqlite(): void {
  const proto = Database.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const make of ["query", "prepare"]) {
    const original = proto[make] as (this: Database, ...args: unknown[]) => Record<string, unknown>;
    proto[make] = function (this: Database, ...args: unknown[]) {
      const stmt = original.apply(this, args);
      return new Proxy(stmt, {
        get(target, name, receiver) {
          const value = Reflect.get(target, name, receiver);
          if (
            typeof value !== "function" ||
            !["get", "all", "run", "iterate", "values"].includes(String(name))
          )
            return typeof value === "function" ? value.bind(target) : value;
          return (...a: unknown[]) => {
            sqliteCount++;
            return (value as (...x: unknown[]) => unknown).apply(target, a);
          };
        },
      });
    };
  }
}

async function open(): Promise<{ store: RoomStore; count(): Promise<number>; close(): Promise<void> }> {
  if (values.store === "sqlite") {
    countSqlite();
    const { createSqliteStore } = (await import(
      join(root, "src/store/sqlite/index.ts")
    )) as typeof import("../src/store/sqlite/index.ts");
    const store = createSqliteStore({
      path: join(mkdtempSync(join(tmpdir(), "roomd-stmts-")), "r.sqlite"),
      now,
    });
    return { store, count: async () => sqliteCount, close: () => store.close() };
  }
  const server = await startPostgres({ settings: { shared_preload_libraries: "pg_stat_statements" } });
  const url = await server.createDatabase();
  const probe = await pgProbe(url);
  const { createPostgresStore } = (await import(
    join(root, "src/store/postgres/index.ts")
  )) as typeof import("../src/store/postgres/index.ts");
  const store = await createPostgresStore({ url, timeoutMs: 10_000, now });
  return {
    store,
    count: async () => (await probe.snapshot()).statements,
    close: async () => {
      await store.close();
      await probe.close();
      await server.stop();
    },
  };
}

const { store, count, close } = await open();
const task = (title: string, depends_on: string[] = []) => ({
  title,
  description: "d",
  depends_on,
  priority: null,
  agentId: "alice",
});
const rate = { bucket: "tools" as const, limit: 1e9, windowMs: 60_000 };
const iso = new Date(T0).toISOString();
const digest = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest("hex");

/** The script: [name, step] in order; a step may use what earlier steps of the same room returned. */
type Step = [string, (s: RoomScope, i: number, got: Map<string, unknown>) => Promise<unknown>];
const steps: Step[] = [
  ["addTask", (s) => store.addTask(s, task("one"))],
  ["addTask (dependent)", (s) => store.addTask(s, task("two", ["task-1"]))],
  ["addTask (third)", (s) => store.addTask(s, task("three"))],
  ["readPlan", (s) => store.readPlan(s)],
  ["getTask", (s) => store.getTask(s, "task-1")],
  ["updateTask (priority)", (s) => store.updateTask(s, { taskId: "task-1", priority: 1, agentId: "alice" })],
  [
    "updateTask (status, deps)",
    (s) =>
      store.updateTask(s, { taskId: "task-2", status: "blocked", depends_on: ["task-1"], agentId: "alice" }),
  ],
  ["claimTask", (s) => store.claimTask(s, { taskId: "task-1", agentId: "alice", leaseMs: 60_000 })],
  ["renewLeases", (s) => store.renewLeases(s, "alice")],
  [
    "addDependency",
    (s) => store.addDependency(s, { taskId: "task-3", dependsOn: "task-1", agentId: "alice" }),
  ],
  [
    "postEvent",
    async (s, _i, got) => {
      const event = await store.postEvent(s, {
        type: "note",
        from: "alice",
        to: "all",
        payload: { text: "hi" },
      });
      got.set("posted", event.id);
      return event;
    },
  ],
  ["postEvent (to bob)", (s) => store.postEvent(s, { type: "note", from: "alice", to: "bob", payload: {} })],
  ["readEvents", (s) => store.readEvents(s, { limit: 10 })],
  ["consumeEvents", (s) => store.consumeEvents(s, "bob", 10)],
  ["markEventRead", (s, _i, got) => store.markEventRead(s, got.get("posted") as string, "bob")],
  ["getEventReads", (s, _i, got) => store.getEventReads(s, got.get("posted") as string)],
  ["summary", (s) => store.summary(s, "alice", 10)],
  ["heartbeat", (s) => store.heartbeat(s, "alice", "working")],
  ["getPresence", (s) => store.getPresence(s)],
  ["setVar", (s) => store.setVar(s, "k", "v", "alice")],
  ["getVar", (s) => store.getVar(s, "k")],
  ["listVars", (s) => store.listVars(s)],
  ["acquireLock", (s) => store.acquireLock(s, "db", "alice", 30_000)],
  ["listLocks", (s) => store.listLocks(s)],
  ["releaseLock", (s) => store.releaseLock(s, "db", "alice")],
  [
    "writeContext",
    (s) =>
      store.writeContext(s, {
        type: "note",
        summary: "n",
        consuming_agents: ["bob"],
        payload: { text: "x" },
        author: "alice",
      }),
  ],
  ["updateContext", (s) => store.updateContext(s, { id: "ctx-1", author: "alice", summary: "m" })],
  ["readContext", (s) => store.readContext(s, "ctx-1")],
  ["listContext", (s) => store.listContext(s, { type: "note" })],
  ["contextVersions", (s) => store.contextVersions(s, "ctx-1")],
  ["search", (s) => store.search(s, { terms: ["one"], types: ["task", "context", "event"], limit: 10 })],
  ["claimFiles", (s) => store.claimFiles(s, { agentId: "alice", paths: ["src/a.ts"], ttlMs: 60_000 })],
  ["checkFiles", (s) => store.checkFiles(s, "bob", ["src/a.ts"])],
  ["roomState", (s) => store.roomState(s)],
  ["releaseFiles", (s) => store.releaseFiles(s, "alice")],
  ["broadcast", (s) => store.broadcast(s, { agentId: "alice", message: "m", status: "busy" })],
  [
    "requestReview",
    (s) =>
      store.requestReview(s, {
        requester: "alice",
        reviewer: "bob",
        subject: "s",
        details: "d",
        taskId: "task-1",
      }),
  ],
  ["decideReview", (s) => store.decideReview(s, { reviewId: "rev-1", agentId: "bob", status: "approved" })],
  [
    "requestApproval",
    (s) =>
      store.requestApproval(s, { requestedBy: "alice", action: "deploy", details: {}, expiresInMs: 60_000 }),
  ],
  [
    "decideApproval",
    (s) => store.decideApproval(s, { id: "apr-1", decidedBy: "human:h", decision: "approve" }),
  ],
  [
    "recordVerdict",
    (s) => store.recordVerdict(s, { by: "bob", verdict: "pass", summary: "s", details: "", ref: null }),
  ],
  [
    "offerHandoff",
    (s) =>
      store.offerHandoff(s, {
        from: "alice",
        to: "bob",
        taskIds: ["task-1"],
        contextIds: ["ctx-1"],
        note: "n",
        offeredBy: "alice",
        agentOffer: true,
      }),
  ],
  ["acceptHandoff", (s) => store.acceptHandoff(s, { id: "hof-1", agentId: "bob" })],
  ["takeDriver", (s) => store.takeDriver(s, { holder: "human:h", kind: "human" })],
  [
    "driverAct",
    (s) => store.driverAct(s, { type: "steer", by: "human:h", epoch: 1, to: "alice", text: "go" }),
  ],
  ["bridge (PostToolUse)", (s) => store.bridge(s, { agentId: "alice", hook: "PostToolUse" })],
  ["roomInfo", (s) => store.roomInfo(s)],
  ["roomSummary", (s) => store.roomSummary(s.roomId)],
  ["roomStats", (s) => store.roomStats(s.roomId)],
  ["analyticsLog", (s) => store.analyticsLog(s)],
  [
    "deleteEvent",
    (s, _i, got) => store.deleteEvent(s, { eventId: got.get("posted") as string, by: "alice" }),
  ],
  ["deleteTask", (s) => store.deleteTask(s, { taskId: "task-3", agentId: "alice", force: true })],
  [
    "createWebhook",
    (s) =>
      store.createWebhook(
        s,
        { webhookId: "wh_0000000000000001", url: "https://example.com/h", types: [], createdAt: iso },
        10,
      ),
  ],
  [
    "postEvent (webhook queued)",
    (s) => store.postEvent(s, { type: "note", from: "alice", to: "all", payload: {} }),
  ],
  [
    "claimDeliveries",
    async (s, _i, got) => {
      const batch = await store.claimDeliveries(s.roomId, { limit: 10, leaseMs: 30_000 });
      got.set("claim", batch.deliveries[0]);
      return batch;
    },
  ],
  [
    "recordDelivery",
    (_s, _i, got) =>
      store.recordDelivery(got.get("claim") as Parameters<RoomStore["recordDelivery"]>[0], {
        outcome: "failed",
        retryInMs: null,
        durationMs: 5,
        at: iso,
      }),
  ],
  [
    "createInvite",
    (s) =>
      store.createInvite(
        {
          tokenId: "i_00000001",
          roomId: s.roomId,
          teamId: s.teamId,
          createdAt: iso,
          expiresAt: new Date(T0 + 3_600_000).toISOString(),
          hint: "****0001",
          digest: digest(`invite-${s.roomId}`),
        },
        10,
      ),
  ],
  ["resolveInvite (charged)", (s) => store.resolveInvite(s.roomId, digest(`invite-${s.roomId}`), rate)],
  ["consumeRate", (s) => store.consumeRate(s.teamId, rate)],
  ["resolveKey (charged)", (s) => store.resolveKey(s.teamId, digest("key"), rate)],
  ["exportRoom", (s) => store.exportRoom(s)],
  ["exportLog", (s) => store.exportLog(s, 0, 100)],
  ["forkRoom", (s, i) => store.forkRoom(s, { newRoomId: `fork-${i}`, by: "human:h" })],
  ["leaveRoom", (s) => store.leaveRoom(s, "alice")],
];

await store.createKey(
  {
    keyId: "k_bench_00000001",
    teamId: "bench",
    kind: "dynamic",
    createdAt: iso,
    hint: "****0001",
    digest: digest("key"),
  },
  100,
);
const totals = new Map<string, number>();
for (let i = 0; i < ROOMS; i++) {
  const scope: RoomScope = { roomId: `room-${i}`, teamId: "bench", actor: "alice" };
  const got = new Map<string, unknown>();
  for (const [name, step] of steps) {
    const before = await count();
    await step(scope, i, got).catch((error: unknown) => {
      throw new Error(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    });
    const after = await count();
    totals.set(name, (totals.get(name) ?? 0) + after - before);
  }
}
console.log(`| operation | ${values.store} statements |\n|---|---|`);
for (const [name] of steps) console.log(`| ${name} | ${((totals.get(name) ?? 0) / ROOMS).toFixed(1)} |`);
await close();
