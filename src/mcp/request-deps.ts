/** What answering one MCP request needs, in either era. */
import type { McpTracer, OnOperation } from "./operations.ts";
import type { Features, SurfaceCall } from "./surface/types.ts";
import type { Profile } from "./tool.ts";
import type { ToolRunDeps } from "./tool-run.ts";

/**
 * A count of long-lived streams (the HTTP layer's stream slots, bound to the caller's budgets: the team's, and an
 * invite's or a bound agent's own): one per subscription stream.
 */
export interface SlotTaker {
  take(): { release(): void } | { refused: string };
}

export interface McpRequestDeps extends ToolRunDeps {
  /** Which tools tools/list shows (every tool stays callable), and what a result's text is. */
  profile: Profile;
  /** Resources, prompts and completions of the profile. */
  features: Features;
  /** Subscription streams count against the process's and the team's stream limits. */
  streams: SlotTaker;
  /** Keep-alive interval of subscription streams (tests shorten it). */
  keepAliveMs?: number;
  /** Called once per MCP request or notification (the mcp.server.operation.duration histogram). */
  onOperation?: OnOperation;
  /** Spans per MCP request or notification; absent while tracing is off (operations.ts). */
  tracer?: McpTracer;
}

/**
 * The resources', prompts' and completions' view of a request (surface/types.ts SurfaceCall): the request's deps,
 * its abort signal, and what the client declared it can do (the 2025 era declares nothing per request).
 */
export function surfaceCallOf(
  deps: McpRequestDeps,
  signal: AbortSignal,
  clientCapabilities: Record<string, unknown> = {},
): SurfaceCall {
  return {
    catalog: deps.catalog,
    store: deps.store,
    live: deps.live,
    principal: deps.principal,
    requestId: deps.requestId,
    logger: deps.logger,
    signal,
    clientCapabilities,
    ...(deps.context ? { context: deps.context } : {}),
  };
}

/** What the server tells a client about its tools, per profile (legacy `instructions`, modern server/discover). */
export const INSTRUCTIONS: Record<Profile, string> = {
  full: "roomd holds a room's shared state for coding agents: plan (tasks with dependencies), typed context, an event log with your own read cursor, presence, file claims, locks and shared variables. Start each session with get_my_summary; pick work with get_unblocked_tasks; take a task with claim_task (a lease your calls keep alive); claim the files you will edit with claim_files before editing them, and release_files when done; publish contracts with write_context and consuming_agents; consume events with get_unread_events once per turn, or wait_for_events when you are waiting for someone; heartbeat about every 60 s; leave_room when you stop.",
  compact:
    "roomd: shared plan, context, events and file claims for coding agents. roomId and agentId may be left out when the X-Roomd-Room / X-Roomd-Agent headers or your key give them. Start with summary (people's messages first); take work from plan (ready: true) with claim; claim files with files before editing; update tasks with update; publish contracts and change requests with context_write, read them with context_read; between turns, wait, and post to tell others; lock anything else shared; ask before a step a person must approve; handoff to pass work on; leave when you stop.",
  agentroom:
    "AgentRoom: (1) room_state before writing; (2) room_claim each file you will create or edit; (3) on a conflict, pick another file; (4) write your claimed files; (5) room_read between subtasks; (6) room_broadcast when done, and room_release what you no longer need. The room and your agent come from the X-Roomd-Room / X-Roomd-Agent headers or your key.",
};

/** The server capabilities both eras declare: tools, resources (with subscriptions), prompts, completions. */
export const CAPABILITIES = {
  tools: {},
  resources: { subscribe: true },
  prompts: {},
  completions: {},
} as const;
