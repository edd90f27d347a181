/**
 * How long an idle room lives, on every store: ROOM_TTL_DAYS past its last use (0: for ever). With ARCHIVE_DIR set,
 * a room past it is first written there as its verified export (the hash-chained file of `bun run migrate`), and only
 * then removed — a room whose archive could not be written stays, and so does a room used while it was archived.
 * The dashboard's overview says when each room will expire. The clock is injected; on Redis, whose keys expire on the
 * server's own clock, the keys' time to live is read instead.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import { createArchiver } from "../../src/moving/archive.ts";
import { openExport } from "../../src/moving/export.ts";
import { readExport } from "../../src/moving/import-file.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { fillRoom } from "../support/rich-room.ts";
import { runToEnd } from "../support/run.ts";
import { spawnServer, startInProcess, TEAM_A } from "../support/server.ts";
import { roomKeyTtl } from "../support/store-scan.ts";
import { E2E_STORES, newRoomId, openWith } from "../support/stores.ts";

const DAY = 86_400_000;

/** The lines of a room's export without its header (which carries the time of the export). */
async function exportBody(store: RoomStore, scope: { roomId: string; teamId: string }, now: number) {
  const opened = await openExport(store, scope, now);
  if (!opened) return null;
  const lines: string[] = [];
  for await (const line of opened.lines()) lines.push(line);
  return lines.slice(1).join("");
}

/** Whether the room lives, looked at without using it (a read by its team would count as a use). */
const exists = async (store: RoomStore, scope: { roomId: string; teamId: string }) =>
  (await store.roomInfo({ ...scope, observe: true })).exists;

describe("room expiry settings", () => {
  test("R2-11 ROOM_TTL_DAYS (default 30, 0 = never) and ARCHIVE_DIR are read with readable errors", () => {
    const base = { API_KEYS: "team-a:secret-team-a-0123456789" };
    expect(loadConfig(base)).toMatchObject({ roomTtlDays: 30 });
    expect(loadConfig(base).archiveDir).toBeUndefined();
    expect(loadConfig({ ...base, ROOM_TTL_DAYS: "0", ARCHIVE_DIR: "/var/lib/roomd/archive" })).toMatchObject({
      roomTtlDays: 0,
      archiveDir: "/var/lib/roomd/archive",
    });
    expect(() => loadConfig({ ...base, ROOM_TTL_DAYS: "-1", ARCHIVE_DIR: "relative/dir" })).toThrow(
      /ROOM_TTL_DAYS: must be at least 0.*\n.*ARCHIVE_DIR: must be an absolute path/s,
    );
  });
});

describe("the archiver in a roomd process", () => {
  test("R2-11 roomd started with ARCHIVE_DIR archives a room idle past ROOM_TTL_DAYS, and refuses a directory it cannot write", async () => {
    const data = mkdtempSync(join(tmpdir(), "roomd-archive-run-"));
    const sqlitePath = join(data, "roomd.sqlite");
    const archive = join(data, "archive");
    const scope = { roomId: newRoomId(), teamId: TEAM_A.teamId };
    // A room last used two days ago, as a roomd of two days ago left it.
    const before = await openWith({ store: "sqlite", sqlitePath }, { now: () => Date.now() - 2 * DAY });
    await fillRoom(before, scope);
    await before.close();
    const env = {
      STORE: "sqlite",
      SQLITE_PATH: sqlitePath,
      API_KEYS: `${TEAM_A.teamId}:${TEAM_A.secret}`,
      ROOM_TTL_DAYS: "1",
    };
    const server = await spawnServer({ ...env, ARCHIVE_DIR: archive });
    try {
      for (let i = 0; i < 100 && !existsSync(join(archive, scope.teamId)); i++) await Bun.sleep(100);
      const res = await fetch(`${server.url}/admin/overview`, {
        headers: { Authorization: `Bearer ${TEAM_A.secret}` },
      });
      expect(((await res.json()) as { rooms: unknown[] }).rooms).toEqual([]);
      expect(readdirSync(join(archive, scope.teamId))).toEqual([
        expect.stringMatching(new RegExp(`^${scope.roomId}\\.[0-9TZ-]+\\.roomd\\.ndjson$`)),
      ]);
    } finally {
      await server.stop();
    }
    const blocked = join(data, "a-file");
    writeFileSync(blocked, "");
    const refused = await runToEnd(["bun", "src/index.ts"], {
      cwd: join(import.meta.dir, "..", ".."),
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        ...env,
        PORT: "0",
        ARCHIVE_DIR: blocked,
      },
      killAfterMs: 60_000,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`ARCHIVE_DIR: ${blocked} cannot be written`);
  });
});

describe("migrating a store whose rooms live long", () => {
  test("R2-11 bun run migrate from a store named by URL drops no room idle longer than 30 days", async () => {
    const data = mkdtempSync(join(tmpdir(), "roomd-long-lived-"));
    const [from, to] = [join(data, "from.sqlite"), join(data, "to.sqlite")];
    const scope = { roomId: newRoomId(), teamId: "long-lived" };
    // A deployment with ROOM_TTL_DAYS=0 (or ARCHIVE_DIR): a room last used 40 days ago is still its room.
    const old = await openWith(
      { store: "sqlite", sqlitePath: from },
      { now: () => Date.now() - 40 * DAY, roomTtlDays: 0 },
    );
    await fillRoom(old, scope);
    await old.close();
    const run = await runToEnd(
      ["bun", "src/moving/main.ts", "--from", `sqlite://${from}`, "--to", `sqlite://${to}`],
      {
        cwd: join(import.meta.dir, "..", ".."),
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
        killAfterMs: 120_000,
      },
    );
    expect({ code: run.code, err: run.stderr }).toEqual({ code: 0, err: "" });
    expect(run.stdout).toContain("rooms 1 (1 copied");
    for (const sqlitePath of [from, to]) {
      const store = await openWith({ store: "sqlite", sqlitePath }, { roomTtlDays: 0 });
      try {
        expect(await exists(store, scope)).toBe(true);
      } finally {
        await store.close();
      }
    }
  });
});

for (const make of E2E_STORES) {
  describe(`room expiry on ${make().name}`, () => {
    const backing = make();
    let t = Date.now();
    const now = () => t;
    const opened: RoomStore[] = [];
    const open = async (options: { roomTtlDays: number; archiveDir?: string }) => {
      const store = await backing.open({ now, ...options });
      opened.push(store);
      return store;
    };
    const newScope = () => ({ roomId: newRoomId(), teamId: `exp-${crypto.randomUUID().slice(0, 8)}` });

    beforeAll(() => {
      t = Date.now();
    });
    afterAll(async () => {
      await Promise.all(opened.map((s) => s.close()));
    });

    test("R2-11 an idle room lives ROOM_TTL_DAYS past its last use; with 0 it never expires", async () => {
      const short = await open({ roomTtlDays: 2 });
      const never = await open({ roomTtlDays: 0 });
      const a = newScope();
      const b = newScope();
      await short.createRoom(a);
      await never.createRoom(b);
      const ttl = await roomKeyTtl(backing, a.roomId);
      if (ttl === null) {
        t += 2 * DAY - 1000;
        expect(await exists(short, a)).toBe(true);
        t += 2000;
        expect(await exists(short, a)).toBe(false);
        t += 400 * DAY;
        expect(await exists(never, b)).toBe(true);
      } else {
        // Redis expires keys on its own clock: the keys carry the setting.
        expect(ttl).toBeGreaterThan(2 * DAY - 60_000);
        expect(ttl).toBeLessThanOrEqual(2 * DAY);
        expect(await roomKeyTtl(backing, b.roomId)).toBe(-1);
        // A store that keeps rooms for ever takes back the expiry an earlier setting gave, when it lists the room:
        // switching ARCHIVE_DIR on never lets Redis drop an idle room unarchived.
        await never.listRooms(a.teamId);
        expect(await roomKeyTtl(backing, a.roomId)).toBe(-1);
      }
    });

    test("R2-11 with ARCHIVE_DIR an idle room is archived as its verified export, then removed", async () => {
      const dir = mkdtempSync(join(tmpdir(), "roomd-archive-"));
      const store = await open({ roomTtlDays: 1, archiveDir: dir });
      const idle = newScope();
      const used = { roomId: newRoomId(), teamId: idle.teamId };
      await fillRoom(store, idle);
      await store.createRoom(used);
      // Archiving is the only way a room goes: the store keeps it past its time on its own.
      expect(await roomKeyTtl(backing, idle.roomId)).toBeOneOf([null, -1]);
      t += DAY + 60_000;
      await store.postEvent(used, { type: "note", from: "bob", to: "all", payload: {} });
      const body = await exportBody(store, idle, t);
      const archiver = createArchiver({ store, dir, ttlMs: DAY, now, logger: silentLogger });
      const swept = await archiver.archiveTeam(idle.teamId);
      expect(swept).toEqual({ archived: [idle.roomId], failed: [] });
      expect(await exists(store, idle)).toBe(false);
      expect(await exists(store, used)).toBe(true);

      const files = readdirSync(join(dir, idle.teamId));
      expect(files).toHaveLength(1);
      const file = join(dir, idle.teamId, files[0] as string);
      expect(files[0]).toStartWith(`${idle.roomId}.`);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(dir).mode & 0o077).toBe(0);
      const text = readFileSync(file, "utf8");
      expect(text.slice(text.indexOf("\n") + 1)).toBe(body as string);
      // The file is a valid export: it imports back.
      const verified = await readExport(Bun.file(file).stream(), 1 << 30);
      verified.close();
      await store.importRoom(idle, await readExport(Bun.file(file).stream(), 1 << 30));
      expect(await exportBody(store, idle, t)).toBe(body);
    });

    test("R2-11 a room whose archive cannot be written is not removed", async () => {
      const parent = mkdtempSync(join(tmpdir(), "roomd-archive-"));
      const blocked = join(parent, "not-a-dir");
      writeFileSync(blocked, "a file where the archive directory should be");
      const store = await open({ roomTtlDays: 1, archiveDir: blocked });
      const scope = newScope();
      await fillRoom(store, scope);
      t += DAY + 60_000;
      const failing = createArchiver({ store, dir: blocked, ttlMs: DAY, now, logger: silentLogger });
      expect(await failing.archiveTeam(scope.teamId)).toEqual({ archived: [], failed: [scope.roomId] });
      expect(await exists(store, scope)).toBe(true);
      expect(existsSync(join(blocked, scope.teamId))).toBe(false);
      const dir = join(parent, "archive");
      const working = createArchiver({ store, dir, ttlMs: DAY, now, logger: silentLogger });
      expect(await working.archiveTeam(scope.teamId)).toEqual({ archived: [scope.roomId], failed: [] });
      expect(await exists(store, scope)).toBe(false);
    });

    test("R2-11 deleteIdleRoom removes a room only when it was not used since", async () => {
      const store = await open({ roomTtlDays: 0 });
      const scope = newScope();
      await store.createRoom(scope);
      const [listed] = await store.listRooms(scope.teamId);
      const idleSince = Date.parse(listed?.lastActivity as string);
      t += 120_000;
      await store.setVar(scope, "k", "v", "alice");
      expect(await store.deleteIdleRoom(scope, idleSince)).toBe(false);
      expect(await exists(store, scope)).toBe(true);
      expect(await store.deleteIdleRoom({ ...scope, teamId: "someone-else" }, t)).toBe(false);
      expect(await exists(store, scope)).toBe(true);
      expect(await store.deleteIdleRoom(scope, t)).toBe(true);
      expect(await exists(store, scope)).toBe(false);
    });

    test("R2-11 the dashboard's overview says when each room expires (null: never)", async () => {
      for (const [days, expected] of [
        ["3", (last: string) => new Date(Date.parse(last) + 3 * DAY).toISOString()],
        ["0", () => null],
      ] as const) {
        const store = await open({ roomTtlDays: Number(days) });
        const server = startInProcess(store, silentLogger, { ROOM_TTL_DAYS: days }, now);
        try {
          const roomId = newRoomId();
          await store.createRoom({ roomId, teamId: TEAM_A.teamId });
          const res = await fetch(`${server.url}/admin/overview/${roomId}`, {
            headers: { Authorization: `Bearer ${TEAM_A.secret}` },
          });
          const room = (await res.json()) as { lastActivity: string; expiresAt: string | null };
          expect(room.expiresAt).toBe(expected(room.lastActivity));
        } finally {
          await server.stop();
        }
      }
    });
  });
}
