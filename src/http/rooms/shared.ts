/**
 * What every /rooms/:roomId/… route shares: the body schemas' building blocks, the room scope of a principal
 * (an invite reaches its own room only and never claims), and who acts — a person as `human:<id>`, an agent by
 * its bound id or the id it names.
 */

import type { Context } from "hono";
import { z } from "zod";
import { errors, RoomError } from "../../protocol/errors.ts";
import { agentIdSchema, isRoomId } from "../../protocol/ids.ts";
import { reachesRoom } from "../../protocol/key-life.ts";
import { peopleErrors } from "../../protocol/people.ts";
import { type Principal, personOf } from "../../protocol/principal.ts";
import type { Act } from "../../protocol/roles.ts";
import type { Clock } from "../../protocol/time.ts";
import { requireRole } from "../../store/room-roles.ts";
import type { RoomScope, RoomStore } from "../../store/types.ts";
import type { AuthEnv } from "../auth.ts";

export interface RoomRouteDeps {
  store: RoomStore;
  now: Clock;
}

export type RoomContext = Context<AuthEnv>;

/** Record ids in paths and bodies ("apr-3", "hof-1", "task-7", "ctx-2"). */
export const recordIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,100}$/, { error: "must be an id such as the ones roomd returns" });

/** An agent named by a person or an unbound key (never a person: agent ids may not start with human:). */
export const agentSchema = agentIdSchema;

/** The room of the path, for the caller's team; an invite only reaches its own room, and never claims. */
export function scopeOf(c: RoomContext): RoomScope {
  const roomId = c.req.param("roomId") ?? "";
  const principal = c.get("principal");
  if (!isRoomId(roomId)) throw errors.denied();
  // An invite's or a scoped key's other rooms read as missing (protocol/key-life.ts).
  if (!reachesRoom(principal, roomId)) throw errors.denied();
  if (principal.allowedRoomId === undefined) return { roomId, teamId: principal.teamId };
  return { roomId, teamId: principal.teamId, mayClaim: false };
}

/** The person calling, as events name them; agents get 403 `Only people can <action>`. */
export function personFor(c: RoomContext, action: string): string {
  const person = personOf(c.get("principal"));
  if (person === undefined) throw peopleErrors.peopleOnly(action);
  return person;
}

/** A person whose role in the room does not allow `act` gets 403 naming the role needed; agents pass. */
export const checkAct = (deps: RoomRouteDeps, c: RoomContext, scope: RoomScope, act: Act): Promise<void> =>
  requireRole(deps.store, scope, c.get("principal"), act);

/**
 * The agent an agent principal acts as: its bound id (a different one named is refused), or for an unbound key the
 * id it names (required).
 */
export function agentFor(principal: Principal, named: string | undefined, field: string): string {
  const bound = principal.boundAgentId;
  if (bound !== undefined) {
    if (named !== undefined && named !== bound)
      throw new RoomError("forbidden", `This key is bound to agent ${bound}`);
    return bound;
  }
  if (named === undefined)
    throw new RoomError("invalid", `Invalid arguments: ${field}: required (the agent you act as)`);
  return named;
}

/** The one status filter of the list routes (?status=…), checked against the allowed values. */
export function statusQuery<S extends string>(c: RoomContext, allowed: readonly S[]): S | undefined {
  const status = c.req.query("status");
  if (status === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(status)) {
    throw new RoomError("invalid", `Invalid arguments: status: must be one of ${allowed.join(", ")}`);
  }
  return status as S;
}
