/**
 * Each MCP request or notification a request carries, from the moment it is handed to the server to the moment
 * its answer is ready: timed for the `mcp.server.operation.duration` histogram and, when tracing is on, given a
 * span (telemetry/mcp-spans.ts) inside which it is handled — so the store spans of a tool call are its children.
 * The 2025 era is watched on the SDK's transport (observeOperations); the 2026-07-28 era, answered without it,
 * starts and ends its operation itself (modern/handle.ts, startOperation). Names and attributes follow
 * OpenTelemetry's semantic conventions for MCP. Nothing here imports OpenTelemetry: with tracing off, no tracer
 * exists and an operation costs two clock reads and one observation.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Catalog } from "./catalog.ts";

/** MCP methods named as themselves in metrics and span names; any other is `_OTHER` (a client's text is unbounded). */
export const MCP_METHODS = new Set([
  "initialize",
  "ping",
  "tools/list",
  "tools/call",
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/read",
  "resources/templates/list",
  "resources/subscribe",
  "resources/unsubscribe",
  "completion/complete",
  "logging/setLevel",
  "notifications/initialized",
  "notifications/cancelled",
  "notifications/progress",
  "notifications/roots/list_changed",
  "server/discover",
  "subscriptions/listen",
]);

/** One MCP message as served: what its span and its metric are named and labelled by. */
export interface McpOperation {
  /** `mcp.method.name`: the method, or `_OTHER`. */
  method: string;
  /** `gen_ai.tool.name`: the tool of a tools/call, when it is one of the catalog's. */
  tool?: string;
  /** `jsonrpc.request.id`: a request's id (absent for notifications). */
  requestId?: string;
  /** `mcp.protocol.version`: the negotiated version (the header, or initialize's own). */
  protocolVersion?: string;
  /** The message's `params._meta`, where a caller puts `traceparent` and `tracestate`. */
  meta?: Record<string, unknown>;
}

/** How an operation ended, when it failed: `error.type` and, for JSON-RPC errors, their message. */
export interface OperationError {
  type: string;
  message?: string;
}

/** An operation's span while it runs. */
export interface OperationSpan {
  /** Runs `fn` (the SDK's handling of the message) with the span as the current one. */
  run<T>(fn: () => T): T;
  end(error?: OperationError): void;
}

/** Starts operation spans (telemetry/mcp-spans.ts); absent while tracing is off. */
export interface McpTracer {
  /** `headers`: the HTTP request's, whose `traceparent` stands in when `_meta` carries none. */
  start(operation: McpOperation, headers: Headers): OperationSpan;
}

/** Called once per operation with its bounded labels and its duration in seconds. */
export type OnOperation = (
  operation: McpOperation,
  error: OperationError | undefined,
  seconds: number,
) => void;

const VERSION = /^\d{4}-\d{2}-\d{2}$/;

type Message = { method?: unknown; id?: unknown; params?: unknown; result?: unknown; error?: unknown };

function describe(message: Message, headers: Headers, catalog: Catalog): McpOperation {
  const method =
    typeof message.method === "string" && MCP_METHODS.has(message.method) ? message.method : "_OTHER";
  const params = (
    typeof message.params === "object" && message.params !== null ? message.params : {}
  ) as Record<string, unknown>;
  const operation: McpOperation = { method };
  if (method === "tools/call" && typeof params.name === "string" && catalog.get(params.name)) {
    operation.tool = params.name;
  }
  if (typeof message.id === "string" || typeof message.id === "number")
    operation.requestId = String(message.id);
  const version = method === "initialize" ? params.protocolVersion : headers.get("mcp-protocol-version");
  if (typeof version === "string" && VERSION.test(version)) operation.protocolVersion = version;
  const meta = params._meta;
  if (typeof meta === "object" && meta !== null && !Array.isArray(meta)) {
    operation.meta = meta as Record<string, unknown>;
  }
  return operation;
}

/** A response's failure: its JSON-RPC error code, or `tool_error` for a tool's error result. */
function failureOf(message: Message): OperationError | undefined {
  if (typeof message.error === "object" && message.error !== null) {
    const { code, message: text } = message.error as { code?: unknown; message?: unknown };
    return { type: String(code ?? "_OTHER"), ...(typeof text === "string" ? { message: text } : {}) };
  }
  const result = message.result as { isError?: unknown } | undefined;
  return result?.isError === true ? { type: "tool_error" } : undefined;
}

/** One operation being served; ending it more than once counts once. */
export interface WatchedOperation {
  /** Runs `fn` (the handling of the message) inside the operation's span, when it has one. */
  run<T>(fn: () => T): T;
  end(error?: OperationError): void;
}

/** What watching operations needs: the catalog (tool names), the tracer, the metric's observer. */
export interface OperationWatch {
  catalog: Catalog;
  tracer?: McpTracer;
  onOperation?: OnOperation;
}

/**
 * Starts the operation of one message (a request or a notification), or nothing when neither metrics nor tracing
 * watch: its span (when tracing is on) starts now and the metric's clock with it.
 */
export function startOperation(
  message: unknown,
  headers: Headers,
  deps: OperationWatch,
): WatchedOperation | undefined {
  if (!deps.onOperation && !deps.tracer) return undefined;
  const operation = describe(message as Message, headers, deps.catalog);
  const started = performance.now();
  const span = deps.tracer?.start(operation, headers);
  let ended = false;
  return {
    run: (fn) => (span ? span.run(fn) : fn()),
    end(error) {
      if (ended) return;
      ended = true;
      span?.end(error);
      deps.onOperation?.(operation, error, (performance.now() - started) / 1000);
    },
  };
}

/**
 * Watches the operations of one request on a connected SDK transport (the 2025 era): every message the transport
 * hands to the server (requests and notifications) starts one, and the response sent for a request ends it.
 */
export function observeOperations(transport: Transport, headers: Headers, deps: OperationWatch): void {
  const deliver = transport.onmessage;
  const send = transport.send.bind(transport);
  const open = new Map<unknown, WatchedOperation>();
  transport.onmessage = (message, extra) => {
    const m = message as Message;
    const watched = typeof m.method === "string" ? startOperation(m, headers, deps) : undefined;
    if (!watched) return deliver?.(message, extra);
    const isRequest = m.id !== undefined && m.id !== null;
    if (isRequest) open.set(m.id, watched);
    const result = watched.run(() => deliver?.(message, extra));
    // A notification gets no answer: it is done once the server has taken it.
    if (!isRequest) watched.end();
    return result;
  };
  transport.send = (message: JSONRPCMessage, options) => {
    const m = message as Message;
    const watched = m.result !== undefined || m.error !== undefined ? open.get(m.id) : undefined;
    if (watched) {
      open.delete(m.id);
      watched.end(failureOf(m));
    }
    return send(message, options);
  };
}
