/**
 * A new user's path from the embedded store to a shared one, as docs/operations.md tells it: a first-run SQLite
 * deployment (its operator key made by roomd itself, the secret in `operator.key`) is moved with the guide's two
 * example commands run one after the other — SQLite → Redis, then Redis → PostgreSQL — from a directory standing
 * for the checkout. No journal is left in that directory or anywhere else once a run is verified, and roomd then
 * starts on each target with no key in its environment: the moved operator key is enough. On a store holding no
 * operator key it still refuses to start, saying what to do.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureLocalKey } from "../../src/access/first-run.ts";
import { systemClock } from "../../src/protocol/time.ts";
import { httpClient } from "../support/http.ts";
import { sharedPostgres } from "../support/postgres.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { fillRoom } from "../support/rich-room.ts";
import { runToEnd } from "../support/run.ts";
import { spawnServer } from "../support/server.ts";
import { openWith } from "../support/stores.ts";

const ROOT = join(import.meta.dir, "..", "..");
const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" };

/** `bun run migrate -- --from … --to …` as the guide writes it (no --journal), run from `cwd`. */
const migrate = (from: string, to: string, cwd: string) =>
  runToEnd(["bun", join(ROOT, "src/moving/main.ts"), "--from", from, "--to", to], {
    cwd,
    env,
    killAfterMs: 120_000,
  });

/** The journal a run announced (`journal: <path>`). */
const journalOf = (stdout: string) => /^journal: (.+?) \(/m.exec(stdout)?.[1];

describe("moving a first-run deployment to a shared store", () => {
  let redis: RedisServer;
  let postgresUrl: string;
  let emptyPostgresUrl: string;
  const data = mkdtempSync(join(tmpdir(), "roomd-first-run-"));
  const sqlitePath = join(data, "data", "roomd.sqlite");
  let secret: string;

  beforeAll(async () => {
    redis = await startRedisServer();
    const postgres = await sharedPostgres();
    [postgresUrl, emptyPostgresUrl] = await Promise.all([
      postgres.createDatabase(),
      postgres.createDatabase(),
    ]);
    // What a first start of roomd on the embedded store does: an operator key of team "local", its secret in a file.
    const store = await openWith({ store: "sqlite", sqlitePath });
    try {
      const key = await ensureLocalKey(sqlitePath, store, systemClock());
      secret = readFileSync(key.path, "utf8").trim();
      await fillRoom(store, { roomId: "my-project", teamId: "local" });
    } finally {
      await store.close();
    }
  });
  afterAll(async () => {
    await redis.stop();
  });

  test("R2-13 the guide's two migrations run one after the other and leave no journal behind", async () => {
    const checkout = mkdtempSync(join(tmpdir(), "roomd-checkout-"));
    const first = await migrate(`sqlite://${sqlitePath}`, redis.url, checkout);
    expect({ code: first.code, err: first.stderr }).toEqual({ code: 0, err: "" });
    expect(first.stdout).toContain("done: 1 team");
    const second = await migrate(redis.url, postgresUrl, checkout);
    expect({ code: second.code, err: second.stderr }).toEqual({ code: 0, err: "" });
    expect(second.stdout).toContain("done: 1 team");
    expect(readdirSync(checkout)).toEqual([]);
    expect(existsSync(join(ROOT, "roomd-migrate.journal"))).toBe(false);
    for (const run of [first, second]) {
      const journal = journalOf(run.stdout);
      expect(journal).toBeDefined();
      expect((journal as string).startsWith(checkout)).toBe(false);
      expect(existsSync(journal as string)).toBe(false);
    }
    // Each pair of stores has a journal of its own.
    expect(journalOf(first.stdout)).not.toBe(journalOf(second.stdout));
  });

  test("R2-14 roomd starts on a store holding the moved operator key, with no key in its environment", async () => {
    const targets: Record<string, string>[] = [
      { STORE: "redis", REDIS_URL: redis.url },
      { STORE: "postgres", DATABASE_URL: postgresUrl },
    ];
    for (const storeEnv of targets) {
      const server = await spawnServer(storeEnv);
      try {
        const me = await httpClient(server.url).get("/admin/me", secret);
        expect({ store: storeEnv.STORE, status: me.status, body: me.body }).toMatchObject({
          store: storeEnv.STORE,
          status: 200,
          body: { teamId: "local", type: "human" },
        });
        const plan = await httpClient(server.url).tool(secret, "read_plan", { roomId: "my-project" });
        expect(JSON.parse(plan.text).tasks.length).toBeGreaterThan(0);
      } finally {
        await server.stop();
      }
    }
  });

  test("R2-14 on a store holding no operator key roomd refuses to start, saying what to set", async () => {
    const run = await runToEnd(["bun", "src/index.ts"], {
      cwd: ROOT,
      env: { ...env, PORT: "0", STORE: "postgres", DATABASE_URL: emptyPostgresUrl },
      killAfterMs: 60_000,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("API_KEYS or OPERATOR_KEYS");
    expect(run.stderr).toContain("holds no operator key");
  });
});
