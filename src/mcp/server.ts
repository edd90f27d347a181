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
  const toolCalls = messages.filter(
    (m) => typeof m === "object" && m !== null && (m as { method?: unknown }).method === "tools/call",
  ).length;
  return { body, toolCalls };
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
