/**
 * GET /rooms/:roomId/report: how the room's coordination went (protocol/report.ts), for any member of the room.
 * Three reads in parallel — the room's description (is it the team's?), everything get_room_analytics reads (one
 * pass over the log) and the approvals — all as an onlooker's reads (RoomScope.observe), so a report records no
 * use of the room, no presence and no delivery: the room is exactly as it was. `from`/`to` (ISO times) bound the
 * window.
 */
import { Hono } from "hono";
import { errors, RoomError } from "../../protocol/errors.ts";
import { computeReport } from "../../protocol/report.ts";
import type { AuthEnv } from "../auth.ts";
import { type RoomContext, type RoomRouteDeps, scopeOf } from "./shared.ts";

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** An optional ISO time of the query, in ms; a bad one is refused naming it. */
function timeQuery(c: RoomContext, name: "from" | "to"): number | null {
  const value = c.req.query(name);
  if (value === undefined) return null;
  const ms = ISO_TIME.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms))
    throw new RoomError(
      "invalid",
      `Invalid arguments: ${name}: must be an ISO 8601 time such as 2026-01-31T09:00:00Z`,
    );
  return ms;
}

export function reportRoutes(deps: RoomRouteDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.get("/:roomId/report", async (c) => {
    const scope = { ...scopeOf(c), observe: true };
    const from = timeQuery(c, "from");
    const to = timeQuery(c, "to");
    if (from !== null && to !== null && from > to)
      throw new RoomError("invalid", "Invalid arguments: from: must not be later than to");
    const [info, log, approvals] = await Promise.all([
      deps.store.roomInfo(scope),
      deps.store.analyticsLog(scope),
      deps.store.listApprovals(scope),
    ]);
    if (!info.exists) throw errors.denied();
    c.header("Cache-Control", "no-store");
    return c.json(computeReport(scope.roomId, { log, approvals, from, to, now: deps.now() }));
  });
  return app;
}
