/**
 * Tools are data: each is a name, a description written for the model, a strict zod input schema, an optional
 * output schema and a handler. JSON Schemas for tools/list are computed once, at module load.
 */
import { z } from "zod";
import type { Principal } from "../protocol/principal.ts";
import type { RoomStore } from "../store/types.ts";

export interface ToolContext {
  store: RoomStore;
  principal: Principal;
}

export interface ToolDefinition {
  name: string;
  description: string;
  input: z.ZodObject;
  /** Declared when the result is a JSON object; returned as structuredContent too. */
  output?: z.ZodObject;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean };
  handler(args: never, ctx: ToolContext): Promise<unknown>;
}

export interface ListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: ToolDefinition["annotations"];
}

/** Typed constructor: the handler receives the parsed input of its own schema. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject | undefined = undefined>(tool: {
  name: string;
  description: string;
  input: I;
  output?: O;
  annotations?: ToolDefinition["annotations"];
  handler(args: z.output<I>, ctx: ToolContext): Promise<O extends z.ZodObject ? z.input<O> : unknown>;
}): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return rest;
}

/** The tools/list entry of a tool; call once per tool at module load. */
export function listing(tool: ToolDefinition): ListedTool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: jsonSchema(tool.input, "input"),
    ...(tool.output ? { outputSchema: jsonSchema(tool.output, "output") } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  };
}
