/**
 * Stateless MCP over streamable HTTP: every POST gets a fresh low-level Server and web-standard transport.
 * Only closures over precomputed data are created per request; tool schemas were built at module load.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import pkg from "../../package.json" with { type: "json" };
import type { LiveRooms } from "../live/hub.ts";
import type { Logger } from "../log.ts";
import { describeError } from "../log.ts";
import type { JsonText } from "../protocol/json-text.ts";
import type { Principal } from "../protocol/principal.ts";
import type { RoomStore } from "../store/types.ts";
import { type CallContext, callTool, type ToolOutcome, toolError } from "./call-path.ts";
import type { Catalog } from "./catalog.ts";
import { type McpTracer, type OnOperation, observeOperations } from "./operations.ts";
import { invalidParams } from "./rpc-params.ts";
import { installGuards } from "./sdk-guards.ts";
import type { Profile } from "./tool.ts";

export const SERVER_INFO = { name: "roomd", version: pkg.version } as const;

/**
 * The SDK's Server builds a fresh Ajv instance unless given one, which cost about a fifth of every request's CPU
 * (measured with --cpu-prof). roomd never asks the client for input (elicitation, the validator's only use), so
 * one instance made at module load serves every per-request server.
 */
const VALIDATOR = new AjvJsonSchemaValidator();

// The SDK's JSON-RPC type guards settle common messages without zod (sdk-guards.ts).
installGuards();

/** What the server tells a client about its tools, per profile (MCP initialize `instructions`). */
const INSTRUCTIONS: Record<Profile, string> = {
  full: "roomd holds a room's shared state for coding agents: plan (tasks with dependencies), typed context, an event log with your own read cursor, presence, file claims, locks and shared variables. Start each session with get_my_summary; pick work with get_unblocked_tasks; take a task with claim_task (a lease your calls keep alive); claim the files you will edit with claim_files before editing them, and release_files when done; publish contracts with write_context and consuming_agents; consume events with get_unread_events once per turn, or wait_for_events when you are waiting for someone; heartbeat about every 60 s; leave_room when you stop.",
  compact:
    "roomd: shared plan, context, events and file claims for coding agents. roomId and agentId may be left out when the X-Roomd-Room / X-Roomd-Agent headers or your key give them. Start with summary; take work with claim; claim files with files before editing; update tasks with update; publish with context_write; between turns, wait for what comes next with wait.",
  agentroom:
    "AgentRoom: (1) room_state before writing; (2) room_claim each file you will create or edit; (3) on a conflict, pick another file; (4) write your claimed files; (5) room_read between subtasks; (6) room_broadcast when done, and room_release what you no longer need. The room and your agent come from the X-Roomd-Room / X-Roomd-Agent headers or your key.",
};

export interface McpRequestDeps {
  catalog: Catalog;
  /** Which tools tools/list shows (every tool stays callable). */
  profile: Profile;
  store: RoomStore;
  live: LiveRooms;
  principal: Principal;
  logger: Logger;
  requestId: string;
  /** The room and agent the request's headers name (call-path.ts CallContext). */
  context?: CallContext;
  /**
   * Called once per tools/call: the tool (a catalog name, or "unknown"), how it ended, and the seconds its work
   * took (from the start of the call path to the result).
   */
  onToolCall?: (tool: string, outcome: ToolOutcome, seconds: number) => void;
  /** The caller's budget is spent: tool calls answer this refusal without running. */
  rateLimited?: string;
  /** Called once per MCP request or notification (the mcp.server.operation.duration histogram). */
  onOperation?: OnOperation;
  /** Spans per MCP request or notification; absent while tracing is off (operations.ts). */
  tracer?: McpTracer;
}

/**
 * JSON when the client prefers it (or only accepts JSON), SSE framing when it prefers or only accepts
 * text/event-stream. The transport insists on both types being listed, so the header is completed after the
 * choice is made.
 */
export function negotiate(accept: string | null): { json: boolean; accept: string } {
  const key = accept ?? "";
  let known = negotiated.get(key);
  if (known === undefined) {
    known = weigh(accept);
    // Clients send a handful of Accept values; a client sending ever new ones only ever fills the cache.
    if (negotiated.size >= 64) negotiated.clear();
    negotiated.set(key, known);
  }
  return known;
}

const negotiated = new Map<string, { json: boolean; accept: string }>();

function weigh(accept: string | null): { json: boolean; accept: string } {
  const ranges = (accept ?? "").split(",").map((part) => {
    const [type = "", ...params] = part.trim().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return { type: type.trim().toLowerCase(), q: q ? Number(q.slice(2)) || 0 : 1 };
  });
  const weight = (type: string) =>
    Math.max(0, ...ranges.filter((r) => r.type === type || r.type === "*/*").map((r) => r.q));
  const json = weight("application/json");
  const sse = weight("text/event-stream");
  return { json: json >= sse, accept: "application/json, text/event-stream" };
}

export const rpcError = (status: number, code: number, message: string) =>
  Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });

export type ParsedBody = { body: unknown; toolCalls: number } | { error: Response };

/**
 * Parses the body once (the transport reuses it) and counts its tools/call messages, which the rate limiter
 * charges differently. Malformed JSON and an empty batch are answered here as JSON-RPC errors: the transport
 * would answer an empty batch with 202 and nothing.
 */
export async function readBody(request: Request): Promise<ParsedBody> {
  let body: unknown;
  try {
    body = JSON.parse(await request.text());
  } catch {
    return { error: rpcError(400, -32700, "Parse error: the body is not valid JSON") };
  }
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0) return { error: rpcError(400, -32600, "Invalid Request: empty batch") };
  const bad = invalidParams(messages);
  if (bad) {
    return {
      error: Response.json(
        { jsonrpc: "2.0", error: { code: -32602, message: bad.message }, id: bad.id },
        { status: 400 },
      ),
    };
  }
  const toolCalls = messages.filter(
    (m) => typeof m === "object" && m !== null && (m as { method?: unknown }).method === "tools/call",
  ).length;
  return { body, toolCalls };
}

/** Per process: the value the listing handler answers in place of the tools, replaced by their cached bytes. */
const LISTING_MARKER = `roomd-tools-listing-${crypto.randomUUID()}`;
const LISTING_QUOTED = JSON.stringify(LISTING_MARKER);
const encoder = new TextEncoder();

/** Each catalog's tools/list arrays, serialised once per profile (~116 KB for `full`: ~250 µs to stringify). */
const serialised = new WeakMap<Catalog, Map<Profile, Uint8Array>>();
function listingBytes(catalog: Catalog, profile: Profile): Uint8Array {
  let byProfile = serialised.get(catalog);
  if (!byProfile) {
    byProfile = new Map();
    serialised.set(catalog, byProfile);
  }
  let bytes = byProfile.get(profile);
  if (!bytes) {
    bytes = encoder.encode(JSON.stringify(catalog.listing(profile)));
    byProfile.set(profile, bytes);
  }
  return bytes;
}

/** True for a body that is one request (not a batch) of `method`. */
function lone(body: unknown, method: string): boolean {
  return (
    typeof body === "object" &&
    body !== null &&
    !Array.isArray(body) &&
    (body as { method?: unknown }).method === method
  );
}

/** Per process: what a tool call's handler answers in place of its text content and its structuredContent. */
const TEXT_VALUE = `roomd-result-text-${crypto.randomUUID()}`;
const STRUCTURED_VALUE = `roomd-result-structured-${crypto.randomUUID()}`;
const TEXT_MARKER = JSON.stringify(TEXT_VALUE);
const STRUCTURED_MARKER = JSON.stringify(STRUCTURED_VALUE);

/**
 * Answers at least this long are spliced into the response: below it, serialising the answer again inside the
 * response costs less than reading the response back (~5 µs).
 */
const SPLICE_FROM = 2048;

/**
 * The SDK's answer (JSON or SSE framing, whatever it decided) with each quoted marker replaced (its first
 * occurrence) by its piece: the transport still checks the request and frames the reply; only the serialising of
 * what the pieces hold is skipped.
 */
async function spliced(
  response: Response,
  piecesOf: () => [string, string | Uint8Array][],
): Promise<Response> {
  if (response.status !== 200 || !response.body) return response;
  // The pieces are known once the body is read (the handler has run by then).
  const text = await response.text();
  const pieces = piecesOf();
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  const found = pieces
    .map(([marker, piece]) => ({ at: text.indexOf(marker), length: marker.length, piece }))
    .filter((p) => p.at >= 0)
    .sort((a, b) => a.at - b.at);
  if (found.length === 0) return new Response(text, init);
  const parts: (string | Uint8Array)[] = [];
  let from = 0;
  for (const { at, length, piece } of found) {
    parts.push(text.slice(from, at), piece);
    from = at + length;
  }
  parts.push(text.slice(from));
  const strings = parts.every((part) => typeof part === "string");
  return new Response(strings ? parts.join("") : new Blob(parts), init);
}

/** What the SDK answers for a method no handler serves (as it would without the fallback handler). */
const methodNotFound = () => Object.assign(new Error("Method not found"), { code: ErrorCode.MethodNotFound });

/** The headers the transport reads: the negotiated Accept, the body's type and the protocol version. */
function transportHeaders(request: Request, accept: string): Headers {
  const headers = new Headers({ accept, "content-type": request.headers.get("content-type") ?? "" });
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null) headers.set("mcp-protocol-version", version);
  return headers;
}

/**
 * Answers one parsed JSON-RPC request (or batch) with a fresh server and transport. Tool methods are served by the
 * server's fallback handler rather than setRequestHandler: the SDK would parse every tools/call request twice more
 * and its result once with zod (after the transport's own JSON-RPC check and readBody's params check), about a
 * fifth of a small call's CPU. Initialize, ping and notifications stay the SDK's.
 */
export async function handleMcp(request: Request, body: unknown, deps: McpRequestDeps): Promise<Response> {
  const { json, accept } = negotiate(request.headers.get("accept"));
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS[deps.profile],
    jsonSchemaValidator: VALIDATOR,
  });
  const splice = lone(body, "tools/list");
  // Only a lone tools/call answered as JSON is read back and spliced: a batch's answers are left as the SDK made
  // them, and an SSE stream keeps sending its headers at once (a long wait_for_events is not held back).
  const loneCall = json && lone(body, "tools/call");
  // A tool call's answer, serialised once by the call path: spliced into the response for both of its places.
  let answer: { text: JsonText; structured: boolean } | undefined;
  const logCalls = deps.logger.enabled?.("info") ?? true;
  server.fallbackRequestHandler = async (req) => {
    if (req.method === "tools/list") {
      return { tools: (splice ? LISTING_MARKER : deps.catalog.listing(deps.profile)) as never };
    }
    if (req.method !== "tools/call") throw methodNotFound();
    // readBody checked the params: a name, and arguments that are an object when present.
    const params = req.params as { name: string; arguments?: Record<string, unknown> };
    const started = performance.now();
    const {
      result,
      outcome,
      unexpected,
      storeFailure,
      json: text,
    } = deps.rateLimited !== undefined
      ? { result: toolError(deps.rateLimited), outcome: "rate_limited" as const }
      : await callTool(deps.catalog, params.name, params.arguments, {
          store: deps.store,
          live: deps.live,
          principal: deps.principal,
          requestId: deps.requestId,
          signal: request.signal,
          ...(deps.context ? { context: deps.context } : {}),
        });
    const seconds = (performance.now() - started) / 1000;
    // Only catalog names reach the log and the metrics: any other name is the client's text (also when the call
    // was refused for the rate limit before the name was looked at).
    const tool = deps.catalog.get(params.name) ? params.name : "unknown";
    if (unexpected !== undefined) {
      deps.logger.log("error", "tool failed", {
        requestId: deps.requestId,
        tool,
        driver: deps.store.driver,
        ...describeError(unexpected),
      });
    }
    if (storeFailure !== undefined) {
      deps.logger.log("warn", "store unavailable", { requestId: deps.requestId, tool, cause: storeFailure });
    }
    if (logCalls) {
      deps.logger.log("info", "tool call", {
        requestId: deps.requestId,
        tool,
        outcome,
        ms: Math.round(seconds * 1e6) / 1000,
      });
    }
    deps.onToolCall?.(tool, outcome, seconds);
    if (text === undefined || !loneCall || text.raw.length < SPLICE_FROM) return result as never;
    const structured = result.structuredContent !== undefined;
    answer = { text, structured };
    return {
      content: [{ type: "text", text: TEXT_VALUE }],
      ...(structured ? { structuredContent: STRUCTURED_VALUE } : {}),
    } as never;
  };
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: json,
  });
  await server.connect(transport);
  if (deps.onOperation || deps.tracer) observeOperations(transport, request.headers, deps);
  // The transport reads only headers (the body is given parsed); most clients already list both types.
  const given = request.headers.get("accept") ?? "";
  const forTransport =
    given.includes("application/json") && given.includes("text/event-stream")
      ? request
      : new Request(request.url, { method: "POST", headers: transportHeaders(request, accept) });
  const response = await transport.handleRequest(forTransport, { parsedBody: body });
  if (splice) return spliced(response, () => [[LISTING_QUOTED, listingBytes(deps.catalog, deps.profile)]]);
  if (!loneCall) return response;
  return spliced(response, () => {
    if (answer === undefined) return [];
    const { text, structured } = answer;
    return [
      [TEXT_MARKER, `"${text.escaped}"`],
      ...(structured ? [[STRUCTURED_MARKER, text.raw] as [string, string]] : []),
    ];
  });
}
