/**
 * The web surfaces for people (docs/web.md): sign-in, the live room view, the dashboard, and the assets they load.
 * Registered before the JSON room summary, whose path the room view shares (it answers only browsers).
 */
import { Hono } from "hono";
import type { PublicGate } from "../http/public-gate.ts";
import { serveAsset } from "./assets.ts";
import { connectRoutes } from "./connect.ts";
import { dashboardStreamRoutes } from "./dashboard-stream.ts";
import { loginRoutes } from "./login.ts";
import { pageRoutes } from "./pages.ts";
import type { WebDeps } from "./shared.ts";

export type { WebDeps } from "./shared.ts";

export function webRoutes(deps: WebDeps & { publicGate: PublicGate }): Hono {
  const app = new Hono();
  app.get("/assets/:file", serveAsset);
  app.route("/", loginRoutes(deps));
  app.route("/", pageRoutes(deps));
  app.route("/", connectRoutes(deps));
  app.route("/", dashboardStreamRoutes(deps));
  return app;
}
