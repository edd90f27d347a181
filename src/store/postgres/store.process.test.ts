/**
 * PostgreSQL specifics the conformance suite cannot see: rows left (or not) behind, expiry and the sweep, text
 * PostgreSQL cannot hold, the schema at start (an unreachable server, a newer schema), a closed store.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { sharedPostgres, startPostgres } from "../../../test/support/postgres.ts";
import { RoomError } from "../../protocol/errors.ts";
import { LIMITS } from "../../protocol/limits.ts";
import { inviteBucket, teamBucket } from "../rate-buckets.ts";
import { roundTrips } from "../round-trips.ts";
import type { RoomChange, RoomScope } from "../types.ts";
import { createPostgresStore, type PostgresRoomStore } from "./index.ts";

let t = 1_700_000_000_000;
const now = () => t;
const opened: PostgresRoomStore[] = [];
const clients: SQL[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

/** A store on a fresh database, and a count of rows in any of its tables. */
async function fresh() {
  const url = await (await sharedPostgres()).createDatabase();
  const store = await createPostgresStore({ url, now, timeoutMs: 5000 });
  opened.push(store);
  const sql = new SQL({ url, max: 1 });
  clients.push(sql);
  const count = async (table: string) =>
    Number(((await sql.unsafe(`SELECT count(*) AS c FROM ${table}`)) as { c: string }[])[0]?.c);
  return { url, store, sql, count };
}

const scope: RoomScope = { roomId: "room-1", teamId: "team-a" };
const task = (title: string, description = "") => ({ title, description, depends_on: [], priority: null });

describe("postgres store: ownership leaves no trace", () => {
  test("reads and refused or empty writes on a fresh room insert no rows", async () => {
    const { store, count } = await fresh();
    await store.readPlan(scope);
    await store.listVars(scope);
    await store.consumeEvents(scope, "a", 10);
    expect(await store.releaseLock(scope, "r", "a")).toEqual({ released: false });
    await expect(store.updateTask(scope, { taskId: "task-1", status: "done" })).rejects.toThrow(RoomError);
    expect(await count("rooms")).toBe(0);
  });
});

describe("postgres store: expiry and the sweep", () => {
  test("an expired room reads as empty, can be claimed by another team, and loses its old rows", async () => {
    const { store, count } = await fresh();
    await store.addTask(scope, task("old"));
    t += LIMITS.roomTtlMs;
    expect((await store.readPlan(scope)).tasks).toEqual([]);
    const fresh1 = await store.addTask({ ...scope, teamId: "team-b" }, task("new"));
    expect(fresh1.id).toBe("task-1");
    expect(await count("tasks")).toBe(1);
    expect(await count("events")).toBe(1);
  });

  test("sweepExpired deletes expired rooms with all their rows, idle rate windows, old kept results and ended sessions", async () => {
    const { store, count } = await fresh();
    await store.addTask({ ...scope, idempotency: { key: "k1", fingerprint: "f" } }, task("a"));
    await store.writeContext(scope, {
      type: "note",
      summary: "s",
      consuming_agents: ["b"],
      payload: { text: "x" },
      author: "a",
    });
    await store.acquireLock(scope, "r", "a", 1000);
    await store.requestReview(scope, { requester: "a", reviewer: "b", subject: "s", details: "" });
    await store.consumeEvents(scope, "b", 10);
    await store.consumeRate("team-a", { bucket: "tools", limit: 10, windowMs: 60_000 });
    const person = {
      teamId: "team-a",
      humanId: "ann",
      credential: { kind: "proxy" as const },
      createdAt: new Date(t).toISOString(),
    };
    await store.createSession("a".repeat(64), person, 60_000);
    expect(await count("search_terms")).toBeGreaterThan(0);
    t += LIMITS.roomTtlMs - 1;
    const live = { roomId: "room-2", teamId: "team-a" };
    await store.createRoom(live);
    await store.heartbeat(live, "a");
    await store.createSession("b".repeat(64), person, LIMITS.roomTtlMs);
    t += 1;
    expect(await store.sweepExpired()).toBe(1);
    const rowsOfTheRoom = ["tasks", "contexts", "events", "locks", "search_docs", "search_terms", "reviews"];
    for (const table of [...rowsOfTheRoom, "context_reads", "idempotency", "rate_hits", "rate_counts"]) {
      expect({ table, rows: await count(table) }).toEqual({ table, rows: 0 });
    }
    // The ended session went; the live one stays.
    expect(await count("sessions")).toBe(1);
    expect((await store.touchSession("b".repeat(64), 60_000))?.humanId).toBe("ann");
    expect(await count("rooms")).toBe(1);
    expect(await count("presence")).toBe(1);
  });

  test("a read refreshes last_activity only when it is more than a minute old", async () => {
    const { store, sql } = await fresh();
    await store.createRoom(scope);
    const lastActivity = async () =>
      Number(((await sql`SELECT last_activity AS v FROM rooms`) as { v: string }[])[0]?.v);
    const written = t;
    t += 30_000;
    await store.readPlan(scope);
    expect(await lastActivity()).toBe(written);
    t += 31_000;
    await store.readPlan(scope);
    expect(await lastActivity()).toBe(t);
  });
});

describe("postgres store: authentication with a charge is one statement", () => {
  test("the charged key lookup records the key's use in its one statement, at most once a minute", async () => {
    const { store, sql } = await fresh();
    const rate = { bucket: "tools" as const, limit: 100, windowMs: 60_000 };
    const digest = "5".repeat(64);
    await store.createKey(
      {
        keyId: "k_team-a_usedused",
        teamId: "team-a",
        kind: "dynamic",
        createdAt: new Date(t).toISOString(),
        hint: "****",
        digest,
      },
      10,
    );
    const statements: string[] = [];
    roundTrips.observe = (trip, send) => {
      statements.push(trip.operation);
      return send();
    };
    const used = async () =>
      Number(
        (
          (await sql`SELECT last_used_at FROM keys WHERE key_id = 'k_team-a_usedused'`) as {
            last_used_at: string;
          }[]
        )[0]?.last_used_at,
      );
    try {
      const first = t;
      await store.resolveKey("team-a", digest, rate);
      expect(statements).toEqual(["WITH"]);
      expect(await used()).toBe(first);
      t += 59_999;
      await store.resolveKey("team-a", digest, rate);
      expect(await used()).toBe(first);
      t += 1;
      await store.resolveKey("team-a", digest, rate);
      expect(await used()).toBe(t);
      expect(statements).toEqual(["WITH", "WITH", "WITH"]);
    } finally {
      roundTrips.observe = undefined;
    }
  });

  test("a found key or valid invite is charged to its bucket; an unknown digest or an expired invite charges nothing", async () => {
    const { store, sql } = await fresh();
    const buckets = async () =>
      ((await sql`SELECT bucket, n FROM rate_counts ORDER BY bucket`) as { bucket: string; n: string }[]).map(
        (r) => [r.bucket, Number(r.n)],
      );
    const rate = { bucket: "tools" as const, limit: 5, windowMs: 60_000 };
    const created = new Date(t).toISOString();
    const digest = "1".repeat(64);
    await store.createKey(
      {
        keyId: "k_team-a_aaaaaaaa",
        teamId: "team-a",
        kind: "dynamic",
        createdAt: created,
        hint: "****",
        digest,
      },
      10,
    );
    expect((await store.resolveKey("team-a", "2".repeat(64), rate)).key).toBeNull();
    expect(await buckets()).toEqual([]);
    expect((await store.resolveKey("team-a", digest, rate)).rate).toMatchObject({
      allowed: true,
      remaining: 4,
    });
    await store.createRoom(scope);
    const invite = {
      tokenId: "i_abcdefgh",
      roomId: scope.roomId,
      teamId: scope.teamId,
      createdAt: created,
      expiresAt: new Date(t + 1000).toISOString(),
      hint: "****",
      digest: "3".repeat(64),
    };
    await store.createInvite(invite, 10);
    expect((await store.resolveInvite(scope.roomId, invite.digest, rate)).rate?.remaining).toBe(4);
    expect((await store.resolveInvite(scope.roomId, "4".repeat(64), rate)).invite).toBeNull();
    t += 1000;
    expect((await store.resolveInvite(scope.roomId, invite.digest, rate)).invite).toBeNull();
    expect(await buckets()).toEqual([
      [inviteBucket(scope.roomId, invite.tokenId, "tools"), 1],
      [teamBucket("team-a", "tools"), 1],
    ]);
  });
});

describe("postgres store: text PostgreSQL cannot hold", () => {
  test("U+0000 in values, notes, descriptions and payloads round-trips, and every rule reading them works", async () => {
    const { store } = await fresh();
    await store.setVar(scope, "k", "a\u0000b", "a");
    expect(await store.getVar(scope, "k")).toBe("a\u0000b");
    expect(await store.listVars(scope)).toEqual({ k: "a\u0000b" });
    const key = await store.createKey(
      {
        keyId: "k_team-a_abcdefgh",
        teamId: "team-a",
        kind: "dynamic",
        createdAt: new Date(t).toISOString(),
        hint: "****abcd",
        digest: "0".repeat(64),
        note: "n\u0000",
      },
      10,
    );
    expect(key.note).toBe("n\u0000");
    expect((await store.listKeys("team-a"))[0]?.note).toBe("n\u0000");

    const first = await store.addTask(scope, task("first", "x\u0000y"));
    const second = await store.addTask(scope, { ...task("second"), depends_on: [first.id] });
    await expect(store.claimTask(scope, { taskId: second.id, agentId: "b", leaseMs: 1000 })).rejects.toThrow(
      `${first.id} (pending)`,
    );
    await store.updateTask(scope, { taskId: first.id, status: "done", agentId: "a" });
    expect((await store.claimTask(scope, { taskId: second.id, agentId: "b", leaseMs: 1000 })).status).toBe(
      "in_progress",
    );
    const third = await store.addTask(scope, task("third", "\u0000"));
    await store.addDependency(scope, { taskId: third.id, dependsOn: first.id });
    await expect(store.deleteTask(scope, { taskId: first.id })).rejects.toThrow(third.id);
    const entry = await store.writeContext(scope, {
      type: "note",
      summary: "s\u0000",
      consuming_agents: [],
      payload: { text: "\u0000" },
      author: "a",
    });
    const review = await store.requestReview(scope, {
      requester: "a",
      reviewer: "b",
      subject: "s",
      details: "",
      contextId: entry.id,
    });
    expect(review.context_version).toBe("1.0");
    await store.postEvent(scope, { type: "x", from: "a", to: "all", payload: { task: { note: "\u0000" } } });
    expect((await store.analyticsLog(scope)).contexts).toEqual([
      { id: entry.id, type: "note", version: "1.0" },
    ]);
    const fork = await store.forkRoom(scope, { newRoomId: "room-fork", by: "human:p" });
    const forked = { roomId: fork.roomId, teamId: scope.teamId };
    expect((await store.readPlan(forked)).tasks.map((x) => [x.id, x.description])).toEqual([
      [first.id, "x\u0000y"],
      [second.id, ""],
      [third.id, "\u0000"],
    ]);
    expect((await store.readContext(forked, entry.id)).payload).toEqual({ text: "\u0000" });

    // Moving: the room's export imports under a new id as it was, values and notes included.
    const snapshot = await store.exportRoom(scope);
    if (!snapshot) throw new Error("no snapshot");
    const log = await store.exportLog(scope, 0, 500);
    const moved = { roomId: "room-moved", teamId: scope.teamId };
    await store.importRoom(moved, { snapshot, events: () => log });
    expect(await store.getVar(moved, "k")).toBe("a\u0000b");
    expect(await store.exportRoom(moved)).toEqual(snapshot);
    expect(await store.exportLog(moved, 0, 500)).toEqual(log);
    expect((await store.keyDigests("team-a"))[0]?.note).toBe("n\u0000");
  });
});

describe("postgres store: a busy room", () => {
  test("a write queued behind its room's lock for longer than the timeout answers store_unavailable; other rooms go on", async () => {
    const { url, sql } = await fresh();
    const store = await createPostgresStore({ url, now, timeoutMs: 300 });
    opened.push(store);
    await store.createRoom(scope);
    const other = { roomId: "room-2", teamId: scope.teamId };
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Another session holds room-1's lock, as a long write would; the write is sent once the lock is held (a
    // fixed sleep raced the holder's first connection).
    let locked = () => {};
    const holding = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`room:${scope.roomId}`}, 0))`;
      locked();
      await held;
    });
    try {
      await Promise.race([holding, holder]);
      await expect(store.addTask(scope, task("queued"))).rejects.toMatchObject({ kind: "store_unavailable" });
      expect((await store.addTask(other, task("elsewhere"))).id).toBe("task-1");
    } finally {
      release();
      await holder;
    }
    expect((await store.addTask(scope, task("after"))).id).toBe("task-1");
  });
});

describe("postgres store: the schema at start", () => {
  test("a newer schema is refused at start, naming the versions", async () => {
    const { url, sql } = await fresh();
    await sql`UPDATE roomd_schema SET version = 99`;
    await expect(createPostgresStore({ url, now, timeoutMs: 5000 })).rejects.toThrow(
      /schema version 99, newer than this roomd \(\d+\); upgrade roomd/,
    );
  });

  test("an unreachable server does not stop the start: calls fail until it is up, then the schema is made; the feed listens again after a restart", async () => {
    const server = await startPostgres();
    try {
      const url = await server.createDatabase();
      await server.halt();
      const store = await createPostgresStore({ url, now, timeoutMs: 1000 });
      opened.push(store);
      await expect(store.ping()).rejects.toMatchObject({ kind: "store_unavailable" });
      await expect(store.addTask(scope, task("a"))).rejects.toMatchObject({ kind: "store_unavailable" });
      await server.start();
      expect((await store.addTask(scope, task("a"))).id).toBe("task-1");
      expect((await store.readPlan(scope)).tasks).toHaveLength(1);

      // The feed: a watcher is told to re-read when listening begins and again once the LISTEN session is back
      // after the server was killed; then notifications flow again.
      const changes: RoomChange[] = [];
      const stop = store.changes.watch(scope.roomId, (c) => changes.push(c));
      const resyncs = () => changes.filter((c) => "resync" in c).length;
      const until = async (what: string, ok: () => boolean) => {
        for (let i = 0; i < 300 && !ok(); i++) await Bun.sleep(50);
        if (!ok()) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(changes)}`);
      };
      await until("the first resync", () => resyncs() === 1);
      await server.restart();
      await until("a resync after the restart", () => resyncs() === 2);
      await store.addTask(scope, task("b"));
      await until("the new head", () => changes.some((c) => "seq" in c && c.seq === 2));
      stop();
    } finally {
      await Promise.all(opened.splice(0).map((s) => s.close()));
      await server.stop();
    }
  });

  test("a closed store answers store_unavailable", async () => {
    const { store } = await fresh();
    opened.splice(opened.indexOf(store), 1);
    await store.close();
    await expect(store.ping()).rejects.toMatchObject({ kind: "store_unavailable" });
    await expect(store.readPlan(scope)).rejects.toMatchObject({ kind: "store_unavailable" });
    await expect(store.addTask(scope, task("a"))).rejects.toMatchObject({ kind: "store_unavailable" });
  });
});
