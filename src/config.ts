/**
 * The only reader of process.env. One zod schema turns the environment into a typed Config; every bad variable
 * is reported in one readable message that names it and never echoes a secret value.
 */
import { isAbsolute } from "node:path";
import { z } from "zod";
import { type Cidr, parseCidr } from "./protocol/cidr.ts";
import { TEAM_ID } from "./protocol/ids.ts";
import { HUMAN_ID } from "./protocol/principal.ts";
import { type TracingSettings, tracingEnv, tracingSettings } from "./telemetry/settings.ts";

/** The person who holds the first-run operator key when OPERATOR_NAME is not set (docs/people.md). */
export const DEFAULT_OPERATOR_NAME = "local";

export interface StaticKey {
  teamId: string;
  secret: string;
  /** Operator keys only: the person who holds it (OPERATOR_KEYS=teamId:secret:humanId; default "operator"). */
  humanId?: string;
}

/**
 * Single sign-on through an authenticating proxy (docs/operations.md#single-sign-on-through-a-proxy): who may assert
 * whom.
 */
export interface TrustedProxy {
  /** The request header carrying the person's id (TRUSTED_PROXY_HEADER), lowercase. */
  header: string;
  /** The team such people belong to (TRUSTED_PROXY_TEAM). */
  teamId: string;
  /** Peers allowed to assert it (TRUSTED_PROXY_CIDRS); from any other peer the header is ignored. */
  cidrs: Cidr[];
}

/** Which store, with what it needs: one variant per driver, so no field is "present unless…". */
export type StoreSettings =
  | {
      store: "sqlite";
      /** Embedded store file. */
      sqlitePath: string;
    }
  | {
      store: "redis";
      /** Redis over TCP: redis://, rediss://, or redis-cluster://host:port,host:port. */
      redisUrl: string;
      /** Talk to redisUrl as a Redis Cluster (REDIS_CLUSTER=true, or a redis-cluster:// URL). */
      redisCluster: boolean;
    }
  | {
      store: "upstash";
      /** Upstash Redis over REST. */
      upstashUrl: string;
      upstashToken: string;
      /** How often a process watching rooms asks Upstash for their heads (UPSTASH_POLL_MS): one request a tick; default 200. */
      upstashPollMs?: number;
    }
  | {
      store: "postgres";
      /** PostgreSQL: postgres://[user[:password]@]host[:port]/database[?sslmode=…] (DATABASE_URL). */
      databaseUrl: string;
      /** Connections each process keeps to it (DATABASE_POOL_SIZE). */
      databasePoolSize: number;
    };

/** What openStore needs: the driver's settings and the limits a store enforces itself. */
export type StoreConfig = StoreSettings & {
  /** Bound on any one store call before it counts as an outage. */
  storeTimeoutMs: number;
  /** Rooms one team may own (enforced atomically by the store). */
  roomsPerTeam: number;
  /** Events older than this many days are trimmed by later appends (EVENT_RETENTION_DAYS; 0 or absent: kept). */
  eventRetentionDays?: number;
  /** Most events a room keeps; older ones are trimmed by later appends (EVENT_RETENTION_MAX; 0 or absent: no max). */
  eventRetentionMax?: number;
  /** Days an idle room lives past its last use (ROOM_TTL_DAYS; 0: for ever). Absent: 30. */
  roomTtlDays?: number;
  /**
   * Where a room past its time is archived, as its verified export, before it is removed (ARCHIVE_DIR, an absolute
   * path). With it the store never drops a room by itself: the archiver does, only once the file is written.
   */
  archiveDir?: string;
};

export type Config = StoreConfig & {
  /** HTTP port. */
  port: number;
  /** Static team keys. */
  apiKeys: StaticKey[];
  /** Operator keys. */
  operatorKeys: StaticKey[];
  /**
   * The person who holds the first-run operator key (OPERATOR_NAME; "local" unless set): the name people and
   * agents see on what that key does in rooms.
   */
  operatorName: string;
  /** Requests per team per minute. */
  rateLimitPerMinute: number;
  /**
   * Tool calls per agent per minute, inside its team's budget (AGENT_RATE_LIMIT_PER_MINUTE); 0: no agent window,
   * the team's alone (the default).
   */
  agentRateLimitPerMinute: number;
  /** Allow requests when the limiter's store is unreachable. */
  rateLimitFailOpen: boolean;
  /** Whether GET /room/:id needs a bearer. */
  roomSummary: "public" | "private";
  /** Dynamic keys one team may hold. */
  keysPerTeam: number;
  /** Live invites one room may have. */
  invitesPerRoom: number;
  /** Address Bun.serve binds (HOST): an IP address or a hostname; loopback unless set. */
  host: string;
  /** Origins besides the server's own whose browser requests are served (ALLOWED_ORIGINS), as browsers send them. */
  allowedOrigins: string[];
  /** GET /room/:id requests per client address per minute when the summary is public. */
  summaryRateLimitPerMinute: number;
  /** Open SSE streams per team, per process (STREAMS_PER_TEAM). */
  streamsPerTeam: number;
  /** Open SSE streams per process (STREAMS_PER_PROCESS). */
  streamsPerProcess: number;
  /** Open SSE streams one invite may hold, per process, inside its team's (STREAMS_PER_INVITE). */
  streamsPerInvite: number;
  /**
   * Open SSE streams the keys bound to one agent may hold together, per process, inside the team's
   * (STREAMS_PER_AGENT).
   */
  streamsPerAgent: number;
  /**
   * Master key every webhook signing secret is derived from (WEBHOOK_SIGNING_KEY, at least 32 chars; the same in
   * every process of a deployment). Absent: the embedded store keeps one in a file, a shared store has no webhooks.
   */
  webhookSigningKey?: string;
  /** Webhook URLs may use plain http (WEBHOOK_ALLOW_HTTP). */
  webhookAllowHttp: boolean;
  /** Webhooks may reach loopback, private and other refused addresses (WEBHOOK_ALLOW_PRIVATE). */
  webhookAllowPrivate: boolean;
  /** Webhooks one room may have (WEBHOOKS_PER_ROOM). */
  webhooksPerRoom: number;
  /** People signed in by an authenticating proxy; null when not configured. */
  trustedProxy: TrustedProxy | null;
  /** Largest body POST /admin/rooms/:roomId/import accepts (IMPORT_MAX_BYTES). */
  importMaxBytes: number;
  /** Mark the session cookie Secure even on plain-http requests (COOKIE_SECURE; behind a TLS-terminating proxy). */
  cookieSecure: boolean;
  /**
   * CONFORMANCE_FIXTURES=1: serve `/mcp?profile=conformance`, the official MCP conformance suite's fixture tools,
   * resources and prompts. For the suite's runs only (the start banner warns); never set it in production.
   */
  conformanceFixtures: boolean;
  /**
   * OAuth 2.1 for MCP clients (OAUTH, on unless `off`): roomd is a protected resource and its own authorization
   * server (docs/security.md#oauth). Off: no metadata, no /oauth routes, and a 401 names no authorization server.
   */
  oauth: boolean;
  /**
   * The public origin OAuth names as its issuer and its resource's base (OAUTH_ISSUER, e.g. https://roomd.example);
   * absent: each request's own scheme and Host (docs/security.md#oauth).
   */
  oauthIssuer?: string;
  /** Least severe log record written (LOG_LEVEL): debug, info (one line per tool call), warn or error. */
  logLevel: "debug" | "info" | "warn" | "error";
  /**
   * A bearer that may read GET /metrics and nothing else (METRICS_TOKEN, at least 16 chars), for a scraper that
   * should hold no team's key. Operator keys may read it too.
   */
  metricsToken?: string;
  /** OpenTelemetry tracing (OTEL_EXPORTER_OTLP_ENDPOINT, …), or null: off, the default. */
  tracing: TracingSettings | null;
};

/** The webhook settings (config fields the admin routes and the delivery worker read). */
export type WebhookConfig = Pick<
  Config,
  "webhookSigningKey" | "webhookAllowHttp" | "webhookAllowPrivate" | "webhooksPerRoom"
>;

/**
 * `teamId:secret,…` → keys; the message never contains the secret. Operator keys may name their person:
 * `teamId:secret:humanId` (so their secrets may not contain ":"); without it the person is "operator".
 */
const keyList = (people: boolean) =>
  z
    .string()
    .optional()
    .transform((raw, ctx): StaticKey[] => {
      const keys: StaticKey[] = [];
      for (const [index, item] of (raw ?? "").split(",").entries()) {
        const entry = item.trim();
        if (entry === "") continue;
        const colon = entry.indexOf(":");
        const teamId = colon > 0 ? entry.slice(0, colon) : "";
        let secret = colon > 0 ? entry.slice(colon + 1) : "";
        let humanId: string | undefined;
        const last = secret.lastIndexOf(":");
        if (people && last >= 0) {
          humanId = secret.slice(last + 1);
          secret = secret.slice(0, last);
        }
        if (
          !TEAM_ID.test(teamId) ||
          secret.length < 16 ||
          (humanId !== undefined && !HUMAN_ID.test(humanId))
        ) {
          ctx.addIssue({
            code: "custom",
            message: `entry ${index + 1} must be teamId:secret${people ? "[:humanId]" : ""} (teamId 3-32 chars of a-z, 0-9, - starting with a letter or digit; secret at least 16 chars${people ? ", without ':'; humanId 1-64 chars of A-Z, a-z, 0-9, _ . @ -" : ""})`,
          });
          continue;
        }
        keys.push(people ? { teamId, secret, humanId: humanId ?? "operator" } : { teamId, secret });
      }
      return keys;
    });

/** `10.0.0.0/8, fd00::/8` → ranges (one address is a /32 or /128). */
const cidrList = z
  .string()
  .optional()
  .transform((raw, ctx): Cidr[] => {
    const ranges: Cidr[] = [];
    for (const [index, item] of (raw ?? "").split(",").entries()) {
      if (item.trim() === "") continue;
      const cidr = parseCidr(item);
      if (!cidr) {
        ctx.addIssue({
          code: "custom",
          message: `entry ${index + 1} must be an IPv4 or IPv6 address or range, e.g. 10.0.0.0/8 or fd00::/8`,
        });
        continue;
      }
      ranges.push(cidr);
    }
    return ranges;
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

const IPV4 = z.ipv4();
const IPV6 = z.ipv6();
const HOSTNAME = z.hostname();
/** An IP address, or a hostname that does not merely look like a malformed IPv4 address (999.1.1.1). */
const isHost = (v: string) =>
  IPV4.safeParse(v).success ||
  IPV6.safeParse(v).success ||
  (HOSTNAME.safeParse(v).success && !/^[0-9.]+$/.test(v));

/** HOST: what Bun.serve binds; loopback by default, so a fresh start is not reachable from the network. */
const host = z
  .string()
  .optional()
  .refine((v) => v === undefined || v.trim() === "" || isHost(v.trim()), {
    error: "must be an IP address or a hostname, e.g. 127.0.0.1, 0.0.0.0, :: or localhost",
  })
  .transform((v) => (v === undefined || v.trim() === "" ? "127.0.0.1" : v.trim()));

/** `https://a.example,http://localhost:5173` → origins in the form browsers send (scheme://host[:port]). */
const originList = z
  .string()
  .optional()
  .transform((raw, ctx): string[] => {
    const origins: string[] = [];
    for (const [index, item] of (raw ?? "").split(",").entries()) {
      const entry = item.trim();
      if (entry === "") continue;
      const url = URL.canParse(entry) ? new URL(entry) : undefined;
      const bare =
        url !== undefined &&
        /^https?:$/.test(url.protocol) &&
        url.username === "" &&
        url.password === "" &&
        url.pathname === "/" &&
        url.search === "" &&
        url.hash === "";
      if (!url || !bare) {
        ctx.addIssue({
          code: "custom",
          message: `entry ${index + 1} must be a full origin: http(s)://host[:port] with no path, e.g. https://app.example.com`,
        });
        continue;
      }
      origins.push(url.origin);
    }
    return origins;
  });

/** `redis-cluster://[user:password@]host:port[,host:port…]`: the seeds of a Redis Cluster. */
const SEED = String.raw`(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+):\d{1,5}`;
const CLUSTER_URL = new RegExp(String.raw`^redis-cluster://([^@/\s]*@)?${SEED}(,${SEED})*/?$`);

const redisUrl = url(/^rediss?:$/).or(
  z
    .string()
    .regex(CLUSTER_URL, { error: "must be redis://, rediss:// or redis-cluster://host:port,host:port" }),
);

/** WEBHOOK_SIGNING_KEY: a secret, so its message says what is wrong and never shows it. */
const signingKey = z
  .string()
  .optional()
  .refine((v) => v === undefined || v === "" || v.length >= 32, {
    error: "must be at least 32 characters (e.g. the output of: openssl rand -base64 32)",
  })
  .transform((v) => (v === "" ? undefined : v));

/** METRICS_TOKEN: a secret, so its message says what is wrong and never shows it. */
const metricsToken = z
  .string()
  .optional()
  .refine((v) => v === undefined || v === "" || (v.length >= 16 && v.length <= 512 && !/\s/.test(v)), {
    error: "must be 16-512 characters without spaces (e.g. the output of: openssl rand -hex 32)",
  })
  .transform((v) => (v === "" ? undefined : v));

const envSchema = z.object({
  PORT: intIn(0, 65535, 3000),
  STORE: z
    .enum(["sqlite", "redis", "upstash", "postgres"], { error: "must be sqlite, redis, upstash or postgres" })
    .optional(),
  SQLITE_PATH: z.string().min(1).optional(),
  REDIS_URL: redisUrl,
  REDIS_CLUSTER: bool(false),
  UPSTASH_REDIS_REST_URL: url(/^https?:$/),
  UPSTASH_REDIS_REST_TOKEN: z.string().optional(),
  DATABASE_URL: url(/^postgres(ql)?:$/),
  DATABASE_POOL_SIZE: intIn(1, 1000, 10),
  API_KEYS: keyList(false),
  OPERATOR_KEYS: keyList(true),
  RATE_LIMIT_PER_MINUTE: intIn(1, 1_000_000, 600),
  RATE_LIMIT_FAIL_OPEN: bool(true),
  AGENT_RATE_LIMIT_PER_MINUTE: intIn(0, 1_000_000, 0),
  ROOM_SUMMARY: z.enum(["public", "private"], { error: "must be public or private" }).optional(),
  STORE_TIMEOUT_MS: intIn(50, 60_000, 2000),
  UPSTASH_POLL_MS: intIn(100, 10_000, 200),
  ROOMS_PER_TEAM: intIn(1, 1_000_000, 100),
  KEYS_PER_TEAM: intIn(1, 10_000, 50),
  INVITES_PER_ROOM: intIn(1, 10_000, 50),
  HOST: host,
  ALLOWED_ORIGINS: originList,
  SUMMARY_RATE_LIMIT_PER_MINUTE: intIn(1, 1_000_000, 120),
  STREAMS_PER_TEAM: intIn(1, 1_000_000, 100),
  STREAMS_PER_PROCESS: intIn(1, 1_000_000, 5000),
  STREAMS_PER_INVITE: intIn(1, 1_000_000, 10),
  STREAMS_PER_AGENT: intIn(1, 1_000_000, 10),
  WEBHOOK_SIGNING_KEY: signingKey,
  WEBHOOK_ALLOW_HTTP: bool(false),
  WEBHOOK_ALLOW_PRIVATE: bool(false),
  WEBHOOKS_PER_ROOM: intIn(1, 1000, 10),
  TRUSTED_PROXY_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, {
      error: "must be an HTTP header name, e.g. X-Auth-Request-Email",
    })
    .optional(),
  TRUSTED_PROXY_TEAM: z
    .string()
    .regex(TEAM_ID, {
      error: "must be a team id: 3-32 chars of a-z, 0-9 and -, starting with a letter or digit",
    })
    .optional(),
  TRUSTED_PROXY_CIDRS: cidrList,
  EVENT_RETENTION_DAYS: intIn(0, 36_500, 0),
  EVENT_RETENTION_MAX: intIn(0, 1_000_000_000, 0),
  ROOM_TTL_DAYS: intIn(0, 36_500, 30),
  OPERATOR_NAME: z
    .string()
    .optional()
    .refine((v) => v === undefined || v.trim() === "" || HUMAN_ID.test(v.trim()), {
      error: "must be 1-64 characters A-Z, a-z, 0-9, _ . @ and - (a person id, e.g. ada)",
    })
    .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim())),
  ARCHIVE_DIR: z
    .string()
    .optional()
    .refine((v) => v === undefined || v.trim() === "" || isAbsolute(v.trim()), {
      error: "must be an absolute path, e.g. /var/lib/roomd/archive",
    })
    .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim())),
  IMPORT_MAX_BYTES: intIn(1024 * 1024, 16 * 1024 * 1024 * 1024, 256 * 1024 * 1024),
  COOKIE_SECURE: bool(false),
  CONFORMANCE_FIXTURES: bool(false),
  OAUTH: z
    .enum(["on", "off"], { error: "must be on or off" })
    .optional()
    .transform((v) => v !== "off"),
  OAUTH_ISSUER: z
    .string()
    .optional()
    .refine(
      (v) =>
        v === undefined ||
        v === "" ||
        (URL.canParse(v) &&
          /^https?:$/.test(new URL(v).protocol) &&
          new URL(v).origin === v.replace(/\/$/, "")),
      { error: "must be an origin, scheme://host[:port] with no path, e.g. https://roomd.example" },
    )
    .transform((v) => (v === undefined || v === "" ? undefined : v.replace(/\/$/, ""))),
  LOG_LEVEL: z
    .enum(["debug", "info", "warn", "error"], { error: "must be debug, info, warn or error" })
    .optional(),
  METRICS_TOKEN: metricsToken,
  // Tracing (telemetry/settings.ts): off unless an OTLP endpoint is set.
  OTEL_EXPORTER_OTLP_ENDPOINT: tracingEnv.OTEL_EXPORTER_OTLP_ENDPOINT,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: tracingEnv.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
  OTEL_EXPORTER_OTLP_HEADERS: tracingEnv.OTEL_EXPORTER_OTLP_HEADERS,
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: tracingEnv.OTEL_EXPORTER_OTLP_TRACES_HEADERS,
  OTEL_EXPORTER_OTLP_PROTOCOL: tracingEnv.OTEL_EXPORTER_OTLP_PROTOCOL,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: tracingEnv.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL,
  OTEL_SERVICE_NAME: tracingEnv.OTEL_SERVICE_NAME,
  OTEL_RESOURCE_ATTRIBUTES: tracingEnv.OTEL_RESOURCE_ATTRIBUTES,
  OTEL_TRACES_SAMPLER: tracingEnv.OTEL_TRACES_SAMPLER,
  OTEL_TRACES_SAMPLER_ARG: tracingEnv.OTEL_TRACES_SAMPLER_ARG,
  OTEL_BSP_SCHEDULE_DELAY: tracingEnv.OTEL_BSP_SCHEDULE_DELAY,
  OTEL_TRACES_EXPORTER: tracingEnv.OTEL_TRACES_EXPORTER,
  OTEL_SDK_DISABLED: tracingEnv.OTEL_SDK_DISABLED,
});

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/**
 * The refusal of a shared store without keys: no API_KEYS or OPERATOR_KEYS in the environment, and no operator
 * key in the store (first-run keys are made only on the embedded store), so nobody could ever sign in — or the
 * store could not be asked (`unreadable`: why).
 */
export function noKeysError(store: string, unreadable?: string): ConfigError {
  const why =
    unreadable === undefined
      ? "the store holds no operator key"
      : `the store could not be read to look for an operator key (${unreadable})`;
  return new ConfigError(
    `Invalid configuration:\n  - API_KEYS or OPERATOR_KEYS: required with STORE=${store}: ${why} (first-run keys are made only on the embedded store; \`bun run migrate\` from a first-run deployment moves its key here)`,
  );
}

type Env = Record<string, string | undefined>;
const given = (v: string | undefined) => v !== undefined && v.trim() !== "";

/**
 * The rules across variables, on the raw environment so they are reported together with every other problem:
 * which driver, and what it needs.
 */
function storeRules(env: Env): { store: StoreSettings["store"]; problems: string[] } {
  const explicit = ["sqlite", "redis", "upstash", "postgres"].includes(env.STORE ?? "");
  const store = explicit
    ? (env.STORE as StoreSettings["store"])
    : given(env.REDIS_URL)
      ? "redis"
      : given(env.UPSTASH_REDIS_REST_URL)
        ? "upstash"
        : given(env.DATABASE_URL)
          ? "postgres"
          : "sqlite";
  const problems: string[] = [];
  if (store === "sqlite") return { store, problems };
  // Keys are not required here: a shared store that holds an operator key (moved by `bun run migrate` from a
  // first-run deployment) is enough, and only the store can say so (index.ts asks it once it is open).
  if (store === "redis" && !given(env.REDIS_URL)) problems.push("REDIS_URL: required when STORE=redis");
  if (store === "upstash" && !given(env.UPSTASH_REDIS_REST_URL))
    problems.push("UPSTASH_REDIS_REST_URL: required when STORE=upstash");
  if (store === "upstash" && !given(env.UPSTASH_REDIS_REST_TOKEN))
    problems.push("UPSTASH_REDIS_REST_TOKEN: required when STORE=upstash");
  if (store === "postgres" && !given(env.DATABASE_URL))
    problems.push("DATABASE_URL: required when STORE=postgres");
  return { store, problems };
}

function storeSettings(store: StoreSettings["store"], e: z.output<typeof envSchema>): StoreSettings {
  if (store === "redis") {
    const redisUrl = e.REDIS_URL ?? "";
    return { store, redisUrl, redisCluster: e.REDIS_CLUSTER || redisUrl.startsWith("redis-cluster://") };
  }
  if (store === "upstash") {
    return {
      store,
      upstashUrl: e.UPSTASH_REDIS_REST_URL ?? "",
      upstashToken: e.UPSTASH_REDIS_REST_TOKEN ?? "",
      upstashPollMs: e.UPSTASH_POLL_MS,
    };
  }
  if (store === "postgres") {
    return { store, databaseUrl: e.DATABASE_URL ?? "", databasePoolSize: e.DATABASE_POOL_SIZE };
  }
  return { store, sqlitePath: e.SQLITE_PATH ?? "./data/roomd.sqlite" };
}

/** The trusted proxy's three variables go together; a header nobody may assert would silently do nothing. */
function proxyRules(env: Env): string[] {
  const header = given(env.TRUSTED_PROXY_HEADER);
  const problems: string[] = [];
  if (header && !given(env.TRUSTED_PROXY_TEAM))
    problems.push(
      "TRUSTED_PROXY_TEAM: required with TRUSTED_PROXY_HEADER (the team the proxy's users belong to)",
    );
  if (header && !given(env.TRUSTED_PROXY_CIDRS))
    problems.push(
      "TRUSTED_PROXY_CIDRS: required with TRUSTED_PROXY_HEADER (the proxy's addresses; from any other peer the header is ignored)",
    );
  if (!header && (given(env.TRUSTED_PROXY_TEAM) || given(env.TRUSTED_PROXY_CIDRS)))
    problems.push("TRUSTED_PROXY_HEADER: required with TRUSTED_PROXY_TEAM and TRUSTED_PROXY_CIDRS");
  return problems;
}

function trustedProxy(e: z.output<typeof envSchema>): TrustedProxy | null {
  if (!e.TRUSTED_PROXY_HEADER || !e.TRUSTED_PROXY_TEAM) return null;
  return {
    header: e.TRUSTED_PROXY_HEADER.toLowerCase(),
    teamId: e.TRUSTED_PROXY_TEAM,
    cidrs: e.TRUSTED_PROXY_CIDRS,
  };
}

/** Parses the environment; throws ConfigError listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = envSchema.safeParse(env);
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(`${String(issue.path[0])}: ${issue.message}`);
  }
  const rules = storeRules(env);
  problems.push(...rules.problems);
  problems.push(...proxyRules(env));
  const e = parsed.data;
  if (e && problems.length === 0) {
    return {
      ...storeSettings(rules.store, e),
      port: e.PORT,
      apiKeys: e.API_KEYS,
      operatorKeys: e.OPERATOR_KEYS,
      operatorName: e.OPERATOR_NAME ?? DEFAULT_OPERATOR_NAME,
      rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
      rateLimitFailOpen: e.RATE_LIMIT_FAIL_OPEN,
      agentRateLimitPerMinute: e.AGENT_RATE_LIMIT_PER_MINUTE,
      roomSummary: e.ROOM_SUMMARY ?? "public",
      storeTimeoutMs: e.STORE_TIMEOUT_MS,
      roomsPerTeam: e.ROOMS_PER_TEAM,
      eventRetentionDays: e.EVENT_RETENTION_DAYS,
      eventRetentionMax: e.EVENT_RETENTION_MAX,
      roomTtlDays: e.ROOM_TTL_DAYS,
      ...(e.ARCHIVE_DIR ? { archiveDir: e.ARCHIVE_DIR } : {}),
      keysPerTeam: e.KEYS_PER_TEAM,
      invitesPerRoom: e.INVITES_PER_ROOM,
      host: e.HOST,
      allowedOrigins: e.ALLOWED_ORIGINS,
      summaryRateLimitPerMinute: e.SUMMARY_RATE_LIMIT_PER_MINUTE,
      streamsPerTeam: e.STREAMS_PER_TEAM,
      streamsPerProcess: e.STREAMS_PER_PROCESS,
      streamsPerInvite: e.STREAMS_PER_INVITE,
      streamsPerAgent: e.STREAMS_PER_AGENT,
      cookieSecure: e.COOKIE_SECURE,
      conformanceFixtures: e.CONFORMANCE_FIXTURES,
      oauth: e.OAUTH,
      ...(e.OAUTH_ISSUER ? { oauthIssuer: e.OAUTH_ISSUER } : {}),
      ...(e.WEBHOOK_SIGNING_KEY ? { webhookSigningKey: e.WEBHOOK_SIGNING_KEY } : {}),
      webhookAllowHttp: e.WEBHOOK_ALLOW_HTTP,
      webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
      webhooksPerRoom: e.WEBHOOKS_PER_ROOM,
      trustedProxy: trustedProxy(e),
      importMaxBytes: e.IMPORT_MAX_BYTES,
      logLevel: e.LOG_LEVEL ?? "info",
      ...(e.METRICS_TOKEN ? { metricsToken: e.METRICS_TOKEN } : {}),
      tracing: tracingSettings(e),
    };
  }
  throw new ConfigError(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
}
