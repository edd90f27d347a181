/**
 * Tracing, with the OpenTelemetry JS SDK, when an OTLP endpoint is configured (settings.ts). index.ts imports this
 * module only then, so a process without tracing never loads the SDK and pays nothing for it. Started before the
 * store is opened, it:
 * - registers the AsyncLocalStorage context manager (a span started in a request stays current through its awaits);
 * - exports spans in batches over OTLP/HTTP (JSON) to the configured endpoint, with the configured headers;
 * - watches the store's round trips (store/round-trips.ts) and gives the MCP request path its tracer.
 */
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import type { McpTracer } from "../mcp/operations.ts";
import { roundTrips } from "../store/round-trips.ts";
import type { RoomStore } from "../store/types.ts";
import { createMcpTracer } from "./mcp-spans.ts";
import type { SamplerName, TracingSettings } from "./settings.ts";
import { observeRoundTrip, traceStore } from "./store-spans.ts";

/** What the rest of roomd sees of tracing. */
export interface Tracing {
  /** Spans for MCP requests and notifications (mcp/operations.ts). */
  mcp: McpTracer;
  /** The store with a span per operation asked of it inside a traced request. */
  store<S extends RoomStore>(store: S): S;
  /** Sends the spans still queued, then stops (at shutdown). */
  shutdown(): Promise<void>;
}

function sampler(name: SamplerName, ratio: number): Sampler {
  const root = name.endsWith("always_off")
    ? new AlwaysOffSampler()
    : name.endsWith("traceidratio")
      ? new TraceIdRatioBasedSampler(ratio)
      : new AlwaysOnSampler();
  return name.startsWith("parentbased_") ? new ParentBasedSampler({ root }) : root;
}

/** Starts tracing for this process (once: the context manager and the propagator are process-wide). */
export function startTracing(settings: TracingSettings, info: { version: string }): Tracing {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const propagator = new W3CTraceContextPropagator();
  propagation.setGlobalPropagator(propagator);
  const exporter = new OTLPTraceExporter({ url: settings.url, headers: settings.headers });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      ...settings.resourceAttributes,
      "service.name": settings.serviceName,
      "service.version": info.version,
    }),
    sampler: sampler(settings.sampler, settings.ratio),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: settings.scheduleDelayMs })],
  });
  trace.setGlobalTracerProvider(provider);
  const tracer = provider.getTracer("roomd", info.version);
  roundTrips.observe = observeRoundTrip(tracer);
  return {
    mcp: createMcpTracer(tracer, propagator),
    store: (store) => traceStore(store, tracer),
    async shutdown() {
      roundTrips.observe = undefined;
      await provider.shutdown();
    },
  };
}
