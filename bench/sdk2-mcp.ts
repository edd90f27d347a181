/**
 * roomd's tools served by `@modelcontextprotocol/server` 2.x instead of roomd's own MCP layer — a benchmark
 * variant only (bench/sdk2-server.ts), never shipped: it exists to measure the SDK decision side by side
 * (docs/architecture.md). One `createMcpHandler(factory)` answers both eras: 2026-07-28 requests through the SDK's
 * per-request server and transport, 2025 requests through its stateless fallback (a fresh server and streamable
 * HTTP transport per request). Each request's server is built by the factory and calls roomd's one call path
 * (src/mcp/tool-run.ts → call-path.ts), so only the MCP layer differs from roomd. Two factories:
 *
 * - `server`: the low-level `Server` with a tools/list handler answering the catalog's listing (converted once per
 *   process) and a tools/call handler calling the call path — the least per-request work the SDK allows, and
 *   the shape roomd would adopt;
 * - `mcpserver`: the SDK's documented idiom, a fresh `McpServer` per request with every tool of the profile
 *   registered through `registerTool` (zod schemas given as they are; the SDK converts them when it lists them
 *   and validates input and structured output itself), each tool's callback calling the call path.
 */
import {
  type CallToolResult,
  createMcpHandler,
  type McpHttpHandler,
  type McpRequestContext,
  McpServer,
  Server,
} from "@modelcontextprotocol/server";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv";
import type { Catalog } from "../src/mcp/catalog.ts";
import { CAPABILITIES, INSTRUCTIONS } from "../src/mcp/request-deps.ts";
import { SERVER_INFO } from "../src/mcp/server-info.ts";
import { publishedInput } from "../src/mcp/tool.ts";
import { runTool, type ToolRunDeps } from "../src/mcp/tool-run.ts";

export type Sdk2Style = "server" | "mcpserver";
export const SDK2_STYLES: readonly Sdk2Style[] = ["server", "mcpserver"];

/** What one request's server needs from the HTTP layer, handed through the SDK's pass-through `authInfo`. */
export interface Sdk2Request {
  run: ToolRunDeps;
  catalog: Catalog;
}

/** The roomd request behind a context's `authInfo` (set by bench/sdk2-server.ts on every request). */
function requestOf(ctx: McpRequestContext): Sdk2Request {
  const request = ctx.authInfo?.extra?.roomd as Sdk2Request | undefined;
  if (!request) throw new Error("sdk2: the request reached the handler without roomd's authInfo");
  return request;
}

/** One Ajv instance per process: the SDK's Server makes a new one per instance unless given one. */
const VALIDATOR = new AjvJsonSchemaValidator();

/** The 2.x server's capabilities: tools only (the bench drives no resources, prompts or completions). */
const TOOLS_ONLY = { tools: CAPABILITIES.tools };

/** The low-level server: the catalog's listing as built once, and each call through roomd's call path. */
function lowLevel(ctx: McpRequestContext): Server {
  const { run, catalog } = requestOf(ctx);
  const server = new Server(SERVER_INFO, {
    capabilities: TOOLS_ONLY,
    instructions: INSTRUCTIONS.full,
    jsonSchemaValidator: VALIDATOR,
  });
  server.setRequestHandler("tools/list", () => ({ tools: catalog.listing("full") as never }));
  server.setRequestHandler("tools/call", async (request, extra) => {
    const { name, arguments: args } = request.params;
    const { result } = await runTool(run, name, args, extra.mcpReq.signal);
    return result as CallToolResult;
  });
  return server;
}

/** The SDK's idiom: a McpServer with every tool of the profile registered on it. */
function idiomatic(ctx: McpRequestContext): McpServer {
  const { run, catalog } = requestOf(ctx);
  const server = new McpServer(SERVER_INFO, { capabilities: TOOLS_ONLY, instructions: INSTRUCTIONS.full });
  for (const tool of catalog.tools) {
    if (!tool.profiles.includes("full")) continue;
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: publishedInput(tool),
        ...(tool.output ? { outputSchema: tool.output } : {}),
        annotations: {
          title: tool.title,
          readOnlyHint: tool.effect === "read",
          destructiveHint: tool.effect === "destructive",
          idempotentHint: tool.idempotent,
          openWorldHint: false,
        },
      },
      async (args: Record<string, unknown>, extra) => {
        const { result } = await runTool(run, tool.name, args, extra.mcpReq.signal);
        return result as CallToolResult;
      },
    );
  }
  return server;
}

/** The SDK 2.x handler of one style, serving both eras on one endpoint. */
export function sdk2Handler(style: Sdk2Style): McpHttpHandler {
  return createMcpHandler(style === "server" ? lowLevel : idiomatic, { legacy: "stateless" });
}
