/**
 * /admin/rooms/:roomId/agents (docs/http.md#suspending-an-agent): suspend and resume an agent in a room, and list the
 * room's suspended agents. Any unbound team key may; a person only when their role in the room allows it (an approver,
 * protocol/roles.ts "suspend"). The store releases what the agent holds and appends the events (protocol/suspensions.ts).
 */
import { Hono } from "hono";
import { z } from "zod";
import { errors, RoomError } from "../../protocol/errors.ts";
import { AGENT_ID, isRoomId } from "../../protocol/ids.ts";
import { isPersonName, type Principal } from "../../protocol/principal.ts";
import { MAX_SUSPENSION_REASON, suspenderOf } from "../../protocol/suspensions.ts";
import { requireRole } from "../../store/room-roles.ts";
import type { RoomScope } from "../../store/types.ts";
import type { AuthEnv } from "../auth.ts";
import { parseBody } from "../errors.ts";
import type { AdminDeps } from "./shared.ts";

const suspendBody = z.strictObject({
  reason: z
    .string()
    .trim()
    .min(1, { error: "give why the agent is suspended" })
    .max(MAX_SUSPENSION_REASON, { error: `at most ${MAX_SUSPENSION_REASON} characters` }),
});

export function suspensionRoutes(deps: AdminDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  const scopeOf = (c: { get: (k: "principal") => Principal }, roomId: string): RoomScope => {
    if (!isRoomId(roomId)) throw errors.denied();
    return { roomId, teamId: c.get("principal").teamId, mayClaim: false };
  };
  /** The agent in the path: an agent id (a person's name is not an agent's, and cannot be suspended). */
  const agentOf = (agentId: string): string => {
    if (!AGENT_ID.test(agentId) || isPersonName(agentId))
      throw new RoomError(
        "invalid",
        "Invalid agentId: 1-64 chars of A-Z, a-z, 0-9, _ . : - naming an agent, not a person",
      );
    return agentId;
  };

  app.get("/rooms/:roomId/agents/suspended", async (c) => {
    const scope = scopeOf(c, c.req.param("roomId"));
    return c.json({ roomId: scope.roomId, suspended: await deps.store.listSuspensions(scope) });
  });
  app.post("/rooms/:roomId/agents/:agentId/suspend", async (c) => {
    const body = await parseBody(c, suspendBody);
    const scope = scopeOf(c, c.req.param("roomId"));
    const agentId = agentOf(c.req.param("agentId"));
    const principal = c.get("principal");
    await requireRole(deps.store, scope, principal, "suspend");
    const result = await deps.store.suspendAgent(scope, {
      agentId,
      by: suspenderOf(principal),
      reason: body.reason,
    });
    return c.json({ roomId: scope.roomId, ...result }, result.already ? 200 : 201);
  });
  app.post("/rooms/:roomId/agents/:agentId/resume", async (c) => {
    const scope = scopeOf(c, c.req.param("roomId"));
    const agentId = agentOf(c.req.param("agentId"));
    const principal = c.get("principal");
    await requireRole(deps.store, scope, principal, "suspend");
    const result = await deps.store.resumeAgent(scope, { agentId, by: suspenderOf(principal) });
    return c.json({ roomId: scope.roomId, ...result });
  });
  return app;
}
