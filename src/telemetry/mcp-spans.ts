/**
 * One SERVER span per MCP request or notification, after OpenTelemetry's semantic conventions for MCP: named
 * `{mcp.method.name} {gen_ai.tool.name}` (the method alone when there is no tool), with `mcp.method.name`,
 * `gen_ai.tool.name`, `gen_ai.operation.name` (`execute_tool` for tool calls), `jsonrpc.request.id`,
 * `mcp.protocol.version`, `network.transport`, `network.protocol.name`, and on failure `error.type` (the JSON-RPC
 * error code, or `tool_error` when a tool answered with an error) with the span's status set to ERROR.
 *
 * Its parent is the caller's trace as `params._meta` carries it (`traceparent`, `tracestate`, unprefixed, as the
 * conventions say); a request whose `_meta` carries none continues the HTTP request's `traceparent` header, if any.
 * When both are there and differ, the HTTP one is linked. Nothing from the arguments or the answer is recorded.
 */
import {
  type Context,
  context,
  type Link,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { W3CTraceContextPropagator } from "@opentelemetry/core";
import type { McpOperation, McpTracer, OperationError, OperationSpan } from "../mcp/operations.ts";

/** Reads `traceparent` / `tracestate` from `params._meta` (only string values count). */
const metaGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === "string" ? value : undefined;
  },
};

const headerGetter: TextMapGetter<Headers> = {
  keys: (carrier) => [...carrier.keys()],
  get: (carrier, key) => carrier.get(key) ?? undefined,
};

/** The error text kept on a span's status, bounded (a JSON-RPC message can echo what the client sent). */
const MAX_STATUS = 200;

export function createMcpTracer(tracer: Tracer, propagator: W3CTraceContextPropagator): McpTracer {
  const extracted = (carrier: Record<string, unknown> | Headers | undefined, getter: TextMapGetter<never>) =>
    carrier === undefined ? undefined : propagator.extract(ROOT_CONTEXT, carrier as never, getter);
  return {
    start(operation: McpOperation, headers: Headers): OperationSpan {
      const fromMeta = extracted(operation.meta, metaGetter as TextMapGetter<never>);
      const fromHttp = headers.has("traceparent")
        ? extracted(headers, headerGetter as TextMapGetter<never>)
        : undefined;
      const metaSpan = fromMeta ? trace.getSpanContext(fromMeta) : undefined;
      const httpSpan = fromHttp ? trace.getSpanContext(fromHttp) : undefined;
      const parent: Context = metaSpan
        ? (fromMeta as Context)
        : httpSpan
          ? (fromHttp as Context)
          : context.active();
      const links: Link[] =
        metaSpan && httpSpan && httpSpan.spanId !== metaSpan.spanId ? [{ context: httpSpan }] : [];
      const name = operation.tool ? `${operation.method} ${operation.tool}` : operation.method;
      const span = tracer.startSpan(
        name,
        {
          kind: SpanKind.SERVER,
          links,
          attributes: {
            "mcp.method.name": operation.method,
            "network.transport": "tcp",
            "network.protocol.name": "http",
            ...(operation.tool
              ? { "gen_ai.tool.name": operation.tool, "gen_ai.operation.name": "execute_tool" }
              : {}),
            ...(operation.requestId !== undefined ? { "jsonrpc.request.id": operation.requestId } : {}),
            ...(operation.protocolVersion ? { "mcp.protocol.version": operation.protocolVersion } : {}),
          },
        },
        parent,
      );
      const current = trace.setSpan(parent, span);
      return {
        run: (fn) => context.with(current, fn),
        end(error?: OperationError) {
          if (error) {
            span.setAttribute("error.type", error.type);
            if (error.type !== "tool_error") span.setAttribute("rpc.response.status_code", error.type);
            span.setStatus({
              code: SpanStatusCode.ERROR,
              ...(error.message ? { message: error.message.slice(0, MAX_STATUS) } : {}),
            });
          }
          span.end();
        },
      };
    },
  };
}
