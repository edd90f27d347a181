import { errors, RoomError } from "../protocol/errors.ts";
import type { RoomScope } from "../store/types.ts";
import type { ToolContext } from "./tool.ts";

/**
 * The room a tool works on, on behalf of the caller's team. An invite reaches only its own room (any other is
 * indistinguishable from a missing one) and never claims a room.
 */
export function scope(ctx: ToolContext, roomId: string): RoomScope {
  const { allowedRoomId, teamId } = ctx.principal;
  if (allowedRoomId === undefined) return { roomId, teamId };
  if (roomId !== allowedRoomId) throw errors.denied();
  return { roomId, teamId, mayClaim: false };
}

/**
 * The agent id a call acts as. A key bound to an agent forces that identity: naming another agent is refused,
 * and omitting it means the bound agent (spec access.md §1, defect 9).
 */
export function actingAgent(ctx: ToolContext, claimed: string): string;
export function actingAgent(ctx: ToolContext, claimed: string | undefined): string | undefined;
export function actingAgent(ctx: ToolContext, claimed: string | undefined): string | undefined {
  const bound = ctx.principal.boundAgentId;
  if (bound === undefined) return claimed;
  if (claimed !== undefined && claimed !== bound) {
    throw new RoomError("denied", `This key is bound to agent ${bound}`);
  }
  return bound;
}
