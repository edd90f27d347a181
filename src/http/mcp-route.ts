/** POST /mcp: authenticated, size-capped, stateless MCP. GET and DELETE are refused: there are no sessions. */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { KeyRing } from "../access/keyring.ts";
import type { Logger } from "../log.ts";
import { handleMcp } from "../mcp/server.ts";
import type { RoomStore } from "../store/types.ts";
import { type AuthEnv, auth } from "./auth.ts";

/** Largest accepted JSON-RPC body: a 64 KB payload plus its envelope, with room to spare. */
export const MAX_BODY_BYTES = 512 * 1024;

export interface McpRouteDeps {
  store: RoomStore;
  keys: KeyRing;
  logger: Logger;
  onToolCall?: (name: string, isError: boolean) => void;
}

const jsonRpcError = (code: number, message: string) => ({
  jsonrpc: "2.0",
  error: { code, message },
  id: null,
});

export function mcpRoutes(deps: McpRouteDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.use("/mcp", auth(deps.keys));
  app.post(
    "/mcp",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) =>
        c.json(jsonRpcError(-32600, `Request body too large (max ${MAX_BODY_BYTES} bytes)`), 413),
    }),
    (c) =>
      handleMcp(c.req.raw, {
        ctx: { store: deps.store, principal: c.get("principal") },
        logger: deps.logger,
        requestId: c.get("requestId"),
        onToolCall: deps.onToolCall,
      }),
  );
  const stateless = () =>
    Response.json(jsonRpcError(-32000, "Method not allowed: roomd is stateless; POST JSON-RPC to /mcp"), {
      status: 405,
      headers: { Allow: "POST" },
    });
  app.get("/mcp", stateless);
  app.delete("/mcp", stateless);
  return app;
}
