/**
 * `bun run migrate` for real, as a separate process, between real stores: a scripted multi-room team moves
 * SQLite → Redis → PostgreSQL → Upstash → SQLite and every room exports the same hashes at every stop; keys and invites
 * authenticate on each target (their digests were copied, never a secret); a run killed mid-way is finished by a
 * rerun, and a room a killed run left half written is recognised and written again.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RedisClient, spawn } from "bun";
import {
  digestHex,
  hintOf,
  newInviteToken,
  newKeyId,
  newKeySecret,
  newTokenId,
} from "../../src/access/secrets.ts";
import type { StoreSettings } from "../../src/config.ts";
import { exportDigest } from "../../src/moving/export.ts";
import { openJournal } from "../../src/moving/migrate.ts";
import { iso } from "../../src/protocol/time.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { sharedPostgres } from "../support/postgres.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { fillRoom } from "../support/rich-room.ts";
import { startInProcess } from "../support/server.ts";
import { dumpPostgres } from "../support/store-scan.ts";
import { openWith } from "../support/stores.ts";
import { startUpstashFront, type UpstashFront } from "../support/upstash-front.ts";

const ROOT = join(import.meta.dir, "..", "..");
const tmp = mkdtempSync(join(tmpdir(), "roomd-migrate-"));
const unique = () => crypto.randomUUID().slice(0, 6);

/** Runs the migration tool; resolves with its exit code and output. */
async function runMigrate(from: string, to: string, journal: string, onLine?: (line: string) => boolean) {
  const proc = spawn(["bun", "src/moving/main.ts", "--from", from, "--to", to, "--journal", journal], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
  });
  let out = "";
  let killed = false;
  const decoder = new TextDecoder();
  for await (const chunk of proc.stdout) {
    out += decoder.decode(chunk);
    if (onLine && !killed && out.split("\n").some((l) => onLine(l))) {
      proc.kill("SIGKILL");
      killed = true;
    }
  }
  const err = await new Response(proc.stderr).text();
  return { code: await proc.exited, out, err, killed };
}

interface Secrets {
  team: string;
  rooms: string[];
  keys: { secret: string; bound?: string; humanId?: string }[];
  invites: { roomId: string; token: string; agentId?: string }[];
}

/** A team with three filled rooms, a trimmed-free empty room, keys bound and unbound, a person's key, invites. */
async function scriptedTeam(store: RoomStore, now: number): Promise<Secrets> {
  const team = `mig-${unique()}`;
  const rooms = [`${team}-one`, `${team}-two`, `${team}-three`, `${team}-empty`];
  for (const [i, roomId] of rooms.slice(0, 3).entries())
    await fillRoom(store, { roomId, teamId: team }, `t${i}`);
  await store.createRoom({ roomId: rooms[3] as string, teamId: team });
  const keys: Secrets["keys"] = [];
  // The last key has a lifetime, a recorded use, a scope and its own agent budget: migrate copies them as they are.
  const lived = {
    expiresAt: iso(now + 30 * 86_400_000),
    lastUsedAt: iso(now - 5000),
    rooms: [rooms[0] as string],
    readOnly: true as const,
    agentRateLimitPerMinute: 12,
  };
  for (const extra of [{}, { boundAgentId: "bob" }, { humanId: "ann" }, lived] as const) {
    const secret = newKeySecret(team);
    await store.createKey(
      {
        keyId: newKeyId(team),
        teamId: team,
        kind: "dynamic",
        createdAt: iso(now),
        hint: hintOf(secret),
        digest: digestHex(secret),
        ...extra,
      },
      100,
    );
    keys.push({
      secret,
      ...("boundAgentId" in extra ? { bound: extra.boundAgentId } : {}),
      ...("humanId" in extra ? { humanId: extra.humanId } : {}),
    });
  }
  const invites: Secrets["invites"] = [];
  for (const agentId of ["guest", undefined]) {
    const roomId = rooms[0] as string;
    const token = newInviteToken(roomId);
    await store.createInvite(
      {
        tokenId: newTokenId(),
        roomId,
        teamId: team,
        createdAt: iso(now),
        expiresAt: iso(now + 86_400_000),
        hint: hintOf(token),
        digest: digestHex(token),
        ...(agentId ? { agentId } : {}),
      },
      100,
    );
    invites.push({ roomId, token, ...(agentId ? { agentId } : {}) });
  }
  return { team, rooms, keys, invites };
}

/** The export hashes of each room, by room. */
async function hashes(store: RoomStore, team: string, rooms: string[]) {
  const out: Record<string, unknown> = {};
  for (const roomId of rooms) out[roomId] = await exportDigest(store, { roomId, teamId: team }, 0);
  return out;
}

/** Every key and invite works on a server over `store`; the bound key is still bound, the person still a person. */
async function authenticates(store: RoomStore, s: Secrets) {
  const server = startInProcess(store);
  try {
    const http = httpClient(server.url);
    for (const key of s.keys) {
      const me = await http.get("/admin/me", key.secret);
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({
        teamId: s.team,
        ...(key.bound ? { boundAgentId: key.bound } : {}),
        ...(key.humanId ? { humanId: key.humanId, type: "human" } : {}),
      });
    }
    for (const invite of s.invites) {
      const plan = await http.tool(invite.token, "read_plan", { roomId: invite.roomId });
      expect(plan.isError).toBe(false);
      expect(JSON.parse(plan.text).tasks.length).toBeGreaterThan(0);
    }
    expect((await http.get("/admin/me", `${s.keys[0]?.secret}x`)).status).toBe(401);
  } finally {
    await server.stop();
  }
}

/** No secret is anywhere in a Redis server's data. */
async function noSecretIn(url: string, s: Secrets) {
  const client = new RedisClient(url);
  try {
    const dump = (await client.send("EVAL", [
      `local out = {}
       for _, k in ipairs(redis.call("KEYS", "*")) do
         local t = redis.call("TYPE", k).ok
         if t == "hash" then for _, v in ipairs(redis.call("HGETALL", k)) do out[#out + 1] = v end
         elseif t == "zset" then for _, v in ipairs(redis.call("ZRANGE", k, 0, -1)) do out[#out + 1] = v end
         elseif t == "string" then out[#out + 1] = redis.call("GET", k) end
       end
       return table.concat(out, "\\n")`,
      "0",
    ])) as string;
    expect(dump.length).toBeGreaterThan(0);
    for (const secret of [...s.keys.map((k) => k.secret), ...s.invites.map((i) => i.token)]) {
      expect(dump.includes(secret)).toBe(false);
    }
  } finally {
    client.close();
  }
}

/** No secret is anywhere in a PostgreSQL database: every row of every table, as text. */
async function noSecretInPostgres(url: string, s: Secrets) {
  const dump = await dumpPostgres(url);
  expect(dump.length).toBeGreaterThan(0);
  for (const secret of [...s.keys.map((k) => k.secret), ...s.invites.map((i) => i.token)]) {
    expect(dump.includes(secret)).toBe(false);
  }
}

describe("bun run migrate between real stores", () => {
  let redisA: RedisServer;
  let redisB: RedisServer;
  let front: UpstashFront;
  const opened: RoomStore[] = [];
  const open = async (settings: StoreSettings) => {
    const store = await openWith(settings);
    opened.push(store);
    return store;
  };

  beforeAll(async () => {
    [redisA, redisB] = await Promise.all([startRedisServer(), startRedisServer()]);
    front = await startUpstashFront({ redisUrl: redisB.url });
  });
  afterAll(async () => {
    await Promise.all(opened.map((s) => s.close()));
    await front.stop();
    await Promise.all([redisA.stop(), redisB.stop()]);
  });

  test("SQLite → Redis → PostgreSQL → Upstash → SQLite: the same hashes at every stop; keys and invites authenticate", async () => {
    const sqliteA = join(tmp, "a.sqlite");
    const sqliteB = join(tmp, "b.sqlite");
    const postgres = await (await sharedPostgres()).createDatabase();
    const specs = {
      sqliteA: `sqlite://${sqliteA}`,
      redis: redisA.url,
      postgres,
      upstash: `upstash+http://127.0.0.1:${new URL(front.url).port}?token=${front.token}`,
      sqliteB: `sqlite://${sqliteB}`,
    };
    const source = await open({ store: "sqlite", sqlitePath: sqliteA });
    const main = await scriptedTeam(source, Date.now());
    const other = `mig-${unique()}`;
    await fillRoom(source, { roomId: `${other}-solo`, teamId: other }, "other");
    const webhook = {
      webhookId: `wh_${unique()}${unique()}`,
      url: "https://hooks.example.com/roomd",
      types: ["task_added"],
      createdAt: iso(Date.now()),
    };
    await source.createWebhook({ roomId: main.rooms[0] as string, teamId: main.team }, webhook, 10);
    const expected = {
      ...(await hashes(source, main.team, main.rooms)),
      ...(await hashes(source, other, [`${other}-solo`])),
    };

    let keysBefore = await source.keyDigests(main.team);
    expect(keysBefore.find((k) => k.readOnly)).toMatchObject({
      rooms: [main.rooms[0]],
      agentRateLimitPerMinute: 12,
      lastUsedAt: expect.any(String),
    });
    const stops: [string, string, StoreSettings][] = [
      ["sqliteA", "redis", { store: "redis", redisUrl: redisA.url, redisCluster: false }],
      ["redis", "postgres", { store: "postgres", databaseUrl: postgres, databasePoolSize: 2 }],
      ["postgres", "upstash", { store: "upstash", upstashUrl: front.url, upstashToken: front.token }],
      ["upstash", "sqliteB", { store: "sqlite", sqlitePath: sqliteB }],
    ];
    for (const [from, to, settings] of stops) {
      const run = await runMigrate(
        specs[from as keyof typeof specs],
        specs[to as keyof typeof specs],
        join(tmp, `${from}-${to}.journal`),
      );
      expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: "" });
      expect(run.out).toContain(
        "done: 2 teams; verified keys 4 (4 copied, 0 already there), rooms 5 (5 copied",
      );
      expect(run.out).toContain("invites 2 (2 copied");
      expect(run.out).toContain("webhooks 1 (1 copied");
      expect(run.out).not.toContain(front.token);
      const target = await open(settings);
      const got = {
        ...(await hashes(target, main.team, main.rooms)),
        ...(await hashes(target, other, [`${other}-solo`])),
      };
      expect(got).toEqual(expected);
      // Every key field — expiry, last use, scope included — is what the store before had.
      expect(await target.keyDigests(main.team)).toEqual(keysBefore);
      expect(
        (await target.listWebhooks({ roomId: main.rooms[0] as string, teamId: main.team }))[0],
      ).toMatchObject(webhook);
      await authenticates(target, main);
      keysBefore = await target.keyDigests(main.team);
    }
    await noSecretIn(redisA.url, main);
    await noSecretIn(redisB.url, main);
    await noSecretInPostgres(postgres, main);
  });

  test("a run killed mid-way is finished by a rerun; a room left half written is written again", async () => {
    const sqlite = join(tmp, "resume.sqlite");
    const source = await open({ store: "sqlite", sqlitePath: sqlite });
    const team = `res-${unique()}`;
    const rooms = Array.from({ length: 12 }, (_, i) => `${team}-r${i}`);
    for (const roomId of rooms) await fillRoom(source, { roomId, teamId: team }, roomId);
    const target = await open({ store: "redis", redisUrl: redisA.url, redisCluster: false });
    const journal = join(tmp, "resume.journal");
    const from = `sqlite://${sqlite}`;

    const first = await runMigrate(from, redisA.url, journal, (line) => /copied room/.test(line));
    expect(first.killed).toBe(true);
    expect(first.code).not.toBe(0);
    const copiedBefore = first.out.split("\n").filter((l) => l.includes("copied room")).length;
    expect(copiedBefore).toBeGreaterThan(0);
    expect(copiedBefore).toBeLessThan(rooms.length);

    // As if the next room had been cut off between two parts: the journal says it was started, and the target has a
    // room under its id that is not the source's.
    const remaining: string[] = [];
    for (const roomId of rooms)
      if (!(await target.roomInfo({ roomId, teamId: team })).exists) remaining.push(roomId);
    expect(remaining.length).toBeGreaterThan(0);
    const half = remaining[0] as string;
    await target.addTask(
      { roomId: half, teamId: team },
      { title: "half", description: "", depends_on: [], priority: null },
    );
    openJournal(journal, `${from}\n${redisA.url}`).start(`${team}/rooms/${half}`);

    const second = await runMigrate(from, redisA.url, journal);
    expect({ code: second.code, err: second.err }).toEqual({ code: 0, err: "" });
    expect(second.out).toContain(`rooms ${rooms.length} (`);
    expect(second.out).toContain(`${half} was left half written by an earlier run: removing it`);
    const skipped = Number(/rooms \d+ \(\d+ copied, (\d+) already there\)/.exec(second.out)?.[1]);
    expect(skipped).toBeGreaterThanOrEqual(copiedBefore);
    expect(await hashes(target, team, rooms)).toEqual(await hashes(source, team, rooms));

    // A third run finds everything there: nothing copied, everything verified.
    const third = await runMigrate(from, redisA.url, journal);
    expect(third.code).toBe(0);
    expect(third.out).toContain(`rooms ${rooms.length} (0 copied, ${rooms.length} already there)`);
  });

  test("refusals: a room that differs on the target stops the run, naming it; bad specs are explained", async () => {
    const sqlite = join(tmp, "conflict.sqlite");
    const source = await open({ store: "sqlite", sqlitePath: sqlite });
    const team = `cnf-${unique()}`;
    await fillRoom(source, { roomId: `${team}-x`, teamId: team });
    const target = await open({ store: "sqlite", sqlitePath: join(tmp, "conflict-target.sqlite") });
    await target.addTask(
      { roomId: `${team}-x`, teamId: team },
      { title: "mine", description: "", depends_on: [], priority: null },
    );
    const run = await runMigrate(
      `sqlite://${sqlite}`,
      `sqlite://${join(tmp, "conflict-target.sqlite")}`,
      join(tmp, "c.journal"),
    );
    expect(run.code).toBe(1);
    expect(run.err).toContain(`${team}: room ${team}-x exists on the target with other content`);
    expect((await target.readPlan({ roomId: `${team}-x`, teamId: team })).tasks.map((t) => t.title)).toEqual([
      "mine",
    ]);

    const bad = await runMigrate("mysql://root:hunter2@db/x", `sqlite://${sqlite}`, join(tmp, "d.journal"));
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("unknown store");
    expect(bad.err).not.toContain("hunter2");
  });
});
