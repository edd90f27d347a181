/**
 * The public room pages' one per-address budget (SUMMARY_RATE_LIMIT_PER_MINUTE): the HTML room page, the JSON
 * summary, and the public view and stream all charge the same window, so an address gets the limit once per
 * process, not once per route. Built once per app; every refusal is counted in roomd_rate_limited_total.
 */
import type { Context } from "hono";
import type { Clock } from "../protocol/time.ts";
import { createAddressLimiter } from "./address-limit.ts";
import { clientAddress, rateHeaders } from "./auth.ts";
import type { RoomdMetrics } from "./metrics/roomd-metrics.ts";

/** Charges the request's address: sets the RateLimit headers, and answers 429 (counted) when it is over budget. */
export type PublicGate = (c: Context) => Response | null;

export function createPublicGate(options: {
  limit: number;
  now: Clock;
  metrics?: Pick<RoomdMetrics, "rateLimited">;
}): PublicGate {
  const limiter = createAddressLimiter({ limit: options.limit, now: options.now });
  return (c) => {
    const rate = limiter.take(clientAddress(c));
    for (const [name, value] of Object.entries(rateHeaders(rate))) c.header(name, value);
    if (rate.allowed) return null;
    options.metrics?.rateLimited();
    return c.json({ error: "Rate limit exceeded" }, 429);
  };
}
