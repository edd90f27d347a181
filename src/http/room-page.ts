/**
 * GET /room/:roomId — what is going on in a room, as JSON (browsers, which prefer text/html, get the live room view
 * of src/web/ on the same path instead). Counts and event headers only (no payloads, notes or secrets); never claims a room; an
 * unknown or unowned room is 404. Public, or bearer-only with ROOM_SUMMARY=private (then only the owning team,
 * or an invite to this room, sees it). Public, it is limited per client address (SUMMARY_RATE_LIMIT_PER_MINUTE)
 * before any other work; private, each request is a unit of the team's budget instead. Either way the answer is
 * cached for up to a second per (room, viewer), so a burst costs one store read.
 */

import { Hono } from "hono";
import { ACCESS_DENIED } from "../protocol/errors.ts";
import { isRoomId } from "../protocol/ids.ts";
import { reachesRoom } from "../protocol/key-life.ts";
import type { Clock } from "../protocol/time.ts";
import type { RoomStore } from "../store/types.ts";
import { type AuthDeps, checkBearer } from "./auth.ts";
import type { PublicGate } from "./public-gate.ts";
import type { RequestIdEnv } from "./request-id.ts";
import { createSummaryCache } from "./summary-cache.ts";

export interface RoomPageDeps extends AuthDeps {
  store: RoomStore;
  visibility: "public" | "private";
  /** The public pages' per-address budget, shared with the room page, view and stream. */
  publicGate: PublicGate;
  now: Clock;
}

export function roomPageRoutes(deps: RoomPageDeps): Hono<RequestIdEnv> {
  const app = new Hono<RequestIdEnv>();
  const summaries = createSummaryCache((roomId, teamId) => deps.store.roomSummary(roomId, teamId), {
    now: deps.now,
  });
  app.get("/room/:roomId", async (c) => {
    const roomId = c.req.param("roomId");
    let teamId: string | undefined;
    if (deps.visibility === "public") {
      const refused = deps.publicGate(c);
      if (refused) return refused;
    } else {
      const admitted = await checkBearer(c, deps, "tools");
      if ("failure" in admitted) return admitted.failure;
      const { principal } = admitted;
      if (!reachesRoom(principal, roomId)) {
        return c.json({ error: ACCESS_DENIED }, 404);
      }
      teamId = principal.teamId;
    }
    if (!isRoomId(roomId)) return c.json({ error: ACCESS_DENIED }, 404);
    {
      const view = await summaries.get(roomId, teamId);
      if (!view) return c.json({ error: ACCESS_DENIED }, 404);
      c.header("Cache-Control", "no-store");
      c.header("X-Content-Type-Options", "nosniff");
      return c.json(view);
    }
  });
  return app;
}
