/**
 * What /mcp does with a body before either era answers it: content negotiation (JSON or SSE framing), the body
 * parsed once, and the legacy era's readable params check.
 */
import { invalidParams } from "./rpc-params.ts";
import { SERVER_INFO } from "./server-info.ts";

export { SERVER_INFO };

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

export type ParsedBody = { body: unknown; messages: number; toolCalls: number } | { error: Response };

/** Most messages one JSON-RPC batch may hold: each is one rate unit, and each answer can be ~116 KB. */
export const MAX_BATCH = 10;

/**
 * The protocol revisions with JSON-RPC batching: 2025-03-26 added it to MCP, 2025-06-18 took it out again; the
 * revisions before 2025-03-26 speak JSON-RPC 2.0, which has batches.
 */
const BATCHING_REVISIONS: ReadonlySet<string> = new Set(["2024-10-07", "2024-11-05", "2025-03-26"]);
/** The revision of a request without MCP-Protocol-Version (the transport specification's default). */
const DEFAULT_REVISION = "2025-03-26";

/**
 * The protocol revision a batch is sent under: the one its initialize asks for, else the MCP-Protocol-Version
 * header, else the default.
 */
function batchRevision(request: Request, messages: readonly unknown[]): string {
  for (const m of messages) {
    if (typeof m !== "object" || m === null || (m as { method?: unknown }).method !== "initialize") continue;
    const asked = (m as { params?: { protocolVersion?: unknown } }).params?.protocolVersion;
    if (typeof asked === "string") return asked;
  }
  return request.headers.get("mcp-protocol-version") ?? DEFAULT_REVISION;
}

/** Why a batch (an array body) is refused, or null: a revision without batches, or over MAX_BATCH messages. */
function batchRefusal(request: Request, messages: readonly unknown[]): Response | null {
  const revision = batchRevision(request, messages);
  if (!BATCHING_REVISIONS.has(revision)) {
    const named = JSON.stringify(revision.slice(0, 40)).slice(1, -1);
    return rpcError(
      400,
      -32600,
      `Invalid Request: MCP ${named} has no JSON-RPC batches; send one message per request`,
    );
  }
  if (messages.length > MAX_BATCH)
    return rpcError(400, -32600, `Invalid Request: a batch holds at most ${MAX_BATCH} messages`);
  return null;
}

/**
 * Parses the body once (the transport reuses it), refuses the batches roomd does not take (batchRefusal), and
 * counts its messages and tools/call messages, which the rate limiter charges (one unit each, tool calls to their
 * own budget). Malformed JSON and an empty batch are answered here as JSON-RPC errors: the transport would answer
 * an empty batch with 202 and nothing.
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
  const refused = Array.isArray(body) ? batchRefusal(request, messages) : null;
  if (refused) return { error: refused };
  const toolCalls = messages.filter(
    (m) => typeof m === "object" && m !== null && (m as { method?: unknown }).method === "tools/call",
  ).length;
  return { body, messages: messages.length, toolCalls };
}

/**
 * The legacy era's params check (rpc-params.ts): the first message whose params do not fit its method, answered
 * as a readable -32602 with its id; null when every message fits.
 */
export function legacyParamsRefusal(body: unknown): Response | null {
  const bad = invalidParams(Array.isArray(body) ? body : [body]);
  if (!bad) return null;
  return Response.json(
    { jsonrpc: "2.0", error: { code: -32602, message: bad.message }, id: bad.id },
    { status: 400 },
  );
}
