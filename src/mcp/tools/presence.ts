/** Presence tools (spec §3, 2 tools): who is working in the room, and on what. */
import { z } from "zod";
import { LIMITS } from "../../protocol/limits.ts";
import { actingAgent, scope } from "../identity.ts";
import { agentId, presenceShape, roomId } from "../schemas.ts";
import { defineTool } from "../tool.ts";

export const presenceTools = [
  defineTool({
    name: "heartbeat",
    description:
      "Say you are alive (online for 120 s), optionally with what you are doing. Call about every 60 s while working.",
    input: z.strictObject({ roomId, agentId, status: z.string().max(LIMITS.presenceStatusMax).optional() }),
    output: z.object({ agentId: z.string(), presence: presenceShape }),
    handler: async (a, ctx) => {
      const agent = actingAgent(ctx, a.agentId);
      const presence = await ctx.store.heartbeat(scope(ctx, a.roomId), agent, a.status);
      return { agentId: agent, presence };
    },
  }),
  defineTool({
    name: "get_presence",
    description:
      "Every agent ever seen in the room: online (heartbeat within 120 s) or offline, last seen, status text.",
    input: z.strictObject({ roomId }),
    annotations: { readOnlyHint: true },
    handler: (a, ctx) => ctx.store.getPresence(scope(ctx, a.roomId)),
  }),
];
