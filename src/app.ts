/**
 * createApp(deps): the Hono application. Middleware order: request id → Host check (a malformed Host is a 400) →
 * Origin check (every route but the probes /health, /livez, /readyz) → body cap (64 KB; /mcp brings its own
 * 512 KB, the room import IMPORT_MAX_BYTES) → routes (each route group brings its own authentication and rate
 * limiting) → one onError that logs with the request id and answers generically.
 */
import { Hono } from "hono";
import pkg from "../package.json" with { type: "json" };
import { createGate, type Gate } from "./access/gate.ts";
import { createKeyRing } from "./access/keyring.ts";
import { createSessions, type Sessions } from "./access/sessions.ts";
import type { Config } from "./config.ts";
import { adminRoutes } from "./http/admin/index.ts";
import { createFailureLimiter, type FailureLimiter } from "./http/auth-failures.ts";
import { MAX_ROUTE_BODY_BYTES, routeBodyLimit } from "./http/body-limit.ts";
import { roomErrorResponse } from "./http/errors.ts";
import { healthRoutes, PROBE_ROUTES } from "./http/health.ts";
import { hostCheck, unroutable } from "./http/host-check.ts";
import { mcpRoutes } from "./http/mcp-route.ts";
import { countRateLimited, countStoreRequests, httpMetrics } from "./http/metrics/instrument.ts";
import { createRoomdMetrics, type RoomdMetrics } from "./http/metrics/roomd-metrics.ts";
import { metricsRoutes } from "./http/metrics/route.ts";
import { oauthApiRoutes } from "./http/oauth/metadata.ts";
import { OAUTH_OPEN_ROUTES, oauthSettings } from "./http/oauth/urls.ts";
import { originCheck } from "./http/origin.ts";
import { createPublicGate } from "./http/public-gate.ts";
import { type RequestIdEnv, requestId } from "./http/request-id.ts";
import { roomPageRoutes } from "./http/room-page.ts";
import { streamRoutes } from "./http/room-stream.ts";
import { roomWatchRoutes } from "./http/room-watch.ts";
import { roomsRoutes } from "./http/rooms/index.ts";
import { createStreamSlots, type StreamSlots } from "./http/stream-slots.ts";
import { createLiveRooms, type LiveRooms } from "./live/hub.ts";
import { describeError, type Logger } from "./log.ts";
import { CATALOG, type Catalog } from "./mcp/catalog.ts";
import type { McpTracer } from "./mcp/operations.ts";
import { RoomError } from "./protocol/errors.ts";
import type { Clock } from "./protocol/time.ts";
import type { RoomStore } from "./store/types.ts";
import type { Tracing } from "./telemetry/tracing.ts";
import { webRoutes } from "./web/index.ts";
import { authorizeRoutes } from "./web/oauth-authorize.ts";

export interface AppDeps {
  store: RoomStore;
  gate: Gate;
  failures: FailureLimiter;
  logger: Logger;
  now: Clock;
  /** The tools served (tests may pass a catalog of their own). */
  catalog: Catalog;
  config: Pick<
    Config,
    | "roomSummary"
    | "roomsPerTeam"
    | "keysPerTeam"
    | "invitesPerRoom"
    | "host"
    | "allowedOrigins"
    | "summaryRateLimitPerMinute"
    | "streamsPerTeam"
    | "streamsPerProcess"
    | "streamsPerInvite"
    | "streamsPerAgent"
    | "webhookSigningKey"
    | "webhookAllowHttp"
    | "webhookAllowPrivate"
    | "webhooksPerRoom"
    | "importMaxBytes"
    | "cookieSecure"
    | "storeTimeoutMs"
    | "conformanceFixtures"
    | "oauth"
    | "oauthIssuer"
  >;
  /** The process's live rooms: streams and waiters share one hub per room. */
  live: LiveRooms;
  /** The process's count of open streams, every kind together (STREAMS_PER_PROCESS, _TEAM, _INVITE, _AGENT). */
  streams: StreamSlots;
  /** Teams configured through the environment (provisioning them is a conflict). */
  staticTeams: ReadonlySet<string>;
  /** This process's metrics (GET /metrics); the store and gate above already feed it. */
  metrics: RoomdMetrics;
  /** METRICS_TOKEN: a bearer that may read GET /metrics. */
  metricsToken?: string;
  /** People signed in by an authenticating proxy (TRUSTED_PROXY_*), or null. */
  proxy?: Config["trustedProxy"];
  /** People's web sessions (docs/web.md): a session cookie authenticates every route but /mcp. */
  sessions: Sessions;
  /** Spans per MCP request and notification, when tracing is on (telemetry/). */
  mcpTracer?: McpTracer;
}

export function createApp(deps: AppDeps): Hono<RequestIdEnv> {
  const app = new Hono<RequestIdEnv>();
  app.use(httpMetrics(deps.metrics));
  app.use(requestId());
  // A Host that is not a host gives a URL nothing can parse: refused before anything reads it.
  app.use(hostCheck());
  // Every route a browser could reach, present and future, unless listed as open.
  app.use(
    originCheck({
      host: deps.config.host,
      allowedOrigins: deps.config.allowedOrigins,
      open: deps.config.oauth ? [...PROBE_ROUTES, ...OAUTH_OPEN_ROUTES] : PROBE_ROUTES,
    }),
  );
  // The room import brings its own cap (IMPORT_MAX_BYTES), enforced as its body streams in.
  app.use(
    routeBodyLimit({ maxSize: MAX_ROUTE_BODY_BYTES, except: ["/mcp", /^\/admin\/rooms\/[^/]+\/import$/] }),
  );
  app.route("/", healthRoutes(deps.store, { timeoutMs: deps.config.storeTimeoutMs }));
  // MCP is for agents and their keys: no cookie authenticates it.
  app.route(
    "/",
    mcpRoutes({
      ...deps,
      sessions: null,
      onToolCall: deps.metrics.toolCall,
      onOperation: deps.metrics.mcpOperation,
      conformanceFixtures: deps.config.conformanceFixtures === true,
      oauth: deps.config.oauth ? oauthSettings(deps.config) : null,
    }),
  );
  app.route("/", metricsRoutes(deps));
  // Pages first: GET /room/:roomId answers browsers here and passes every other client on to the JSON summary.
  // One per-address budget for everything public about a room: page, JSON summary, view and stream.
  const publicGate = createPublicGate({
    limit: deps.config.summaryRateLimitPerMinute,
    now: deps.now,
    metrics: deps.metrics,
  });
  // OAuth's public steps (registration, the authorization endpoint) share that per-address budget.
  if (deps.config.oauth) {
    const settings = oauthSettings(deps.config);
    app.route("/", oauthApiRoutes({ ...deps, settings, publicGate }));
    app.route("/", authorizeRoutes({ ...deps, settings, publicGate }));
  }
  app.route("/", webRoutes({ ...deps, publicGate }));
  app.route("/", roomPageRoutes({ ...deps, visibility: deps.config.roomSummary, publicGate }));
  app.route("/", streamRoutes(deps));
  app.route("/", roomWatchRoutes({ ...deps, publicGate }));
  app.route("/admin", adminRoutes({ ...deps, limits: deps.config }));
  app.route("/rooms", roomsRoutes(deps));
  app.notFound((c) => unroutable(c) ?? c.json({ error: "Not found" }, 404));
  // The one place errors become HTTP answers: RoomErrors by kind, anything else a logged, generic 500.
  app.onError((error, c) => {
    if (error instanceof RoomError) return roomErrorResponse(c, error);
    const id = c.get("requestId");
    deps.logger.log("error", "request failed", { requestId: id, path: c.req.path, ...describeError(error) });
    return c.json({ error: `Internal error (request ${id})` }, 500);
  });
  return app;
}

/** The dependencies of createApp from configuration: the one wiring shared by the entry point and tests. */
export function appDeps(
  config: Config,
  store: RoomStore,
  logger: Logger,
  now: Clock,
  extraOperatorKeys: Config["operatorKeys"] = [],
  tracing?: Pick<Tracing, "mcp" | "store">,
): AppDeps {
  const operatorKeys = [...config.operatorKeys, ...extraOperatorKeys];
  const keys = createKeyRing({ operatorKeys, apiKeys: config.apiKeys });
  // The hub watches through the counted store, and the metrics read how many rooms it watches.
  let live: LiveRooms | undefined;
  const metrics = createRoomdMetrics({
    driver: store.driver,
    version: pkg.version,
    liveRooms: () => live?.rooms ?? 0,
  });
  // With tracing on, each operation asked of the store inside a traced request is a span (telemetry/store-spans.ts).
  const counted = countStoreRequests(tracing ? tracing.store(store) : store, metrics);
  live = createLiveRooms(counted);
  const gate = countRateLimited(createGate({ keys, store: counted, config }), metrics);
  return {
    store: counted,
    gate,
    sessions: createSessions({ store: counted, gate, now }),
    failures: createFailureLimiter(),
    logger,
    now,
    catalog: CATALOG,
    live,
    streams: createStreamSlots(config, metrics.streams),
    metrics,
    ...(config.metricsToken ? { metricsToken: config.metricsToken } : {}),
    config,
    staticTeams: new Set([
      ...[...operatorKeys, ...config.apiKeys].map((k) => k.teamId),
      ...(config.trustedProxy ? [config.trustedProxy.teamId] : []),
    ]),
    proxy: config.trustedProxy,
    ...(tracing ? { mcpTracer: tracing.mcp } : {}),
  };
}
