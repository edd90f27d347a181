/**
 * The team's OAuth grants (docs/security.md#oauth): `GET /admin/oauth/grants` lists who connected which client, as
 * which agent in which room, and until when (never a secret); `DELETE /admin/oauth/grants/:grantId` revokes a grant
 * with every token it gave, at once. Another team's grant reads as missing, unless the caller is an operator.
 */
import { Hono } from "hono";
import { RoomError } from "../../protocol/errors.ts";
import type { AuthEnv } from "../auth.ts";
import type { AdminDeps } from "./shared.ts";

const GRANT_ID = /^g_([a-z0-9][a-z0-9-]{2,31})_[0-9a-z]{8}$/;
const grantNotFound = () => new RoomError("not_found", "OAuth grant not found");

export function oauthGrantRoutes(deps: AdminDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.get("/oauth/grants", async (c) => {
    return c.json({ grants: await deps.store.listOAuthGrants(c.get("principal").teamId) });
  });
  app.delete("/oauth/grants/:grantId", async (c) => {
    const principal = c.get("principal");
    const grantId = c.req.param("grantId");
    const team = GRANT_ID.exec(grantId)?.[1];
    if (!team || (team !== principal.teamId && principal.kind !== "operator")) throw grantNotFound();
    if (!(await deps.store.revokeOAuthGrant(team, { grantId }))) throw grantNotFound();
    return c.json({ ok: true, grantId });
  });
  return app;
}
