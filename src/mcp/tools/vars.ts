/** Shared variable tools (spec §3, 3 tools): small untyped facts such as a port or a staging URL. */
import { z } from "zod";
import { LIMITS } from "../../protocol/limits.ts";
import { actingAgent, scope } from "../identity.ts";
import { agentId, roomId } from "../schemas.ts";
import { defineTool } from "../tool.ts";

const key = z.string().min(1).max(LIMITS.varKeyMax);

export const varTools = [
  defineTool({
    name: "set_shared_var",
    description:
      "Set a shared variable (string value, at most 4096 chars) for facts too small for a context entry, e.g. a chosen port. Posts a shared_var_set event.",
    input: z.strictObject({ roomId, key, value: z.string().max(LIMITS.varValueMax), agentId }),
    output: z.object({ key: z.string(), value: z.string() }),
    handler: async (a, ctx) => {
      await ctx.store.setVar(scope(ctx, a.roomId), a.key, a.value, actingAgent(ctx, a.agentId));
      return { key: a.key, value: a.value };
    },
  }),
  defineTool({
    name: "get_shared_var",
    description: "Read a shared variable; value is null and found false when it is not set.",
    input: z.strictObject({ roomId, key }),
    output: z.object({ key: z.string(), value: z.string().nullable(), found: z.boolean() }),
    annotations: { readOnlyHint: true },
    handler: async (a, ctx) => {
      const value = await ctx.store.getVar(scope(ctx, a.roomId), a.key);
      return { key: a.key, value, found: value !== null };
    },
  }),
  defineTool({
    name: "list_shared_vars",
    description: "All shared variables of the room.",
    input: z.strictObject({ roomId }),
    output: z.object({ vars: z.record(z.string(), z.string()), count: z.number().int() }),
    annotations: { readOnlyHint: true },
    handler: async (a, ctx) => {
      const vars = await ctx.store.listVars(scope(ctx, a.roomId));
      return { vars, count: Object.keys(vars).length };
    },
  }),
];
