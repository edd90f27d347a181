/**
 * Counts store round trips per tool: every tool is called through the real tool layer (callTool) on a Redis
 * store whose script client is wrapped to count calls. One evalsha (or eval) is one round trip.
 */

import { callTool, TOOLS } from "../src/mcp/registry.ts";
import type { Principal } from "../src/protocol/principal.ts";
import type { ScriptClient } from "../src/store/redis/index.ts";
import { createRedisStore } from "../src/store/redis/index.ts";

export interface CountingClient extends ScriptClient {
  count: number;
}

export function countingClient(inner: ScriptClient): CountingClient {
  const wrapped: CountingClient = {
    count: 0,
    evalsha: (sha, keys, args) => {
      wrapped.count++;
      return inner.evalsha(sha, keys, args);
    },
    eval: (script, keys, args) => {
      wrapped.count++;
      return inner.eval(script, keys, args);
    },
    ping: () => inner.ping(),
    close: () => inner.close?.(),
  };
  return wrapped;
}

const contract = {
  service: "auth",
  version: "1",
  endpoints: [{ method: "GET", path: "/me", response: {}, auth_required: true, description: "me" }],
};

export interface RoundTrips {
  /** First call of each tool on a fresh script cache (EVALSHA → NOSCRIPT → EVAL costs 2). */
  cold: Map<string, number>;
  /** Steady state: the same calls once every script is cached. */
  warm: Map<string, number>;
}

/** Round trips of each tool's own work, in tool order. Every call must succeed. */
export async function measureRoundTrips(
  inner: ScriptClient,
  driver: "redis" | "upstash",
): Promise<RoundTrips> {
  const client = countingClient(inner);
  const store = createRedisStore({ client, driver });
  const principal: Principal = { teamId: "bench", kind: "static" };
  const roomId = `rt-${crypto.randomUUID().slice(0, 8)}`;
  const call = async (name: string, args: Record<string, unknown>) => {
    const { result } = await callTool(name, { roomId, ...args }, { store, principal }, "bench");
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
    return JSON.parse((result.content[0] as { text: string }).text);
  };
  // Set-up: a room with a task, a context entry and an event for the tools to work on.
  const task = await call("add_task", { title: "a" });
  const entry = await call("write_context", {
    type: "api_contract",
    summary: "s",
    consuming_agents: ["b"],
    payload: contract,
    author: "a",
  });
  const event = await call("post_event", { type: "x", from: "a" });
  const args: Record<string, Record<string, unknown>> = {
    read_plan: {},
    add_task: { title: "b", agentId: "a" },
    update_task: { taskId: task.id, status: "in_progress", agentId: "a" },
    get_task: { taskId: task.id },
    get_unblocked_tasks: { agentId: "a" },
    get_my_tasks: { agentId: "a" },
    get_my_summary: { agentId: "a" },
    write_context: {
      type: "note",
      summary: "s",
      consuming_agents: ["b"],
      payload: { text: "t" },
      author: "a",
    },
    read_context: { id: entry.id },
    list_context: {},
    update_context: { id: entry.id, author: "a", payload: contract },
    post_event: { type: "x", from: "a" },
    read_events: {},
    get_unread_events: { agentId: "b" },
    mark_event_read: { eventId: event.id, agentId: "b" },
    get_event_reads: { eventId: event.id },
    reply_to_event: { replyToId: event.id, type: "y", from: "b" },
    heartbeat: { agentId: "a" },
    get_presence: {},
    acquire_lock: { resource: "r", agentId: "a" },
    release_lock: { resource: "r", agentId: "a" },
    list_locks: {},
    set_shared_var: { key: "k", value: "v", agentId: "a" },
    get_shared_var: { key: "k" },
    list_shared_vars: {},
  };
  const pass = async () => {
    const counts = new Map<string, number>();
    for (const tool of TOOLS) {
      const before = client.count;
      await call(tool.name, args[tool.name] ?? {});
      counts.set(tool.name, client.count - before);
    }
    return counts;
  };
  const cold = await pass();
  const warm = await pass();
  await store.close();
  return { cold, warm };
}
