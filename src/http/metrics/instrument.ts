/**
 * Where the counters are fed from without the counted code knowing: the store (every operation asked of it), the
 * gate (every admission refused by a rate limit) and the HTTP app (every answer, by route pattern and status).
 */
import type { MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { Gate } from "../../access/gate.ts";
import type { RoomStore } from "../../store/types.ts";
import type { RoomdMetrics } from "./roomd-metrics.ts";

/** Members that are not requests to the store. */
const NOT_REQUESTS = new Set<PropertyKey>(["close", "driver", "changes"]);

/**
 * The store, counting each operation called on it (one transaction on SQLite, one script round trip on Redis;
 * the live feed's own subscriptions and polls are not operations). Works for any driver, whether its operations
 * are own properties or methods of a class.
 */
export function countStoreRequests<S extends RoomStore>(store: S, metrics: RoomdMetrics): S {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (typeof value !== "function" || NOT_REQUESTS.has(key)) return value;
      let counted = wrapped.get(key);
      if (counted === undefined) {
        const fn = value as (...args: unknown[]) => unknown;
        counted = (...args: unknown[]) => {
          metrics.storeRequest();
          return fn.apply(target, args);
        };
        wrapped.set(key, counted);
      }
      return counted;
    },
  });
}

/** The gate, counting the admissions a rate limit refused (HTTP 429, or the tool error inside MCP). */
export function countRateLimited(gate: Gate, metrics: RoomdMetrics): Gate {
  const count = <A extends { ok: boolean; status?: number }>(admission: A): A => {
    if (!admission.ok && admission.status === 429) metrics.rateLimited();
    return admission;
  };
  const admit: Gate = Object.assign(
    async (secret: string | null, bucket: Parameters<Gate>[1], resource?: string) =>
      count(await gate(secret, bucket, resource)),
    {
      knows: (secret: string) => gate.knows(secret),
      person: async (teamId: string, humanId: string, bucket: Parameters<Gate>[1]) =>
        count(await gate.person(teamId, humanId, bucket)),
      credential: async (...args: Parameters<Gate["credential"]>) => count(await gate.credential(...args)),
    },
  );
  return admit;
}

/**
 * Counts every answer by the pattern of the route that handled it (`/rooms/:roomId/stream`, never the path with
 * its ids) and its status. Middleware runs for every route, so the route is the last matched one that is not
 * middleware; a request no route matched is "unmatched".
 */
export function httpMetrics(metrics: RoomdMetrics): MiddlewareHandler {
  return async (c, next) => {
    try {
      await next();
    } finally {
      let route = "unmatched";
      const routes = matchedRoutes(c);
      for (let i = routes.length - 1; i >= 0; i--) {
        const candidate = routes[i];
        if (candidate && candidate.method !== "ALL") {
          route = candidate.path;
          break;
        }
      }
      metrics.httpRequest(route, c.res.status);
    }
  };
}
