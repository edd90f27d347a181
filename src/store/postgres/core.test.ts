/**
 * The PostgreSQL driver's core on a real server (test support starts one): statements and placeholders, the
 * migration under concurrent starts, one write per room at a time across connections, the event log and
 * exactly-once delivery, LISTEN/NOTIFY sent only by commits.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sharedPostgres } from "../../../test/support/postgres.ts";
import type { RoomChange } from "../types.ts";
import { compile, mapError, openPg, type Pg } from "./db.ts";
import { createPostgresStore, type PostgresRoomStore } from "./index.ts";
import { migrate, SCHEMA_VERSION } from "./schema.ts";

let url: string;
let pg: Pg;
beforeAll(async () => {
  url = await (await sharedPostgres()).createDatabase();
  pg = openPg({ url, timeoutMs: 5000 });
  await migrate(pg);
});
afterAll(async () => {
  await pg?.close();
});

describe("placeholders", () => {
  test("?N, bare ? and $name become $n; literals, quoted names and casts are left alone", () => {
    expect(compile("SELECT ?1, ?2, ?1").text).toBe("SELECT $1, $2, $1");
    expect(compile("SELECT ?, ? WHERE a = '?' AND \"x?\" = ?").text).toBe(
      "SELECT $1, $2 WHERE a = '?' AND \"x?\" = $3",
    );
    expect(compile("SELECT $room, $after::int, $room")).toEqual({
      text: "SELECT $1, $2::int, $1",
      names: ["room", "after"],
    });
  });
});

describe("errors", () => {
  const kindOf = (errno: string) => {
    try {
      mapError(Object.assign(new Error("from the server"), { errno }), "op");
    } catch (error) {
      return (error as { kind?: string; name: string }).kind ?? (error as Error).name;
    }
  };
  test("outages, timeouts and lock waits past lock_timeout are store_unavailable; anything else a StoreFault", () => {
    for (const state of ["08006", "57P01", "57014", "53300", "55P03"])
      expect(kindOf(state)).toBe("store_unavailable");
    for (const state of ["23505", "42P01", "22P05"]) expect(kindOf(state)).toBe("StoreFault");
  });
});

describe("migrations", () => {
  test("five processes migrating one fresh database at once apply each step once", async () => {
    const fresh = await (await sharedPostgres()).createDatabase();
    const pools = Array.from({ length: 5 }, () => openPg({ url: fresh, timeoutMs: 10_000 }));
    try {
      await Promise.all(pools.map((p) => migrate(p)));
      const row = await (pools[0] as Pg)
        .query<{ version: number }, []>("SELECT version FROM roomd_schema")
        .get();
      expect(row?.version).toBe(SCHEMA_VERSION);
    } finally {
      await Promise.all(pools.map((p) => p.close()));
    }
  });

  test("a version 1 database with keys and rooms is brought to version 2: its teams listed, rooms untrimmed", async () => {
    const old = openPg({ url: await (await sharedPostgres()).createDatabase(), timeoutMs: 10_000 });
    try {
      await migrate(old, 1);
      const version = old.query<{ version: number }, []>("SELECT version FROM roomd_schema");
      expect((await version.get())?.version).toBe(1);
      const key = old.query<unknown, [string, string, string, number]>(
        `INSERT INTO keys (key_id, team_id, kind, digest, created_at, hint) VALUES (?1, ?2, 'dynamic', ?3, ?4, 'h')`,
      );
      await key.run("k1", "team-b", "d1", 2000);
      await key.run("k2", "team-a", "d2", 3000);
      await key.run("k3", "team-b", "d3", 1000);
      await old
        .query<unknown, [string]>(
          "INSERT INTO rooms (room_id, owner, created_at, last_activity, event_seq) VALUES (?, 'team-a', 1, 1, 7)",
        )
        .run("r-old");
      await migrate(old);
      expect((await version.get())?.version).toBe(SCHEMA_VERSION);
      expect(
        await old
          .query<{ team_id: string; first_key_at: number }, []>("SELECT * FROM teams ORDER BY team_id")
          .all(),
      ).toEqual([
        { team_id: "team-a", first_key_at: 3000 },
        { team_id: "team-b", first_key_at: 1000 },
      ]);
      expect(
        await old
          .query<{ trimmed_seq: number; id_floors: string | null; event_seq: number }, []>(
            "SELECT trimmed_seq, id_floors, event_seq FROM rooms WHERE room_id = 'r-old'",
          )
          .get(),
      ).toEqual({ trimmed_seq: 0, id_floors: null, event_seq: 7 });
    } finally {
      await old.close();
    }
  });
});

describe("the log", () => {
  /** `n` stores on the test database, each with its own pool (as n roomd processes). */
  const stores = (n: number) =>
    Promise.all(
      Array.from({ length: n }, () => createPostgresStore({ url, timeoutMs: 10_000, poolSize: 4 })),
    );
  const closeAll = (list: PostgresRoomStore[]) => Promise.all(list.map((s) => s.close()));

  test("200 concurrent appends through 4 pools: seqs 1..200, no gap, no duplicate; 8 consumers get each once", async () => {
    const pools = await stores(4);
    try {
      const roomId = `r-${crypto.randomUUID().slice(0, 8)}`;
      const scope = { roomId, teamId: "t1" };
      const posted = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          (pools[i % 4] as PostgresRoomStore).postEvent(scope, {
            type: "e",
            from: "a",
            to: "all",
            payload: { i },
          }),
        ),
      );
      expect(posted.map((e) => e.seq).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 200 }, (_, i) => i + 1),
      );
      const got: number[] = [];
      await Promise.all(
        Array.from({ length: 8 }, async (_, w) => {
          for (;;) {
            const batch = await (pools[w % 4] as PostgresRoomStore).consumeEvents(scope, "bob", 7);
            if (batch.count === 0) return;
            got.push(...batch.events.map((e) => e.seq));
          }
        }),
      );
      expect(got.sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    } finally {
      await closeAll(pools);
    }
  });

  test("another team's room is denied; a failed write rolls back and notifies nobody", async () => {
    const [writer, listener] = (await stores(2)) as [PostgresRoomStore, PostgresRoomStore];
    const seen: RoomChange[] = [];
    const roomId = `r-${crypto.randomUUID().slice(0, 8)}`;
    const stop = listener.changes.watch(roomId, (c) => seen.push(c));
    try {
      await Bun.sleep(200);
      await writer.postEvent({ roomId, teamId: "t1" }, { type: "e", from: "a", to: "all", payload: {} });
      await expect(
        writer.postEvent({ roomId, teamId: "t2" }, { type: "e", from: "a", to: "all", payload: {} }),
      ).rejects.toThrow("Room not found or access denied");
      await expect(
        writer.postEvent(
          { roomId, teamId: "t1" },
          { type: "e", from: "a", to: "all", payload: {}, replyToId: "evt-99" },
        ),
      ).rejects.toThrow("evt-99");
      for (let i = 0; i < 50 && !seen.some((c) => "seq" in c); i++) await Bun.sleep(20);
      await Bun.sleep(200);
      expect(seen.filter((c) => "seq" in c)).toEqual([{ roomId, seq: 1 }]);
    } finally {
      stop();
      await closeAll([writer, listener]);
    }
  });
});
