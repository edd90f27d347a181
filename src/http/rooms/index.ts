/**
 * /rooms/:roomId/…: people in the room (docs/people.md) — messages, the driver, approvals, handoffs, forks,
 * verdicts —, the bridge of running agents, and the room's report. Bearer (or the trusted proxy's person), one
 * rate-limit unit per request; every route answers another team's room, an invite's other room and an invalid id
 * as not found.
 * Routes throw RoomErrors; the app's onError answers them with their status.
 */

import { Hono } from "hono";
import { keyLifeErrors } from "../../protocol/key-life.ts";
import { type AuthDeps, type AuthEnv, auth } from "../auth.ts";
import { bridgeRoutes } from "./bridge.ts";
import { exportRoutes } from "./export.ts";
import { forkRoutes } from "./fork.ts";
import { readRoutes } from "./read.ts";
import { reportRoutes } from "./report.ts";
import type { RoomRouteDeps } from "./shared.ts";
import { talkRoutes } from "./talk.ts";
import { workRoutes } from "./work.ts";

export function roomsRoutes(deps: RoomRouteDeps & AuthDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.use("*", auth(deps));
  // A read-only key reads rooms only: every other method is refused before its route looks at anything.
  app.use("*", async (c, next) => {
    const method = c.req.method;
    const principal = c.get("principal");
    if (principal.readOnly === true && method !== "GET" && method !== "HEAD") {
      throw keyLifeErrors.readOnly(`${method} ${c.req.path}`, principal.kind);
    }
    await next();
  });
  app.route("/", talkRoutes(deps));
  app.route("/", workRoutes(deps));
  app.route("/", forkRoutes(deps));
  app.route("/", bridgeRoutes(deps));
  app.route("/", exportRoutes(deps));
  app.route("/", readRoutes(deps));
  app.route("/", reportRoutes(deps));
  return app;
}
