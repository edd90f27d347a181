/**
 * What members read beside the live view (docs/web.md): one context entry with its payload and every earlier
 * version, and older pages of the log. Any member of the room (person or agent key, invite of this room).
 */
import { Hono } from "hono";
import { errors, RoomError } from "../../protocol/errors.ts";
import { LIMITS } from "../../protocol/limits.ts";
import type { AuthEnv } from "../auth.ts";
import { type RoomRouteDeps, recordIdSchema, scopeOf } from "./shared.ts";

export function readRoutes(deps: RoomRouteDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();

  app.get("/:roomId/context/:contextId", async (c) => {
    const scope = scopeOf(c);
    const id = c.req.param("contextId");
    if (!recordIdSchema.safeParse(id).success) throw errors.contextNotFound(id.slice(0, 100));
    return c.json(await deps.store.contextVersions(scope, id));
  });

  app.get("/:roomId/events", async (c) => {
    const scope = scopeOf(c);
    const before = c.req.query("before");
    const limit = c.req.query("limit");
    if (before !== undefined && !/^[1-9]\d{0,14}$/.test(before))
      throw new RoomError("invalid", "Invalid arguments: before: must be an event seq (digits)");
    if (
      limit !== undefined &&
      !(/^\d{1,3}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= LIMITS.readEventsMax)
    )
      throw new RoomError("invalid", `Invalid arguments: limit: must be 1-${LIMITS.readEventsMax}`);
    const events = await deps.store.readEvents(scope, {
      limit: limit === undefined ? LIMITS.readEventsMax : Number(limit),
      ...(before !== undefined ? { beforeSeq: Number(before) } : {}),
    });
    return c.json({ events });
  });
  return app;
}
