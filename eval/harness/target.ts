/**
 * The roomd the harness measures: the real app (createApp with roomd's own wiring, appDeps) served over real HTTP
 * on a loopback port, on a fresh store — a temporary SQLite file by default, or a private redis-server or
 * PostgreSQL server started for the run (`--store redis|postgres`) — with the simulation's clock as the clock of
 * both the app and the store. Keys are minted through the admin API, one bound to each agent.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appDeps, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import type { Clock } from "../../src/protocol/time.ts";
import { openStore } from "../../src/store/index.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { startPostgres } from "../../test/support/postgres.ts";
import { startRedisServer } from "../../test/support/redis-server.ts";

export const EVAL_STORES = ["sqlite", "redis", "postgres"] as const;
export type EvalStore = (typeof EVAL_STORES)[number];

/** The team every room of a run belongs to, and the person (an operator key) who steers and approves. */
const TEAM = { teamId: "eval", secret: "eval-team-secret-0123456789abcdef" };
const PERSON = { teamId: "eval", secret: "eval-person-secret-0123456789abcdef", humanId: "pat" };

export interface Target {
  url: string;
  store: RoomStore;
  teamId: string;
  /** The person's key (human:pat): messages, the driver, approvals. */
  personKey: string;
  /** A key bound to the agent, minted once per agent id and kept for the run. */
  keyFor(agentId: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startTarget(kind: EvalStore, now: Clock): Promise<Target> {
  const cleanups: (() => Promise<void> | void)[] = [];
  let storeEnv: Record<string, string>;
  if (kind === "redis") {
    const redis = await startRedisServer();
    cleanups.push(() => redis.stop());
    storeEnv = { STORE: "redis", REDIS_URL: redis.url };
  } else if (kind === "postgres") {
    const postgres = await startPostgres();
    cleanups.push(() => postgres.stop());
    storeEnv = { STORE: "postgres", DATABASE_URL: await postgres.createDatabase() };
  } else {
    const dir = mkdtempSync(join(tmpdir(), "roomd-eval-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    storeEnv = { STORE: "sqlite", SQLITE_PATH: join(dir, "roomd.sqlite") };
  }
  const config = loadConfig({
    ...storeEnv,
    API_KEYS: `${TEAM.teamId}:${TEAM.secret}`,
    OPERATOR_KEYS: `${PERSON.teamId}:${PERSON.secret}:${PERSON.humanId}`,
    // The harness is the only client: limits sized for it, so no refusal comes from a budget.
    RATE_LIMIT_PER_MINUTE: "1000000",
    ROOMS_PER_TEAM: "1000000",
    KEYS_PER_TEAM: "10000",
  });
  const store = await openStore(config, now);
  const deps = appDeps(config, store, silentLogger, now);
  const app = createApp(deps);
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: app.fetch, idleTimeout: 60 });
  const url = `http://127.0.0.1:${server.port}`;
  const keys = new Map<string, Promise<string>>();
  const mint = async (agentId: string) => {
    const res = await fetch(`${url}/admin/keys`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TEAM.secret}`, "Content-Type": "application/json" },
      body: JSON.stringify({ boundAgentId: agentId, note: "eval agent" }),
    });
    if (res.status !== 201) throw new Error(`minting a key for ${agentId} answered ${res.status}`);
    return ((await res.json()) as { secret: string }).secret;
  };
  return {
    url,
    store,
    teamId: TEAM.teamId,
    personKey: PERSON.secret,
    keyFor(agentId) {
      let key = keys.get(agentId);
      if (!key) {
        key = mint(agentId);
        keys.set(agentId, key);
      }
      return key;
    },
    async stop() {
      deps.live.close();
      await server.stop(true);
      await store.close();
      for (const cleanup of cleanups.reverse()) await cleanup();
    },
  };
}
