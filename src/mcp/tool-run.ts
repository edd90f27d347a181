/**
 * One tools/call as both eras run it: the rate limit's refusal or the one call path (call-path.ts), then one log
 * line, the metrics, and the log of an unexpected failure or an unreachable store.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { LiveRooms } from "../live/hub.ts";
import { describeError, type Logger } from "../log.ts";
import type { JsonText } from "../protocol/json-text.ts";
import type { Principal } from "../protocol/principal.ts";
import type { RoomStore } from "../store/types.ts";
import { type CallContext, callTool, type ToolOutcome, toolError } from "./call-path.ts";
import type { Catalog } from "./catalog.ts";
import { MODEL_FACING, type Profile, type RequestIO } from "./tool.ts";

export interface ToolRunDeps {
  catalog: Catalog;
  store: RoomStore;
  live: LiveRooms;
  principal: Principal;
  logger: Logger;
  requestId: string;
  context?: CallContext;
  /** Called once per tools/call: the tool (a catalog name, or "unknown"), how it ended, and its seconds. */
  onToolCall?: (tool: string, outcome: ToolOutcome, seconds: number) => void;
  /** The caller's budget is spent: tool calls answer this refusal without running. */
  rateLimited?: string;
  /** The profile the client asked for: model-facing ones get results written for a model (call-path.ts). */
  profile?: Profile;
}

/** Runs one tool call: its result, and (when set) the answer's JSON text the result's text content holds. */
export async function runTool(
  deps: ToolRunDeps,
  name: string,
  args: Record<string, unknown> | undefined,
  signal: AbortSignal,
  io?: RequestIO,
): Promise<{ result: CallToolResult; json?: JsonText }> {
  const started = performance.now();
  const { result, outcome, unexpected, storeFailure, json } =
    deps.rateLimited !== undefined
      ? { result: toolError(deps.rateLimited), outcome: "rate_limited" as const }
      : await callTool(deps.catalog, name, args, {
          store: deps.store,
          live: deps.live,
          principal: deps.principal,
          requestId: deps.requestId,
          signal,
          ...(io ? { io } : {}),
          ...(deps.context ? { context: deps.context } : {}),
          ...(deps.profile && MODEL_FACING.has(deps.profile) ? { resultText: "model" as const } : {}),
        });
  const seconds = (performance.now() - started) / 1000;
  // Only catalog names reach the log and the metrics: any other name is the client's text (also when the call
  // was refused for the rate limit before the name was looked at).
  const tool = deps.catalog.get(name) ? name : "unknown";
  if (unexpected !== undefined) {
    deps.logger.log("error", "tool failed", {
      requestId: deps.requestId,
      tool,
      driver: deps.store.driver,
      ...describeError(unexpected),
    });
  }
  if (storeFailure !== undefined) {
    deps.logger.log("warn", "store unavailable", { requestId: deps.requestId, tool, cause: storeFailure });
  }
  if (deps.logger.enabled?.("info") ?? true) {
    deps.logger.log("info", "tool call", {
      requestId: deps.requestId,
      tool,
      outcome,
      ms: Math.round(seconds * 1e6) / 1000,
    });
  }
  deps.onToolCall?.(tool, outcome, seconds);
  return json === undefined ? { result } : { result, json };
}
