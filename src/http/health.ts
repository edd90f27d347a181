import { Hono } from "hono";
import { SERVER_INFO } from "../mcp/server.ts";
import type { RoomStore } from "../store/types.ts";

/** GET /health: which driver, and whether it answers (503 when it does not). */
export function healthRoutes(store: RoomStore): Hono {
  return new Hono().get("/health", async (c) => {
    const body = { ok: true, store: store.driver, version: SERVER_INFO.version };
    try {
      await store.ping();
      return c.json(body);
    } catch {
      return c.json({ ...body, ok: false, error: "Store unavailable" }, 503);
    }
  });
}
