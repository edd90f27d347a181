/**
 * GET /metrics — this process's metrics in the Prometheus text format. Readable with METRICS_TOKEN (checked in
 * memory, digest against digest in constant time, no store work, so a scrape works while the store is down) or an
 * operator's key (through the gate like any request: its rate window is charged). No bearer or an unknown one →
 * 401; any other key → 403.
 */
import { Hono } from "hono";
import { sameDigest, sha256 } from "../../access/digest.ts";
import { type AuthDeps, bearerOf, checkBearer } from "../auth.ts";
import type { RequestIdEnv } from "../request-id.ts";
import type { RoomdMetrics } from "./roomd-metrics.ts";

export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export interface MetricsRouteDeps extends AuthDeps {
  metrics: RoomdMetrics;
  /** METRICS_TOKEN, when set. */
  metricsToken?: string;
}

export function metricsRoutes(deps: MetricsRouteDeps): Hono<RequestIdEnv> {
  const app = new Hono<RequestIdEnv>();
  const tokenDigest = deps.metricsToken === undefined ? undefined : sha256(deps.metricsToken);
  app.get("/metrics", async (c) => {
    const bearer = bearerOf(c.req.header("authorization"));
    const byToken = bearer !== null && tokenDigest !== undefined && sameDigest(sha256(bearer), tokenDigest);
    if (!byToken) {
      const admitted = await checkBearer(c, deps, "meta");
      if ("failure" in admitted) return admitted.failure;
      if (admitted.principal.kind !== "operator") {
        return c.json({ error: "Only an operator key or METRICS_TOKEN can read metrics" }, 403);
      }
    }
    return c.body(deps.metrics.render(), 200, {
      "Content-Type": METRICS_CONTENT_TYPE,
      "Cache-Control": "no-store",
    });
  });
  return app;
}
