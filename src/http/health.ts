/**
 * The probes. GET /health: which driver, and whether it answers (503 when it does not) — for people and status
 * pages. GET /livez: the process serves HTTP (no store work: a store outage must not get every process restarted).
 * GET /readyz: this process can do its work now — the store answers and the change feed's own connection is up —
 * so an orchestrator sends it traffic; 503 naming what failed otherwise. None needs a key; none says more than
 * which check failed.
 */
import { Hono } from "hono";
import { SERVER_INFO } from "../mcp/server.ts";
import type { RoomStore } from "../store/types.ts";

export interface HealthOptions {
  /** STORE_TIMEOUT_MS: a check that has not answered by then has failed. */
  timeoutMs: number;
}

/** The probe routes, open to any Origin (app.ts). */
export const PROBE_ROUTES = ["/health", "/livez", "/readyz"] as const;

type Check = "ok" | "unavailable" | "not used";

/** Resolves "ok", or "unavailable" when `run` rejects or outlasts the timeout. */
async function check(run: () => Promise<unknown>, timeoutMs: number): Promise<Check> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<Check>((resolve) => {
    timer = setTimeout(() => resolve("unavailable"), timeoutMs);
  });
  try {
    return await Promise.race([
      run().then(
        (): Check => "ok",
        (): Check => "unavailable",
      ),
      expired,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function healthRoutes(store: RoomStore, options: HealthOptions): Hono {
  const version = SERVER_INFO.version;
  return new Hono()
    .get("/health", async (c) => {
      const body = { ok: true, store: store.driver, version };
      if ((await check(() => store.ping(), options.timeoutMs)) === "ok") return c.json(body);
      return c.json({ ...body, ok: false, error: "Store unavailable" }, 503);
    })
    .get("/livez", (c) => c.json({ ok: true, version }))
    .get("/readyz", async (c) => {
      const probe = store.changes.probe?.bind(store.changes);
      const [storeCheck, feedCheck] = await Promise.all([
        check(() => store.ping(), options.timeoutMs),
        probe ? check(probe, options.timeoutMs) : Promise.resolve<Check>("not used"),
      ]);
      const checks = { store: storeCheck, changeFeed: feedCheck };
      const failed = [
        ...(storeCheck === "unavailable" ? ["Store unavailable"] : []),
        ...(feedCheck === "unavailable" ? ["Change feed not connected"] : []),
      ];
      if (failed.length === 0) return c.json({ ok: true, store: store.driver, version, checks });
      return c.json({ ok: false, store: store.driver, version, checks, error: failed.join("; ") }, 503);
    });
}
