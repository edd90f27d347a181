/**
 * `bun bench/sdk2-server.ts` (environment as roomd's; `SDK2_STYLE=server|mcpserver`, default `server`): roomd with
 * POST /mcp answered by `@modelcontextprotocol/server` 2.x (bench/sdk2-mcp.ts) — a benchmark variant, never
 * shipped. Everything before the MCP layer is roomd's: the same configuration, store, request id, metrics, Origin
 * check, body limit, body parsed once, bearer and rate charge (`checkBearer`, the tools or meta budget), the
 * X-Roomd-Room / X-Roomd-Agent context, and the same call path, log line and metrics per tool call. Every other
 * route is roomd's app as it is. bench/cpu.ts starts it with `--servers sdk2,sdk2-mcpserver`.
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { appDeps, createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { checkBearer } from "../src/http/auth.ts";
import { callContext, MAX_BODY_BYTES } from "../src/http/mcp-route.ts";
import { httpMetrics } from "../src/http/metrics/instrument.ts";
import { originCheck } from "../src/http/origin.ts";
import { type RequestIdEnv, requestId } from "../src/http/request-id.ts";
import { createLogger } from "../src/log.ts";
import { readBody, rpcError } from "../src/mcp/server.ts";
import type { ToolRunDeps } from "../src/mcp/tool-run.ts";
import { errors } from "../src/protocol/errors.ts";
import type { Principal } from "../src/protocol/principal.ts";
import { systemClock } from "../src/protocol/time.ts";
import { openStore } from "../src/store/index.ts";
import { SDK2_STYLES, type Sdk2Request, type Sdk2Style, sdk2Handler } from "./sdk2-mcp.ts";

const style = (process.env.SDK2_STYLE ?? "server") as Sdk2Style;
if (!SDK2_STYLES.includes(style)) throw new Error(`SDK2_STYLE: one of ${SDK2_STYLES.join(", ")}`);

const config = loadConfig(process.env);
const logger = createLogger(config.logLevel);
const store = await openStore(config);
const deps = appDeps(config, store, logger, systemClock);
const roomd = createApp(deps);
const mcp = sdk2Handler(style);

const app = new Hono<RequestIdEnv>();
app.use("/mcp", httpMetrics(deps.metrics));
app.use("/mcp", requestId());
app.use("/mcp", originCheck({ host: config.host, allowedOrigins: config.allowedOrigins, open: [] }));
app.post(
  "/mcp",
  bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => rpcError(413, -32600, `Request body too large (max ${MAX_BODY_BYTES} bytes)`),
  }),
  async (c) => {
    const parsed = await readBody(c.req.raw);
    if ("error" in parsed) return parsed.error;
    if (parsed.toolCalls > 1)
      return rpcError(400, -32600, "Invalid Request: send one tools/call per request");
    const bucket = parsed.toolCalls === 1 ? "tools" : "meta";
    const admitted = await checkBearer(c, { ...deps, sessions: null }, bucket);
    let principal: Principal;
    if ("failure" in admitted) {
      if (bucket !== "tools" || !admitted.limited) return admitted.failure;
      principal = admitted.limited;
    } else {
      principal = admitted.principal;
    }
    const run: ToolRunDeps = {
      catalog: deps.catalog,
      store: deps.store,
      live: deps.live,
      principal,
      logger: deps.logger,
      requestId: c.get("requestId"),
      context: callContext(c.req.raw.headers),
      onToolCall: deps.metrics.toolCall,
      ...("failure" in admitted
        ? { rateLimited: errors.rateLimited(admitted.rate?.resetMs ?? 60_000).message }
        : {}),
    };
    const roomdRequest: Sdk2Request = { run, catalog: deps.catalog };
    return mcp.fetch(c.req.raw, {
      authInfo: { token: "", clientId: principal.teamId, scopes: [], extra: { roomd: roomdRequest } },
      parsedBody: parsed.body,
    });
  },
);
// Every other route (health, pages, admin, rooms) is roomd's own.
app.all("*", (c) => roomd.fetch(c.req.raw, c.env));

const server = Bun.serve({ hostname: config.host, port: config.port, fetch: app.fetch, idleTimeout: 60 });
logger.log("info", "roomd (SDK 2.x MCP variant, benchmark only) listening", { port: server.port, style });
const shutdown = async () => {
  deps.live.close();
  await server.stop();
  await store.close();
  process.exit(0);
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
