/**
 * POST /rooms/:roomId/fork (docs/people.md#forks): a new room from a prefix of this one's log, owned by the caller's
 * team, with nobody at its wheel. Invites cannot fork: the new room would be out of their reach.
 */

import { Hono } from "hono";
import { z } from "zod";
import { shortId } from "../../access/secrets.ts";
import { RoomError } from "../../protocol/errors.ts";
import { isRoomId } from "../../protocol/ids.ts";
import { reachesRoom } from "../../protocol/key-life.ts";
import { personOf } from "../../protocol/principal.ts";
import { mayAct, roleRefusal } from "../../protocol/roles.ts";
import { roleIn } from "../../store/room-roles.ts";
import type { AuthEnv } from "../auth.ts";
import { parseBody } from "../errors.ts";
import { type RoomRouteDeps, scopeOf } from "./shared.ts";

const forkBody = z.strictObject({
  newRoomId: z
    .string()
    .refine(isRoomId, {
      error: 'must be 2-64 chars of a-z, 0-9, _ and -, starting with a letter or digit, no "__"',
    })
    .optional(),
  atSeq: z.number().int().min(0).optional(),
});

export function forkRoutes(deps: RoomRouteDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.post("/:roomId/fork", async (c) => {
    const scope = scopeOf(c);
    const principal = c.get("principal");
    if (principal.kind === "invite")
      throw new RoomError("forbidden", "Invites cannot fork a room: use a team key");
    const person = personOf(principal);
    // A fork is a new room: like POST /admin/rooms, not for a key bound to an agent.
    if (person === undefined && principal.boundAgentId !== undefined)
      throw new RoomError(
        "forbidden",
        "Keys bound to an agent cannot fork a room: use a team key or a person's key",
      );
    const body = await parseBody(c, forkBody);
    const role = await roleIn(deps.store, scope, principal);
    if (role !== undefined && !mayAct(role, "fork")) throw roleRefusal(scope.roomId, "fork", role);
    const newRoomId = body.newRoomId ?? shortId(12);
    // A key scoped to some rooms makes no room outside them (protocol/key-life.ts).
    if (!reachesRoom(principal, newRoomId))
      throw new RoomError(
        "forbidden",
        "This key reaches only its own rooms: fork into one of them (newRoomId) with a key scoped to it",
      );
    const made = await deps.store.forkRoom(scope, {
      newRoomId,
      ...(body.atSeq !== undefined ? { atSeq: body.atSeq } : {}),
      by: person ?? principal.boundAgentId ?? "system",
    });
    return c.json(made, 201);
  });
  return app;
}
