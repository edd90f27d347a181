/**
 * createApp(deps): the Hono application. Middleware order: request id → routes (each route group brings its
 * own auth) → one onError that logs with the request id and answers generically.
 */
import { Hono } from "hono";
import type { KeyRing } from "./access/keyring.ts";
import { healthRoutes } from "./http/health.ts";
import { mcpRoutes } from "./http/mcp-route.ts";
import { type RequestIdEnv, requestId } from "./http/request-id.ts";
import { describeError, type Logger } from "./log.ts";
import type { RoomStore } from "./store/types.ts";

export interface AppDeps {
  store: RoomStore;
  keys: KeyRing;
  logger: Logger;
  onToolCall?: (name: string, isError: boolean) => void;
}

export function createApp(deps: AppDeps): Hono<RequestIdEnv> {
  const app = new Hono<RequestIdEnv>();
  app.use(requestId());
  app.route("/", healthRoutes(deps.store));
  app.route("/", mcpRoutes(deps));
  app.notFound((c) => c.json({ error: "Not found" }, 404));
  app.onError((error, c) => {
    const id = c.get("requestId");
    deps.logger.log("error", "request failed", { requestId: id, path: c.req.path, ...describeError(error) });
    return c.json({ error: `Internal error (request ${id})` }, 500);
  });
  return app;
}
