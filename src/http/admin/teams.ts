/** GET /admin/teams: the operators' list of teams (docs/web.md) — configured in the environment or with keys in the store. */
import { Hono } from "hono";
import type { AuthEnv } from "../auth.ts";
import { operatorOnly } from "./keys.ts";
import type { AdminDeps } from "./shared.ts";

export function teamRoutes(deps: AdminDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.get("/teams", async (c) => {
    if (c.get("principal").kind !== "operator") throw operatorOnly();
    const stored = new Set(await deps.store.listTeams());
    const ids = [...new Set([...deps.staticTeams, ...stored])].sort();
    return c.json({
      teams: ids.map((teamId) => ({
        teamId,
        source: deps.staticTeams.has(teamId) ? "environment" : "store",
      })),
    });
  });
  return app;
}
