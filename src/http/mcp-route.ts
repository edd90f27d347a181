/**
 * POST /mcp: size-capped, authenticated, rate-limited, stateless MCP. GET and DELETE are refused: there are no
 * sessions. Each message is one unit: tool calls spend the team's "tools" budget (over it, the tool answers
 * "Rate limit exceeded"); initialize, tools/list and other cheap methods spend the higher "meta" ceiling (over it,
 * HTTP 429). Batches are capped and refused where the protocol revision has none (server.ts readBody).
 */
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Bucket } from "../access/gate.ts";
import type { LiveRooms } from "../live/hub.ts";
import type { Logger } from "../log.ts";
import type { CallContext, ToolOutcome } from "../mcp/call-path.ts";
import type { Catalog } from "../mcp/catalog.ts";
import { handleMcp, readBody, rpcError } from "../mcp/server.ts";
import { PROFILES, type Profile } from "../mcp/tool.ts";
import { errors } from "../protocol/errors.ts";
import type { Principal } from "../protocol/principal.ts";
import type { RoomStore } from "../store/types.ts";
import { type AuthDeps, type Checked, checkBearer, rateHeaders } from "./auth.ts";
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

/**
 * One unit per message: every message but the tool call on the meta budget (a refusal there refuses the whole
 * request with 429), then the tool call, if any, on the tools budget — last, so the answer's RateLimit headers are
 * the tools budget's whenever a tool call was sent. A single message is one admission, as on every route.
 */
async function admitMessages(
  c: Context,
  deps: McpRouteDeps,
  parsed: { messages: number; toolCalls: number },
): Promise<Checked & { bucket: Bucket }> {
  const buckets: Bucket[] = Array.from({ length: parsed.messages - parsed.toolCalls }, () => "meta");
  if (parsed.toolCalls > 0) buckets.push("tools");
  let admitted: Checked | undefined;
  let bucket: Bucket = "meta";
  for (const next of buckets) {
    bucket = next;
    admitted = await checkBearer(c, deps, bucket);
    if ("failure" in admitted) break;
  }
  return { ...(admitted as Checked), bucket };
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
