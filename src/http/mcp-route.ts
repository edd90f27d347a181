/**
 * POST /mcp: size-capped, authenticated, rate-limited, stateless MCP in both eras — the 2025 revisions (initialize
 * handshake, the SDK's transport, src/mcp/legacy.ts) and 2026-07-28 (per-request metadata, src/mcp/modern/),
 * told apart per request (src/mcp/eras.ts). GET and DELETE are refused: there are no sessions. Each message is one
 * unit: tool calls spend the team's "tools" budget, and with AGENT_RATE_LIMIT_PER_MINUTE their agent's own window
 * inside it (over either, the tool answers "Rate limit exceeded", saying whose); every other
 * method spends the higher "meta" ceiling (over it, HTTP 429). Batches are capped and refused where the protocol
 * revision has none (readBody). Profiles, the X-Roomd-Room / X-Roomd-Agent headers, bound keys, idempotency and
 * rate limits are the same in both eras.
 */
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Bucket } from "../access/gate.ts";
import type { LiveRooms } from "../live/hub.ts";
import type { Logger } from "../log.ts";
import type { CallContext, ToolOutcome } from "../mcp/call-path.ts";
import type { Catalog } from "../mcp/catalog.ts";
import { serving } from "../mcp/conformance/index.ts";
import { eraOf } from "../mcp/eras.ts";
import { handleLegacy } from "../mcp/legacy.ts";
import { deliverAnswers, onlyResponses } from "../mcp/legacy-asks.ts";
import { isStreamedSubscribe, streamedSubscribe } from "../mcp/legacy-subscribe.ts";
import { handleModern } from "../mcp/modern/handle.ts";
import type { McpTracer, OnOperation } from "../mcp/operations.ts";
import type { McpRequestDeps } from "../mcp/request-deps.ts";
import { legacyParamsRefusal, readBody, rpcError } from "../mcp/server.ts";
import { ROOM_FEATURES } from "../mcp/surface/methods.ts";
import { PROFILES, type Profile } from "../mcp/tool.ts";
import { errors } from "../protocol/errors.ts";
import { AGENT_ID } from "../protocol/ids.ts";
import type { Principal } from "../protocol/principal.ts";
import type { RateDecision } from "../store/access-types.ts";
import type { RoomStore } from "../store/types.ts";
import { type AuthDeps, type Checked, checkBearer, rateHeaders } from "./auth.ts";
import type { RequestIdEnv } from "./request-id.ts";
import { type StreamSlots, streamOwnerOf, untimed } from "./stream-slots.ts";

/** Largest accepted JSON-RPC body: a 64 KB payload plus its envelope, with room to spare. */
export const MAX_BODY_BYTES = 512 * 1024;

export interface McpRouteDeps extends AuthDeps {
  store: RoomStore;
  live: LiveRooms;
  catalog: Catalog;
  logger: Logger;
  /** Each tools/call's tool, outcome and seconds (the metrics). */
  onToolCall?: (tool: string, outcome: ToolOutcome, seconds: number) => void;
  /** Each MCP request or notification, with how it ended and its seconds (the metrics). */
  onOperation?: OnOperation;
  /** Spans per MCP operation, when tracing is on. */
  mcpTracer?: McpTracer;
  /** Subscription streams count with every other stream of the process and team. */
  streams: StreamSlots;
  /** CONFORMANCE_FIXTURES: the `conformance` profile exists (the official suite's fixtures). */
  conformanceFixtures?: boolean;
  /** Keep-alive interval of subscription streams (15 s; tests shorten it). */
  keepAliveMs?: number;
}

/**
 * The room and agent a request names in headers (X-Roomd-Room, X-Roomd-Agent): used by tool calls that leave
 * them out. An empty header counts as absent; a malformed one is refused by the argument's own validation.
 */
export function callContext(headers: Headers): CallContext {
  const roomId = headers.get("x-roomd-room")?.trim();
  const agentId = headers.get("x-roomd-agent")?.trim();
  return { ...(roomId ? { roomId } : {}), ...(agentId ? { agentId } : {}) };
}

/**
 * One unit per message: every message but the tool call on the meta budget (a refusal there refuses the whole
 * request with 429), then the tool call, if any, on the tools budget — last, so the answer's RateLimit headers are
 * the tools budget's whenever a tool call was sent. A single message is one admission, as on every route.
 */
async function admitMessages(
  c: Context,
  deps: McpRouteDeps,
  parsed: { body: unknown; messages: number; toolCalls: number },
): Promise<Checked & { bucket: Bucket; agent?: string }> {
  const buckets: Bucket[] = Array.from({ length: parsed.messages - parsed.toolCalls }, () => "meta");
  if (parsed.toolCalls > 0) buckets.push("tools");
  let admitted: Checked | undefined;
  let bucket: Bucket = "meta";
  const agent = parsed.toolCalls > 0 ? callingAgent(deps.catalog, parsed.body, c.req.raw.headers) : undefined;
  for (const next of buckets) {
    bucket = next;
    admitted = await checkBearer(c, deps, bucket, next === "tools" ? agent : undefined);
    if ("failure" in admitted) break;
  }
  return { ...(admitted as Checked), bucket, ...(agent !== undefined ? { agent } : {}) };
}

/**
 * The agent a tool call acts as, for its own rate window (AGENT_RATE_LIMIT_PER_MINUTE): the tool's acting argument
 * (tool.ts `acting`, the first), else the X-Roomd-Agent header — what the call path would use; undefined when
 * neither names a well-formed agent id (the call is then charged to the team alone, and its own checks refuse it). A
 * bound key's agent replaces it in the store, whatever the call names.
 */
function callingAgent(catalog: Catalog, body: unknown, headers: Headers): string | undefined {
  const call = (Array.isArray(body) ? body : [body]).find(
    (m) => typeof m === "object" && m !== null && (m as { method?: unknown }).method === "tools/call",
  ) as { params?: { name?: unknown; arguments?: unknown } } | undefined;
  const name = call?.params?.name;
  const tool = typeof name === "string" ? catalog.get(name) : undefined;
  const field = tool?.acting[0];
  const args = call?.params?.arguments;
  const given =
    field !== undefined && typeof args === "object" && args !== null
      ? (args as Record<string, unknown>)[field]
      : undefined;
  const agent = typeof given === "string" ? given : callContext(headers).agentId;
  return agent !== undefined && AGENT_ID.test(agent) ? agent : undefined;
}

/** The tool error of a spent window, saying whose it is when the agent's window was charged too. */
function spentRefusal(rate: RateDecision | undefined, agentId: string | undefined) {
  const spent = rate?.spent;
  const whose = spent ? { whose: spent, ...(agentId !== undefined ? { agentId } : {}) } : undefined;
  return errors.rateLimited(rate?.resetMs ?? 60_000, whose);
}

export function mcpRoutes(deps: McpRouteDeps): Hono<RequestIdEnv> {
  const app = new Hono<RequestIdEnv>();
  app.post(
    "/mcp",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => rpcError(413, -32600, `Request body too large (max ${MAX_BODY_BYTES} bytes)`),
    }),
    async (c) => {
      const asked = c.req.query("profile") ?? "full";
      const fixtures = asked === "conformance" && deps.conformanceFixtures === true;
      if (!fixtures && !PROFILES.includes(asked as Profile)) {
        return rpcError(400, -32600, `Unknown profile: use ?profile=${PROFILES.join(" | ")}`);
      }
      const parsed = await readBody(c.req.raw);
      if ("error" in parsed) return parsed.error;
      const era = eraOf(c.req.header("mcp-protocol-version") ?? null, parsed.body);
      const refusal = era === "legacy" ? legacyParamsRefusal(parsed.body) : null;
      if (refusal) return refusal;
      // A tool call over the tools budget is answered inside the batch as a tool error: with several in one
      // batch, which of them to refuse would be arbitrary, so a batch carries at most one.
      if (parsed.toolCalls > 1)
        return rpcError(400, -32600, "Invalid Request: send one tools/call per request");
      const admitted = await admitMessages(c, deps, parsed);
      let principal: Principal;
      if ("failure" in admitted) {
        // Over the tools budget, inside MCP the refusal is a tool error the model can read.
        if (admitted.bucket !== "tools" || !admitted.limited) return admitted.failure;
        principal = admitted.limited;
      } else {
        principal = admitted.principal;
      }
      const served = fixtures
        ? serving()
        : { catalog: deps.catalog, profile: asked as Profile, features: ROOM_FEATURES };
      const mcp: McpRequestDeps = {
        catalog: served.catalog,
        profile: served.profile,
        features: served.features,
        context: callContext(c.req.raw.headers),
        store: deps.store,
        live: deps.live,
        principal,
        logger: deps.logger,
        requestId: c.get("requestId"),
        onToolCall: deps.onToolCall,
        ...(deps.onOperation ? { onOperation: deps.onOperation } : {}),
        ...(deps.mcpTracer ? { tracer: deps.mcpTracer } : {}),
        streams: { take: () => deps.streams.take(streamOwnerOf(principal)) },
        ...(deps.keepAliveMs !== undefined ? { keepAliveMs: deps.keepAliveMs } : {}),
        ...("failure" in admitted
          ? { rateLimited: spentRefusal(admitted.rate, principal.boundAgentId ?? admitted.agent).message }
          : {}),
      };
      let response: Response;
      if (era === "modern") response = await handleModern(c.req.raw, parsed.body, mcp);
      else if (onlyResponses(parsed.body)) {
        // A client answering what roomd asked it on a tool call's stream (legacy-asks.ts).
        deliverAnswers(parsed.body, principal);
        response = new Response(null, { status: 202 });
      } else if (isStreamedSubscribe(c.req.raw, parsed.body)) {
        response = await streamedSubscribe(c.req.raw, parsed.body, mcp);
      } else {
        response = await handleLegacy(c.req.raw, parsed.body, mcp, {
          stream: "streams" in served && served.streams(c.req.raw, parsed.body),
          logging: fixtures,
        });
      }
      // Streams (subscriptions, tool calls that send notifications) are long-lived by design.
      if (response.headers.get("content-type")?.startsWith("text/event-stream")) untimed(c);
      for (const [name, value] of Object.entries(rateHeaders(admitted.rate)))
        response.headers.set(name, value);
      return response;
    },
  );
  const stateless = () =>
    Response.json(
      {
        jsonrpc: "2.0",
        error: { code: -32000, message: "Method not allowed: roomd is stateless; POST JSON-RPC to /mcp" },
        id: null,
      },
      { status: 405, headers: { Allow: "POST" } },
    );
  app.get("/mcp", stateless);
  app.delete("/mcp", stateless);
  return app;
}
