/**
 * roomd's own metrics, per process (each process counts what it served; a scraper sums them). Every label value
 * comes from a bounded set: tool names of the catalog ("unknown" for anything else), the fixed outcomes of
 * call-path.ts, route patterns of the app ("unmatched" when none), HTTP status codes, the store's driver name and
 * the webhook outcomes.
 */
import type { ToolOutcome } from "../../mcp/call-path.ts";
import type { McpOperation, OperationError } from "../../mcp/operations.ts";
import { registerProcessMetrics } from "./process.ts";
import { CollectedFamily, CounterFamily, HistogramFamily, Registry } from "./registry.ts";

/** Tool call durations, in seconds: from a cached read to the longest wait_for_events (30 s). */
export const TOOL_SECONDS_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

/**
 * mcp.server.operation.duration's buckets, in seconds, as OpenTelemetry's semantic conventions for MCP recommend
 * (so dashboards built on them fit).
 */
export const MCP_OPERATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** error.type values kept as they are: JSON-RPC's own codes and tool errors; any other is `_OTHER`. */
const ERROR_TYPES = new Set([
  "tool_error",
  "-32700",
  "-32600",
  "-32601",
  "-32602",
  "-32603",
  "-32000",
  "-32001",
]);

export type DeliveryOutcome = "delivered" | "failed" | "dropped";

export interface RoomdMetrics {
  readonly registry: Registry;
  /** One tools/call: `tool` is a catalog name or "unknown". */
  toolCall(tool: string, outcome: ToolOutcome, seconds: number): void;
  /** One MCP request or notification, from its arrival to its answer (mcp.server.operation.duration). */
  mcpOperation(operation: McpOperation, error: OperationError | undefined, seconds: number): void;
  /** One operation asked of the store. */
  storeRequest(): void;
  /** One HTTP answer: the matched route pattern (never the raw path) and the status. */
  httpRequest(route: string, status: number): void;
  /** One request refused by a rate limit. */
  rateLimited(): void;
  /** A room stream opened (+1) or closed (-1). */
  streams(delta: 1 | -1): void;
  /** One webhook delivery attempt, by outcome. */
  webhookDelivery(outcome: DeliveryOutcome): void;
  /** The exposition text. */
  render(): string;
}

export interface MetricsOptions {
  /** The store's driver name (the `driver` label of store requests). */
  driver: string;
  version: string;
  /** Gauges read when scraped, e.g. the live rooms this process watches. */
  liveRooms?: () => number;
}

export function createRoomdMetrics(options: MetricsOptions): RoomdMetrics {
  const registry = new Registry();
  const info = registry.add(
    new CounterFamily(
      "roomd_build_info",
      "roomd's version and store driver (value 1).",
      ["version", "driver"],
      "gauge",
    ),
  );
  info.labels(options.version, options.driver).set(1);
  const toolCalls = registry.add(
    new CounterFamily("roomd_tool_calls_total", "MCP tool calls answered, by tool and outcome.", [
      "tool",
      "outcome",
    ]),
  );
  const toolSeconds = registry.add(
    new HistogramFamily(
      "roomd_tool_duration_seconds",
      "Time from the start of a tool call's work to its result, in seconds, by tool.",
      TOOL_SECONDS_BUCKETS,
      ["tool"],
    ),
  );
  const operations = registry.add(
    new HistogramFamily(
      "mcp_server_operation_duration_seconds",
      "MCP requests and notifications from arrival to answer, in seconds (OpenTelemetry's mcp.server.operation.duration), by method, tool and error type.",
      MCP_OPERATION_BUCKETS,
      ["mcp_method_name", "gen_ai_tool_name", "error_type"],
    ),
  );
  const store = registry
    .add(
      new CounterFamily(
        "roomd_store_requests_total",
        "Operations this process asked of the store, by driver.",
        ["driver"],
      ),
    )
    .labels(options.driver);
  const http = registry.add(
    new CounterFamily("roomd_http_requests_total", "HTTP requests answered, by route pattern and status.", [
      "route",
      "status",
    ]),
  );
  const limited = registry
    .add(new CounterFamily("roomd_rate_limited_total", "Requests and tool calls refused by a rate limit."))
    .labels();
  const streams = registry
    .add(new CounterFamily("roomd_streams_open", "Room streams (SSE) open in this process.", [], "gauge"))
    .labels();
  const deliveries = registry.add(
    new CounterFamily(
      "roomd_webhook_deliveries_total",
      "Webhook delivery attempts made by this process, by outcome.",
      ["outcome"],
    ),
  );
  if (options.liveRooms) {
    registry.add(
      new CollectedFamily(
        "roomd_live_rooms",
        "Rooms this process watches for streams and waits.",
        "gauge",
        options.liveRooms,
      ),
    );
  }
  registerProcessMetrics(registry);

  // Hot paths keep their series: one map lookup per call, no allocation once a series exists.
  type Series = ReturnType<CounterFamily["labels"]>;
  const byTool = new Map<
    string,
    { outcomes: Map<ToolOutcome, Series>; seconds: { observe(v: number): void } }
  >();
  const byRoute = new Map<string, Series>();
  const byOperation = new Map<string, { observe(v: number): void }>();
  const byDelivery = new Map<DeliveryOutcome, Series>();

  return {
    registry,
    toolCall(tool, outcome, seconds) {
      let entry = byTool.get(tool);
      if (!entry) {
        entry = { outcomes: new Map(), seconds: toolSeconds.labels(tool) };
        byTool.set(tool, entry);
      }
      let calls = entry.outcomes.get(outcome);
      if (!calls) {
        calls = toolCalls.labels(tool, outcome);
        entry.outcomes.set(outcome, calls);
      }
      calls.inc();
      entry.seconds.observe(seconds);
    },
    mcpOperation(operation, error, seconds) {
      const errorType = error === undefined ? "" : ERROR_TYPES.has(error.type) ? error.type : "_OTHER";
      const key = `${operation.method} ${operation.tool ?? ""} ${errorType}`;
      let series = byOperation.get(key);
      if (!series) {
        series = operations.labels(operation.method, operation.tool ?? "", errorType);
        byOperation.set(key, series);
      }
      series.observe(seconds);
    },
    storeRequest: () => store.inc(),
    httpRequest(route, status) {
      const key = `${status} ${route}`;
      let series = byRoute.get(key);
      if (!series) {
        series = http.labels(route, String(status));
        byRoute.set(key, series);
      }
      series.inc();
    },
    rateLimited: () => limited.inc(),
    streams: (delta) => streams.inc(delta),
    webhookDelivery(outcome) {
      let series = byDelivery.get(outcome);
      if (!series) {
        series = deliveries.labels(outcome);
        byDelivery.set(outcome, series);
      }
      series.inc();
    },
    render: () => registry.render(),
  };
}
