/**
 * The 25 protocol tools, their tools/list entries (computed once at module load) and the call path:
 * validate arguments → run the handler → shape the result or the error for the model.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { RoomError } from "../protocol/errors.ts";
import { contextTools } from "./tools/context.ts";
import { eventTools } from "./tools/events.ts";
import { lockTools } from "./tools/locks.ts";
import { planTools } from "./tools/plan.ts";
import { presenceTools } from "./tools/presence.ts";
import { varTools } from "./tools/vars.ts";
import { type ListedTool, listing, type ToolContext, type ToolDefinition } from "./tool.ts";

export const TOOLS: readonly ToolDefinition[] = [
  ...planTools,
  ...contextTools,
  ...eventTools,
  ...presenceTools,
  ...lockTools,
  ...varTools,
];

const byName = new Map(TOOLS.map((t) => [t.name, t]));

/** The tools/list result, built once. */
export const TOOL_LISTING: readonly ListedTool[] = TOOLS.map(listing);

export function hasTool(name: string): boolean {
  return byName.has(name);
}

/** "roomId: Invalid roomId: …" reads badly; a field's own sentence stands alone when it already names the field. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const parts = issues.slice(0, 5).map((issue) => {
    const path = issue.path.map(String).join(".");
    if (issue.message.startsWith("Invalid roomId")) return issue.message;
    return `${path === "" ? "arguments" : path}: ${issue.message}`;
  });
  const first = parts[0] ?? "invalid arguments";
  return first.startsWith("Invalid roomId") && parts.length === 1 ? first : `Invalid arguments: ${parts.join("; ")}`;
}

export function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text: `Error: ${message}` }] };
}

/** Outcome of one call, for logging and metrics by the caller. */
export interface CallOutcome {
  result: CallToolResult;
  /** Set when the failure was not an expected RoomError: the caller logs it. */
  unexpected?: unknown;
}

/** Runs a known tool. Expected failures become tool errors; unknown ones a generic error with the request id. */
export async function callTool(
  name: string,
  args: unknown,
  ctx: ToolContext,
  requestId: string,
): Promise<CallOutcome> {
  const tool = byName.get(name);
  if (!tool) return { result: toolError(`Unknown tool: ${name}`) };
  const parsed = tool.input.safeParse(args ?? {});
  if (!parsed.success) return { result: toolError(describeIssues(parsed.error.issues)) };
  try {
    const value = await tool.handler(parsed.data as never, ctx);
    const result: CallToolResult = { content: [{ type: "text", text: JSON.stringify(value) }] };
    if (tool.output) result.structuredContent = value as Record<string, unknown>;
    return { result };
  } catch (error) {
    if (error instanceof RoomError) return { result: toolError(error.message) };
    return { result: toolError(`Internal error (request ${requestId}); retry, and report it if it persists`), unexpected: error };
  }
}
