/** Shared variable tools (3): small untyped facts such as a port or a staging URL. */
import { z } from "zod";
import { LIMITS } from "../../protocol/limits.ts";
import { FIELDS } from "../../protocol/record-fields.ts";
import { toolErrors } from "../../protocol/tool-errors.ts";
import { actingAgentId, roomId } from "../schemas.ts";
import { defineTool } from "../tool.ts";

const key = FIELDS.varKey.describe("Variable name, e.g. staging_url.");

export const varTools = [
  defineTool({
    name: "set_shared_var",
    title: "Set a shared variable",
    description:
      "Set a shared variable (string value, at most 4096 chars) for facts too small for a context entry, e.g. a chosen port. Posts a shared_var_set event.",
    returns: "{key, value}",
    input: z.strictObject({
      roomId,
      key,
      value: FIELDS.varValue.describe("The value, kept byte for byte."),
      agentId: actingAgentId,
    }),
    output: z.object({ key: z.string(), value: z.string() }),
    effect: "destructive",
    idempotent: true,
    acting: ["agentId"],
    events: ["shared_var_set"],
    errors: [toolErrors.varLimit(LIMITS.varsPerRoom).message],
    example: async () => ({ key: "staging_port", value: "8080", agentId: "alice" }),
    handler: async (a, call) => {
      await call.store.setVar(call.scope, a.key, a.value, a.agentId);
      return { key: a.key, value: a.value };
    },
  }),
  defineTool({
    name: "get_shared_var",
    title: "Read a shared variable",
    description: "Read a shared variable; value is null and found false when it is not set.",
    returns: "{key, value, found}",
    input: z.strictObject({ roomId, key }),
    output: z.object({ key: z.string(), value: z.string().nullable(), found: z.boolean() }),
    effect: "read",
    example: async (room) => {
      await room.call("set_shared_var", { key: "staging_port", value: "8080", agentId: "alice" });
      return { key: "staging_port" };
    },
    handler: async (a, call) => {
      const value = await call.store.getVar(call.scope, a.key);
      return { key: a.key, value, found: value !== null };
    },
  }),
  defineTool({
    name: "list_shared_vars",
    title: "List shared variables",
    description: "All shared variables of the room, as a key → value map with their count.",
    returns: "{vars, count}",
    input: z.strictObject({ roomId }),
    output: z.object({ vars: z.record(z.string(), z.string()), count: z.number().int() }),
    effect: "read",
    example: async () => ({}),
    handler: async (_a, call) => {
      const vars = await call.store.listVars(call.scope);
      return { vars, count: Object.keys(vars).length };
    },
  }),
];
