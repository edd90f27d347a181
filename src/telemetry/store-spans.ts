/**
 * The store's work inside a traced request, as children of its MCP span:
 * - one INTERNAL span per operation asked of the store (`store.claimTask`, …): on SQLite that is the whole of it
 *   (one transaction on the file, no round trip);
 * - under it, one CLIENT span per round trip to a database server (store/round-trips.ts), named as database client
 *   spans are: `EVALSHA claimTask` (the script) on Redis, the statement's keyword on PostgreSQL (`SELECT`, with the
 *   statement's text, which holds placeholders and never values, as `db.query.text`).
 * Work outside any traced request (the webhook worker, the change feed's polls) makes no spans: they would be
 * roots of traces nobody asked for. Failures set `error.type` (the refusal's kind, or the error's name) and, for
 * outages and faults, the ERROR status; a refusal (a missing task, a version conflict) is an answer, not an error.
 */
import { context, SpanKind, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import { RoomError } from "../protocol/errors.ts";
import type { RoundTrip, RoundTripObserver } from "../store/round-trips.ts";
import type { RoomStore } from "../store/types.ts";

/** Members of the store that are not operations (as http/metrics/instrument.ts counts them). */
const NOT_OPERATIONS = new Set<PropertyKey>(["close", "driver", "changes"]);

const DB_SYSTEM: Record<string, string> = {
  sqlite: "sqlite",
  redis: "redis",
  upstash: "redis",
  postgres: "postgresql",
};

function failed(span: ReturnType<Tracer["startSpan"]>, error: unknown): void {
  const refusal = error instanceof RoomError && error.kind !== "store_unavailable";
  span.setAttribute(
    "error.type",
    error instanceof RoomError ? error.kind : error instanceof Error ? error.name : "_OTHER",
  );
  if (!refusal) span.setStatus({ code: SpanStatusCode.ERROR });
}

/** Runs `work` in `span`, ending the span when the work settles (sync or async). */
function within<T>(span: ReturnType<Tracer["startSpan"]>, work: () => T): T {
  const current = trace.setSpan(context.active(), span);
  let result: T;
  try {
    result = context.with(current, work);
  } catch (error) {
    failed(span, error);
    span.end();
    throw error;
  }
  if (typeof (result as { then?: unknown } | null)?.then === "function") {
    return Promise.resolve(result).then(
      (value) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        failed(span, error);
        span.end();
        throw error;
      },
    ) as T;
  }
  span.end();
  return result;
}

/** The store with a span per operation called inside a traced request. */
export function traceStore<S extends RoomStore>(store: S, tracer: Tracer): S {
  const system = DB_SYSTEM[store.driver] ?? store.driver;
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (typeof value !== "function" || NOT_OPERATIONS.has(key)) return value;
      let traced = wrapped.get(key);
      if (traced === undefined) {
        const fn = value as (...args: unknown[]) => unknown;
        const name = `store.${String(key)}`;
        traced = (...args: unknown[]) => {
          if (!trace.getSpan(context.active())) return fn.apply(target, args);
          const span = tracer.startSpan(name, {
            kind: SpanKind.INTERNAL,
            attributes: { "db.system.name": system, "roomd.store.operation": String(key) },
          });
          return within(span, () => fn.apply(target, args));
        };
        wrapped.set(key, traced);
      }
      return traced;
    },
  });
}

/** The round-trip observer: a CLIENT span per round trip inside a traced request. */
export function observeRoundTrip(tracer: Tracer): RoundTripObserver {
  return <T>(trip: RoundTrip, send: () => Promise<T>): Promise<T> => {
    if (!trace.getSpan(context.active())) return send();
    const span = tracer.startSpan(trip.target ? `${trip.operation} ${trip.target}` : trip.operation, {
      kind: SpanKind.CLIENT,
      attributes: {
        "db.system.name": trip.system,
        "db.operation.name": trip.operation,
        ...(trip.target ? { "db.stored_procedure.name": trip.target } : {}),
        ...(trip.text ? { "db.query.text": trip.text } : {}),
      },
    });
    return within(span, send);
  };
}
