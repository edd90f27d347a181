/**
 * POST /mcp: size-capped, authenticated, rate-limited, stateless MCP. GET and DELETE are refused: there are no
 * sessions. Tool calls spend the team's "tools" budget (over it, the tool answers "Rate limit exceeded");
 * initialize, tools/list and other cheap methods spend the higher "meta" ceiling (over it, HTTP 429).
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { LiveRooms } from "../live/hub.ts";
import type { Logger } from "../log.ts";
import type { CallContext, ToolOutcome } from "../mcp/call-path.ts";
import type { Catalog } from "../mcp/catalog.ts";
import type { McpTracer, OnOperation } from "../mcp/operations.ts";
import { handleMcp, readBody, rpcError } from "../mcp/server.ts";
import { PROFILES, type Profile } from "../mcp/tool.ts";
import { errors } from "../protocol/errors.ts";
import type { Principal } from "../protocol/principal.ts";
import type { RoomStore } from "../store/types.ts";
import { type AuthDeps, checkBearer, rateHeaders } from "./auth.ts";
import type { RequestIdEnv } from "./request-id.ts";

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
}

/**
 * The room and agent a request names in headers (X-Roomd-Room, X-Roomd-Agent): used by tool calls that leave
 * them out. An empty header counts as absent; a malformed one is refused by the argument's own validation.
 */
function callContext(headers: Headers): CallContext {
  const roomId = headers.get("x-roomd-room")?.trim();
  const agentId = headers.get("x-roomd-agent")?.trim();
  return { ...(roomId ? { roomId } : {}), ...(agentId ? { agentId } : {}) };
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
      const profile = (c.req.query("profile") ?? "full") as Profile;
      if (!PROFILES.includes(profile)) {
        return rpcError(400, -32600, `Unknown profile: use ?profile=${PROFILES.join(" | ")}`);
      }
      const parsed = await readBody(c.req.raw);
      if ("error" in parsed) return parsed.error;
      // One unit per tool call: a batch carrying several would be charged as one, so it is refused.
      if (parsed.toolCalls > 1)
        return rpcError(400, -32600, "Invalid Request: send one tools/call per request");
      const bucket = parsed.toolCalls === 1 ? "tools" : "meta";
      const admitted = await checkBearer(c, deps, bucket);
      let principal: Principal;
      if ("failure" in admitted) {
        // Over the tools budget, inside MCP the refusal is a tool error the model can read.
        if (bucket !== "tools" || !admitted.limited) return admitted.failure;
        principal = admitted.limited;
      } else {
        principal = admitted.principal;
      }
      const response = await handleMcp(c.req.raw, parsed.body, {
        catalog: deps.catalog,
        profile,
        context: callContext(c.req.raw.headers),
        store: deps.store,
        live: deps.live,
        principal,
        logger: deps.logger,
        requestId: c.get("requestId"),
        onToolCall: deps.onToolCall,
        ...(deps.onOperation ? { onOperation: deps.onOperation } : {}),
        ...(deps.mcpTracer ? { tracer: deps.mcpTracer } : {}),
        ...("failure" in admitted
          ? { rateLimited: errors.rateLimited(admitted.rate?.resetMs ?? 60_000).message }
          : {}),
      });
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
