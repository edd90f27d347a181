/** /admin/*: team keys only (invites get 403); one rate-limit unit per request. */
import { Hono } from "hono";
import { isScoped, keyLifeErrors } from "../../protocol/key-life.ts";
import { principalType } from "../../protocol/principal.ts";
import { type AuthDeps, type AuthEnv, auth } from "../auth.ts";
import { importRoutes } from "./import.ts";
import { keyRoutes } from "./keys.ts";
import { oauthGrantRoutes } from "./oauth.ts";
import { overviewRoutes } from "./overview.ts";
import { roleRoutes } from "./roles.ts";
import { roomRoutes } from "./rooms.ts";
import type { AdminDeps } from "./shared.ts";
import { suspensionRoutes } from "./suspensions.ts";
import { teamRoutes } from "./teams.ts";
import { webhookRoutes } from "./webhooks.ts";

export function adminRoutes(deps: AdminDeps & AuthDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.use("*", auth(deps));
  app.use("*", async (c, next) => {
    const principal = c.get("principal");
    if (principal.kind === "invite") {
      return c.json({ error: "Invite tokens cannot access admin endpoints" }, 403);
    }
    // A key bound to one agent could otherwise mint unbound keys or invites and escape its binding.
    if (principal.boundAgentId !== undefined && c.req.path !== "/admin/me") {
      return c.json({ error: "Keys bound to an agent can only use GET /admin/me" }, 403);
    }
    // A scoped key (rooms, readOnly) could otherwise mint itself an unscoped one, or reach other rooms.
    if (isScoped(principal) && !(c.req.path === "/admin/me" && c.req.method === "GET")) {
      throw keyLifeErrors.scopedAdmin();
    }
    await next();
  });
  app.get("/me", (c) => {
    const principal = c.get("principal");
    const { teamId, kind, keyId, boundAgentId, humanId, rooms, readOnly } = principal;
    return c.json({
      teamId,
      kind,
      type: principalType(principal),
      ...(humanId !== undefined ? { humanId } : {}),
      ...(keyId ? { keyId } : {}),
      ...(boundAgentId ? { boundAgentId } : {}),
      ...(rooms !== undefined ? { rooms } : {}),
      ...(readOnly === true ? { readOnly } : {}),
    });
  });
  app.route("/", keyRoutes(deps));
  app.route("/", oauthGrantRoutes(deps));
  app.route("/", roomRoutes(deps));
  app.route("/", roleRoutes(deps));
  app.route("/", suspensionRoutes(deps));
  app.route("/", webhookRoutes(deps));
  app.route("/", importRoutes(deps));
  app.route("/", overviewRoutes(deps));
  app.route("/", teamRoutes(deps));
  return app;
}
