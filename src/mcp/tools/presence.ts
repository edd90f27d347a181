/** Presence tools (2): who is working in the room, and on what. */
import { z } from "zod";
import { LIMITS } from "../../protocol/limits.ts";
import { stripControls } from "../../protocol/validation.ts";
import { missingRoomHint } from "../room-typo.ts";
import { actingAgentId, presenceShape, roomId } from "../schemas.ts";
import { defineTool } from "../tool.ts";

export const presenceTools = [
  defineTool({
    name: "heartbeat",
    title: "Say I am alive",
    description:
      "Say you are alive (online for 120 s), optionally with what you are doing. Any other call that names you also keeps you online; call this about every 60 s while working quietly. In a room with no state yet it records nothing (roomExists false, with a hint).",
    returns: "{agentId, presence}",
    input: z.strictObject({
      roomId,
      agentId: actingAgentId,
      statusText: z
        .string()
        .max(LIMITS.presenceStatusMax)
        .optional()
        .describe("What you are doing, one line (at most 200 chars; control characters are removed)."),
    }),
    output: z.object({
      agentId: z.string(),
      presence: presenceShape,
      roomExists: z.boolean().describe("false when the room has no state yet: nothing was recorded."),
      hint: z.string().optional(),
    }),
    effect: "write",
    idempotent: true,
    acting: ["agentId"],
    example: async () => ({ agentId: "alice", statusText: "writing the login endpoint" }),
    handler: async (a, call) => {
      const statusText = a.statusText === undefined ? undefined : stripControls(a.statusText);
      const { presence, roomExists } = await call.store.heartbeat(call.scope, a.agentId, statusText);
      return {
        agentId: a.agentId,
        presence,
        roomExists,
        ...(roomExists ? {} : { hint: await missingRoomHint(a.roomId, call) }),
      };
    },
  }),
  defineTool({
    name: "get_presence",
    title: "Who is here",
    description:
      "Every agent ever seen in the room: online (seen within 120 s), offline, or left (called leave_room), with last seen and status text; an agent suspended in the room carries suspended {by, at, reason} (its calls here are refused until someone resumes it).",
    returns: "Presence[] (with suspended? {by, at, reason}), by agent id",
    input: z.strictObject({ roomId }),
    effect: "read",
    example: async () => ({}),
    // The store reads the room's suspensions in the same step as presence (types.ts getPresence).
    handler: (_a, call) => call.store.getPresence(call.scope),
  }),
];
