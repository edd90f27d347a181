/**
 * The only reader of process.env. One zod schema turns the environment into a typed Config; every bad variable
 * is reported in one readable message that names it and never echoes a secret value.
 */
import { z } from "zod";
import { TEAM_ID } from "./protocol/ids.ts";
import type { StoreDriver } from "./store/types.ts";

export interface StaticKey {
  teamId: string;
  secret: string;
}

export interface Config {
  /** HTTP port. */
  port: number;
  /** Store driver in use. */
  store: StoreDriver;
  /** Embedded store file (STORE=sqlite). */
  sqlitePath: string;
  /** Redis over TCP (STORE=redis). */
  redisUrl?: string;
  /** Talk to REDIS_URL as a Redis Cluster (REDIS_CLUSTER=true, or a redis-cluster:// URL). */
  redisCluster: boolean;
  /** Upstash Redis over REST (STORE=upstash). */
  upstashUrl?: string;
  upstashToken?: string;
  /** Static team keys. */
  apiKeys: StaticKey[];
  /** Operator keys. */
  operatorKeys: StaticKey[];
  /** Requests per team per minute. */
  rateLimitPerMinute: number;
  /** Allow requests when the limiter's store is unreachable. */
  rateLimitFailOpen: boolean;
  /** Whether GET /room/:id needs a bearer. */
  roomSummary: "public" | "private";
  /** Bound on any one store call before it counts as an outage. */
  storeTimeoutMs: number;
  /** Rooms one team may own. */
  roomsPerTeam: number;
  /** Dynamic keys one team may hold. */
  keysPerTeam: number;
  /** Live invites one room may have. */
  invitesPerRoom: number;
}

/** `teamId:secret,…` → keys; the message never contains the secret. */
const keyList = z
  .string()
  .optional()
  .transform((raw, ctx): StaticKey[] => {
    const keys: StaticKey[] = [];
    for (const [index, item] of (raw ?? "").split(",").entries()) {
      const entry = item.trim();
      if (entry === "") continue;
      const colon = entry.indexOf(":");
      const teamId = colon > 0 ? entry.slice(0, colon) : "";
      const secret = colon > 0 ? entry.slice(colon + 1) : "";
      if (!TEAM_ID.test(teamId) || secret.length < 16) {
        ctx.addIssue({
          code: "custom",
          message: `entry ${index + 1} must be teamId:secret (teamId 3-32 chars of a-z, 0-9, - starting with a letter or digit; secret at least 16 chars)`,
        });
        continue;
      }
      keys.push({ teamId, secret });
    }
    return keys;
  });

const bool = (fallback: boolean) =>
  z
    .enum(["true", "false", "1", "0"], { error: "must be true or false" })
    .optional()
    .transform((v) => (v === undefined ? fallback : v === "true" || v === "1"));

const intIn = (min: number, max: number, fallback: number) =>
  z.coerce
    .number({ error: "must be a number" })
    .int({ error: "must be an integer" })
    .min(min, { error: `must be at least ${min}` })
    .max(max, { error: `must be at most ${max}` })
    .optional()
    .transform((v) => v ?? fallback);

const url = (protocols: RegExp) =>
  z
    .string()
    .optional()
    .refine((v) => v === undefined || v === "" || (URL.canParse(v) && protocols.test(new URL(v).protocol)), {
      error: "must be a valid URL",
    })
    .transform((v) => (v === "" ? undefined : v));

/** `redis-cluster://[user:password@]host:port[,host:port…]`: the seeds of a Redis Cluster. */
const SEED = String.raw`(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+):\d{1,5}`;
const CLUSTER_URL = new RegExp(String.raw`^redis-cluster://([^@/\s]*@)?${SEED}(,${SEED})*/?$`);

const redisUrl = url(/^rediss?:$/).or(
  z
    .string()
    .regex(CLUSTER_URL, { error: "must be redis://, rediss:// or redis-cluster://host:port,host:port" }),
);

const envSchema = z.object({
  PORT: intIn(0, 65535, 3000),
  STORE: z.enum(["sqlite", "redis", "upstash"], { error: "must be sqlite, redis or upstash" }).optional(),
  SQLITE_PATH: z.string().min(1).optional(),
  REDIS_URL: redisUrl,
  REDIS_CLUSTER: bool(false),
  UPSTASH_REDIS_REST_URL: url(/^https?:$/),
  UPSTASH_REDIS_REST_TOKEN: z.string().optional(),
  API_KEYS: keyList,
  OPERATOR_KEYS: keyList,
  RATE_LIMIT_PER_MINUTE: intIn(1, 1_000_000, 600),
  RATE_LIMIT_FAIL_OPEN: bool(true),
  ROOM_SUMMARY: z.enum(["public", "private"], { error: "must be public or private" }).optional(),
  STORE_TIMEOUT_MS: intIn(50, 60_000, 2000),
  ROOMS_PER_TEAM: intIn(1, 1_000_000, 100),
  KEYS_PER_TEAM: intIn(1, 10_000, 50),
  INVITES_PER_ROOM: intIn(1, 10_000, 50),
});

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** Parses the environment; throws ConfigError listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = envSchema.safeParse(env);
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(`${String(issue.path[0])}: ${issue.message}`);
  }
  const e = parsed.data;
  if (e) {
    const store = e.STORE ?? (e.REDIS_URL ? "redis" : e.UPSTASH_REDIS_REST_URL ? "upstash" : "sqlite");
    if (store === "redis" && !e.REDIS_URL) problems.push("REDIS_URL: required when STORE=redis");
    if (store === "upstash" && !e.UPSTASH_REDIS_REST_URL)
      problems.push("UPSTASH_REDIS_REST_URL: required when STORE=upstash");
    if (store === "upstash" && !e.UPSTASH_REDIS_REST_TOKEN)
      problems.push("UPSTASH_REDIS_REST_TOKEN: required when STORE=upstash");
    if (problems.length === 0) {
      return {
        port: e.PORT,
        store,
        sqlitePath: e.SQLITE_PATH ?? "./data/roomd.sqlite",
        redisUrl: e.REDIS_URL,
        redisCluster: e.REDIS_CLUSTER || (e.REDIS_URL?.startsWith("redis-cluster://") ?? false),
        upstashUrl: e.UPSTASH_REDIS_REST_URL,
        upstashToken: e.UPSTASH_REDIS_REST_TOKEN,
        apiKeys: e.API_KEYS,
        operatorKeys: e.OPERATOR_KEYS,
        rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
        rateLimitFailOpen: e.RATE_LIMIT_FAIL_OPEN,
        roomSummary: e.ROOM_SUMMARY ?? "public",
        storeTimeoutMs: e.STORE_TIMEOUT_MS,
        roomsPerTeam: e.ROOMS_PER_TEAM,
        keysPerTeam: e.KEYS_PER_TEAM,
        invitesPerRoom: e.INVITES_PER_ROOM,
      };
    }
  }
  throw new ConfigError(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
}
