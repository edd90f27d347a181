/**
 * The checks every 2026-07-28 request passes before its method runs, in the revision's order: one JSON-RPC
 * request per POST; the `MCP-Protocol-Version` header; `_meta` with the protocol version and the client's
 * capabilities (-32602); header and `_meta` versions equal (-32020); a version roomd serves this way (-32022,
 * listing the supported ones and echoing the requested); `Mcp-Method` and, for tools/call, resources/read and
 * prompts/get, `Mcp-Name` mirroring the body (-32020, Base64 sentinel values decoded first). Every refusal is
 * HTTP 400 with a JSON-RPC error carrying the request's id.
 */
import {
  META_CAPABILITIES,
  META_LOG_LEVEL,
  META_VERSION,
  MODERN_VERSION,
  SUPPORTED_VERSIONS,
} from "../eras.ts";

export type RequestId = string | number;

export interface ModernRequest {
  id: RequestId;
  method: string;
  params: Record<string, unknown>;
  meta: Record<string, unknown>;
  clientCapabilities: Record<string, unknown>;
  /** `_meta.progressToken`, when the client asked for progress. */
  progressToken?: string | number;
  /** `_meta` log level: only a request carrying it may get `notifications/message`. */
  logLevel?: string;
}

export type Checked = { ok: ModernRequest } | { notification: true } | { refused: Response };

const LOG_LEVELS = new Set(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

const isId = (id: unknown): id is RequestId =>
  typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id));

/** A JSON-RPC error response (HTTP `status`), with the request's id (null when it had none). */
export function errorResponse(
  status: number,
  id: RequestId | null,
  code: number,
  message: string,
  data?: Record<string, unknown>,
): Response {
  const error = data === undefined ? { code, message } : { code, message, data };
  return Response.json({ jsonrpc: "2.0", id, error }, { status });
}

/** A header value as the transport defines it: `=?base64?…?=` decoded (UTF-8), anything else as sent. */
export function headerValue(raw: string): string | undefined {
  const match = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(raw);
  if (!match) return raw;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(
      Uint8Array.from(atob(match[1] as string), (c) => c.charCodeAt(0)),
    );
  } catch {
    return undefined;
  }
}

/** The body field `Mcp-Name` mirrors for a method, when it has one. */
const NAMED: Record<string, string> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

export function checkEnvelope(headers: Headers, body: unknown): Checked {
  if (Array.isArray(body))
    return {
      refused: errorResponse(400, null, -32600, "Invalid Request: send one JSON-RPC request per POST"),
    };
  if (!isRecord(body) || typeof body.method !== "string" || body.jsonrpc !== "2.0")
    return {
      refused: errorResponse(
        400,
        isId((body as { id?: unknown })?.id) ? (body as { id: RequestId }).id : null,
        -32600,
        'Invalid Request: expected {jsonrpc: "2.0", id, method, params}',
      ),
    };
  // This revision defines no client notifications over HTTP: one is accepted and dropped.
  if (!("id" in body)) return { notification: true };
  if (!isId(body.id))
    return {
      refused: errorResponse(400, null, -32600, "Invalid Request: id must be a string or an integer"),
    };
  const { id, method } = body;
  const refuse = (status: number, code: number, message: string, data?: Record<string, unknown>) => ({
    refused: errorResponse(status, id, code, message, data),
  });
  const version = headers.get("mcp-protocol-version");
  if (version === null)
    return refuse(400, -32020, "Header mismatch: the MCP-Protocol-Version header is missing");
  if (body.params !== undefined && !isRecord(body.params))
    return refuse(400, -32602, "Invalid params: params must be an object");
  const params = (body.params ?? {}) as Record<string, unknown>;
  const meta = params._meta;
  if (!isRecord(meta))
    return refuse(
      400,
      -32602,
      `Invalid params: params._meta is required, with ${META_VERSION} and ${META_CAPABILITIES}`,
    );
  const missing = [META_VERSION, META_CAPABILITIES].filter((key) => meta[key] === undefined);
  if (missing.length > 0)
    return refuse(400, -32602, `Invalid params: params._meta lacks ${missing.join(" and ")}`);
  const metaVersion = meta[META_VERSION];
  if (typeof metaVersion !== "string")
    return refuse(400, -32602, `Invalid params: _meta ${META_VERSION} must be a string`);
  if (!isRecord(meta[META_CAPABILITIES]))
    return refuse(400, -32602, `Invalid params: _meta ${META_CAPABILITIES} must be an object`);
  if (metaVersion !== version)
    return refuse(
      400,
      -32020,
      `Header mismatch: MCP-Protocol-Version is ${version.slice(0, 40)} but _meta names ${metaVersion.slice(0, 40)}`,
    );
  if (metaVersion !== MODERN_VERSION) {
    const known = SUPPORTED_VERSIONS.includes(metaVersion);
    return refuse(
      400,
      -32022,
      known
        ? `Unsupported protocol version: ${metaVersion} is served after an initialize handshake, without per-request _meta`
        : `Unsupported protocol version: ${metaVersion.slice(0, 40)}`,
      { supported: known ? [MODERN_VERSION] : [...SUPPORTED_VERSIONS], requested: metaVersion },
    );
  }
  const methodHeader = headers.get("mcp-method");
  if (methodHeader === null) return refuse(400, -32020, "Header mismatch: the Mcp-Method header is missing");
  if (methodHeader !== method)
    return refuse(
      400,
      -32020,
      `Header mismatch: Mcp-Method is ${methodHeader.slice(0, 60)} but the body's method is ${method.slice(0, 60)}`,
    );
  const field = NAMED[method];
  const named = field === undefined ? undefined : params[field];
  if (typeof named === "string") {
    const raw = headers.get("mcp-name");
    if (raw === null) return refuse(400, -32020, "Header mismatch: the Mcp-Name header is missing");
    const decoded = headerValue(raw);
    if (decoded === undefined)
      return refuse(400, -32020, "Header mismatch: Mcp-Name is not valid Base64 of UTF-8 text");
    if (decoded !== named)
      return refuse(400, -32020, `Header mismatch: Mcp-Name does not match params.${field}`);
  }
  const logLevel = meta[META_LOG_LEVEL];
  if (logLevel !== undefined && (typeof logLevel !== "string" || !LOG_LEVELS.has(logLevel)))
    return refuse(
      400,
      -32602,
      `Invalid params: _meta ${META_LOG_LEVEL} must be one of ${[...LOG_LEVELS].join(", ")}`,
    );
  const token = meta.progressToken;
  return {
    ok: {
      id,
      method,
      params,
      meta,
      clientCapabilities: meta[META_CAPABILITIES] as Record<string, unknown>,
      ...(typeof token === "string" || typeof token === "number" ? { progressToken: token } : {}),
      ...(typeof logLevel === "string" ? { logLevel } : {}),
    },
  };
}
