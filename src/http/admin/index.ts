/** /admin/*: team keys only (invites get 403); one rate-limit unit per request. */
import { Hono } from "hono";
import { type AuthDeps, type AuthEnv, auth } from "../auth.ts";
import { keyRoutes } from "./keys.ts";
import { roomRoutes } from "./rooms.ts";
import type { AdminDeps } from "./shared.ts";

export function adminRoutes(deps: AdminDeps & AuthDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.use("*", auth(deps));
  app.use("*", async (c, next) => {
    if (c.get("principal").kind === "invite") {
      return c.json({ error: "Invite tokens cannot access admin endpoints" }, 403);
    }
    await next();
  });
  app.get("/me", (c) => {
    const { teamId, kind, keyId, boundAgentId } = c.get("principal");
    return c.json({ teamId, kind, ...(keyId ? { keyId } : {}), ...(boundAgentId ? { boundAgentId } : {}) });
  });
  app.route("/", keyRoutes(deps));
  app.route("/", roomRoutes(deps));
  return app;
}
