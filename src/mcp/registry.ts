/**
 * The 25 protocol tools, their tools/list entries (computed once at module load) and the call path:
 * validate arguments → run the handler → shape the result or the error for the model.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { RoomError } from "../protocol/errors.ts";
import { requiredOr } from "../protocol/payloads.ts";
import { type ListedTool, listing, type ToolContext, type ToolDefinition } from "./tool.ts";
import { contextTools } from "./tools/context.ts";
import { eventTools } from "./tools/events.ts";
import { lockTools } from "./tools/locks.ts";
import { planTools } from "./tools/plan.ts";
import { presenceTools } from "./tools/presence.ts";
import { varTools } from "./tools/vars.ts";

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

/**
 * One sentence a model can act on, naming each bad field by its path. A bad room id leads (spec: "Invalid
 * roomId: …"), since nothing else matters until the room is right.
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const text = (issue: z.core.$ZodIssue) => requiredOr(issue.message);
  const room = issues.find((i) => i.path[0] === "roomId");
  const rest = issues
    .filter((i) => i !== room)
    .slice(0, 5)
    .map((i) => `${i.path.length === 0 ? "arguments" : i.path.map(String).join(".")}: ${text(i)}`);
  if (room) {
    const head = room.message.startsWith("Invalid roomId") ? room.message : `Invalid roomId: ${text(room)}`;
    return rest.length === 0 ? head : `${head}; other invalid arguments: ${rest.join("; ")}`;
  }
  return `Invalid arguments: ${rest.join("; ")}`;
}

export function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text: `Error: ${message}` }] };
}

/** Argument names that say who is acting. */
const IDENTITY_FIELDS = ["agentId", "from", "author"] as const;

/**
 * Per tool, the identity arguments its schema requires (computed once). Optional ones are filters, such as
 * list_context's author or get_unblocked_tasks's agentId, and are never filled in.
 */
const REQUIRED_IDENTITY = new Map(
  TOOLS.map((tool) => [
    tool.name,
    IDENTITY_FIELDS.filter((field) => {
      const schema = tool.input.shape[field] as z.ZodType | undefined;
      return schema !== undefined && !schema.safeParse(undefined).success;
    }),
  ]),
);

/**
 * A key bound to an agent (and every invite) already says who is acting, so its holder may omit the identity
 * arguments a tool requires: the bound id is filled in. Naming another agent is still refused (actingAgent).
 */
function withBoundIdentity(tool: ToolDefinition, args: unknown, ctx: ToolContext): unknown {
  const bound = ctx.principal.boundAgentId;
  const given = args ?? {};
  if (bound === undefined || typeof given !== "object" || Array.isArray(given)) return given;
  const filled: Record<string, unknown> = { ...given };
  for (const field of REQUIRED_IDENTITY.get(tool.name) ?? []) filled[field] ??= bound;
  return filled;
}

/** Outcome of one call, for logging and metrics by the caller. */
export interface CallOutcome {
  result: CallToolResult;
  /** Set when the failure was not an expected RoomError: the caller logs it. */
  unexpected?: unknown;
  /**
   * Set when the store could not be reached: the name of the underlying error, for the log. Only the name: store
   * client messages can echo script arguments (digests, records).
   */
  storeFailure?: string;
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
  const parsed = tool.input.safeParse(withBoundIdentity(tool, args, ctx));
  if (!parsed.success) return { result: toolError(describeIssues(parsed.error.issues)) };
  try {
    const value = await tool.handler(parsed.data as never, ctx);
    const result: CallToolResult = { content: [{ type: "text", text: JSON.stringify(value) }] };
    if (tool.output) result.structuredContent = value as Record<string, unknown>;
    return { result };
  } catch (error) {
    if (error instanceof RoomError) {
      const cause = error.kind === "store_unavailable" ? error.cause : undefined;
      return {
        result: toolError(error.message),
        ...(error.kind === "store_unavailable"
          ? { storeFailure: cause instanceof Error ? cause.name : "unknown" }
          : {}),
      };
    }
    return {
      result: toolError(`Internal error (request ${requestId}); retry, and report it if it persists`),
      unexpected: error,
    };
  }
}
