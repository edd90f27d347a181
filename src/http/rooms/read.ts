/**
 * What members read beside the live view (docs/web.md): one context entry with its payload and every earlier
 * version, older pages of the log, and the room's search (the `search` tool's, for the page's search box). Any
 * member of the room (person or agent key, invite of this room).
 */
import { Hono } from "hono";
import { errors, RoomError } from "../../protocol/errors.ts";
import { LIMITS } from "../../protocol/limits.ts";
import { SEARCH_KINDS, SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, searchTerms } from "../../protocol/search.ts";
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

  // ?q=words&types=task,event&limit=1-50 → the search tool's answer {query, terms, hits, count}.
  app.get("/:roomId/search", async (c) => {
    const scope = scopeOf(c);
    const query = c.req.query("q") ?? "";
    if (query.length === 0 || query.length > 500)
      throw new RoomError("invalid", "Invalid arguments: q: must be 1-500 characters");
    const types = (c.req.query("types") ?? SEARCH_KINDS.join(",")).split(",");
    const kinds = SEARCH_KINDS.filter((kind) => types.includes(kind));
    if (kinds.length !== new Set(types).size)
      throw new RoomError("invalid", `Invalid arguments: types: must be among ${SEARCH_KINDS.join(", ")}`);
    const limit = c.req.query("limit");
    if (
      limit !== undefined &&
      !(/^\d{1,2}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= SEARCH_LIMIT_MAX)
    )
      throw new RoomError("invalid", `Invalid arguments: limit: must be 1-${SEARCH_LIMIT_MAX}`);
    const terms = searchTerms(query);
    const hits = await deps.store.search(scope, {
      terms,
      types: kinds,
      limit: limit === undefined ? SEARCH_LIMIT_DEFAULT : Number(limit),
    });
    return c.json({ query, terms, hits, count: hits.length });
  });
  return app;
}
