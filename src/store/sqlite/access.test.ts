/** SQLite specifics of the access half the conformance suite cannot see: rows left behind, sweeps, the window. */
import { Database } from "bun:sqlite";
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LIMITS } from "../../protocol/limits.ts";
import { iso } from "../../protocol/time.ts";
import type { NewInvite } from "../access-types.ts";
import type { RoomScope } from "../types.ts";
import { createSqliteStore, type SqliteRoomStore } from "./index.ts";

const dir = mkdtempSync(join(tmpdir(), "roomd-sqlite-access-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let t = 1_700_000_000_000;
const now = () => t;
const opened: SqliteRoomStore[] = [];
let fileN = 0;
function open(roomsPerTeam = 100): { store: SqliteRoomStore; path: string } {
  const path = join(dir, `access-${++fileN}.sqlite`);
  const store = createSqliteStore({ path, now, limits: { roomsPerTeam } });
  opened.push(store);
  return { store, path };
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

const rows = (path: string, sql: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return db.query(sql).all();
  } finally {
    db.close();
  }
};
const count = (path: string, table: string) =>
  (rows(path, `SELECT count(*) AS c FROM ${table}`)[0] as { c: number }).c;

const scope: RoomScope = { roomId: "room-1", teamId: "team-a" };
const task = { title: "t", description: "", depends_on: [], priority: null };
const tools = { bucket: "tools", limit: 3, windowMs: 60_000 } as const;
const invite = (tokenId: string, ttlMs = 3_600_000): NewInvite => ({
  tokenId,
  roomId: scope.roomId,
  teamId: scope.teamId,
  digest: `${tokenId}`.padEnd(64, "0"),
  createdAt: iso(t),
  expiresAt: iso(t + ttlMs),
  hint: "****abcd",
});

describe("sqlite store: access schema", () => {
  test("the new tables are STRICT and the indexes exist", () => {
    const { path } = open();
    const tables = rows(
      path,
      "SELECT name, strict FROM pragma_table_list WHERE name IN ('keys', 'invites', 'rate_hits')",
    );
    expect(tables).toHaveLength(3);
    for (const table of tables as { strict: number }[]) expect(table.strict).toBe(1);
    const indexes = rows(
      path,
      "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'",
    );
    expect(indexes.map((r) => (r as { name: string }).name)).toEqual(
      expect.arrayContaining(["rooms_by_owner", "keys_by_team", "invites_by_digest", "rate_hits_by_bucket"]),
    );
  });
});

describe("sqlite store: room limit and mayClaim", () => {
  test("a claim over the limit changes nothing; writes to owned rooms and expired rooms' slots still work", async () => {
    const { store, path } = open(2);
    await store.addTask(scope, task);
    await store.setVar({ ...scope, roomId: "room-2" }, "k", "v", "a");
    await expect(store.setVar({ ...scope, roomId: "room-3" }, "k", "v", "a")).rejects.toMatchObject({
      kind: "limit",
    });
    expect(count(path, "rooms")).toBe(2);
    expect(count(path, "vars")).toBe(1);
    await store.addTask(scope, task);
    expect(await store.createRoom({ ...scope, roomId: "room-3" }).catch((e) => e.kind)).toBe("limit");
    t += LIMITS.roomTtlMs;
    expect(await store.createRoom({ ...scope, roomId: "room-3" })).toEqual({ created: true });
  });

  test("mayClaim false: writes to an unowned room are denied and leave no row; the owned room works", async () => {
    const { store, path } = open();
    const guest = { ...scope, mayClaim: false };
    await expect(store.setVar(guest, "k", "v", "invite:i_1")).rejects.toMatchObject({ kind: "denied" });
    expect((await store.readPlan(guest)).tasks).toEqual([]);
    expect(count(path, "rooms")).toBe(0);
    await store.createRoom(scope);
    expect((await store.addTask(guest, task)).id).toBe("task-1");
  });
});

describe("sqlite store: deleting, sweeping and summaries", () => {
  test("deleteRoom deletes every row of the room, its invites and their rate windows, and nothing else", async () => {
    const { store, path } = open();
    const other = { ...scope, roomId: "room-2" };
    for (const s of [scope, other]) {
      await store.addTask(s, task);
      await store.setVar(s, "k", "v", "a");
      await store.createInvite({ ...invite("i_1"), roomId: s.roomId }, 50);
      await store.resolveInvite(s.roomId, invite("i_1").digest, tools);
    }
    await store.consumeRate(scope.teamId, tools);
    await store.deleteRoom(scope);
    for (const table of ["rooms", "tasks", "vars", "invites"]) expect(count(path, table)).toBe(1);
    expect(rows(path, "SELECT DISTINCT room_id FROM events")).toEqual([{ room_id: "room-2" }]);
    expect(rows(path, "SELECT bucket FROM rate_hits ORDER BY bucket")).toEqual([
      { bucket: "invite:room-2:i_1:tools" },
      { bucket: "team:team-a:tools" },
    ]);
  });

  test("the sweep drops expired rooms' invites, expired invites and rate hits older than an hour", async () => {
    const { store, path } = open();
    await store.createRoom(scope);
    await store.createInvite(invite("i_old", 1000), 50);
    await store.createInvite(invite("i_live", LIMITS.roomTtlMs * 2), 50);
    await store.consumeRate(scope.teamId, tools);
    t += 3_600_000;
    await store.consumeRate(scope.teamId, tools);
    await store.sweepExpired();
    expect(count(path, "invites")).toBe(1);
    expect(count(path, "rate_hits")).toBe(1);
    t += LIMITS.roomTtlMs;
    expect(await store.sweepExpired()).toBe(1);
    expect(count(path, "invites")).toBe(0);
  });

  test("roomSummary writes nothing, not even last_activity", async () => {
    const { store, path } = open();
    await store.addTask(scope, task);
    const before = rows(path, "SELECT * FROM rooms");
    t += 10 * 60_000;
    expect((await store.roomSummary(scope.roomId))?.taskCount).toBe(1);
    expect(await store.roomStats(scope.roomId)).toMatchObject({ taskCount: 1, eventCount: 1 });
    expect(rows(path, "SELECT * FROM rooms")).toEqual(before);
  });

  test("the window slides: a hit leaves exactly windowMs after it was admitted", async () => {
    const { store } = open();
    expect(await store.consumeRate("team-a", tools)).toEqual({
      allowed: true,
      limit: 3,
      remaining: 2,
      resetMs: 0,
    });
    t += 10_000;
    await store.consumeRate("team-a", tools);
    expect(await store.consumeRate("team-a", tools)).toMatchObject({ remaining: 0, resetMs: 50_000 });
    expect(await store.consumeRate("team-a", tools)).toMatchObject({ allowed: false, resetMs: 50_000 });
    t += 49_999;
    expect((await store.consumeRate("team-a", tools)).allowed).toBe(false);
    t += 1;
    expect(await store.consumeRate("team-a", tools)).toMatchObject({
      allowed: true,
      remaining: 0,
      resetMs: 10_000,
    });
  });
});
