/**
 * Load generator: N concurrent agents issuing raw JSON-RPC tools/call requests (stateless MCP needs no
 * initialize) against a running roomd, for a fixed number of calls, in either era of MCP. Reports throughput and
 * latency percentiles.
 */

export interface LoadResult {
  calls: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
}

export type Call = { method: string; params?: Record<string, unknown> };

/**
 * The MCP revision a load speaks. `2025`: the handshake era's requests as an already initialised stateless client
 * sends them (no version header: the requests every earlier run of these benches sent). `2026-07-28`: the
 * per-request envelope — `_meta` with the protocol version, client capabilities and client info, and the
 * `MCP-Protocol-Version`, `Mcp-Method` and (tools/call) `Mcp-Name` headers the revision requires.
 */
export type Era = "2025" | "2026-07-28";
export const ERAS: readonly Era[] = ["2025", "2026-07-28"];

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "roomd-bench", version: "1.0.0" },
};

/** The headers and body of one call in an era, beside the bearer and content headers every request carries. */
export function rpcRequest(
  era: Era,
  id: number,
  call: Call,
): { headers: Record<string, string>; body: string } {
  if (era === "2025") return { headers: {}, body: JSON.stringify({ jsonrpc: "2.0", id, ...call }) };
  const name = call.method === "tools/call" ? call.params?.name : undefined;
  return {
    headers: {
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": call.method,
      ...(typeof name === "string" ? { "Mcp-Name": name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: call.method,
      params: { ...call.params, _meta: ENVELOPE },
    }),
  };
}

export interface LoadOptions {
  /** A roomd base URL, or one per process: agents are spread over them round-robin (agent i → urls[i % n]). */
  url: string | string[];
  secret: string;
  agents: number;
  /** Total calls across all agents. */
  calls: number;
  /** Next call for agent `agent` (0-based), its `n`-th. */
  next(agent: number, n: number): Call;
  /** The MCP revision the requests speak (default `2025`). */
  era?: Era;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/**
 * The JSON-RPC answer of a response: its JSON body, or the last message of a one-request SSE stream (a server may
 * answer a client that accepts both as a stream, as SDK 2.x's stateless 2025 fallback does).
 */
export async function answerOf(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!res.headers.get("content-type")?.startsWith("text/event-stream")) return JSON.parse(text);
  const data = text.split("\n").filter((line) => line.startsWith("data:"));
  return JSON.parse(data.at(-1)?.slice(5) ?? "null") ?? {};
}

/** Runs the load to completion; every agent waits for its answer before sending its next call. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const urls = typeof options.url === "string" ? [options.url] : options.url;
  const era = options.era ?? "2025";
  const headers = {
    Authorization: `Bearer ${options.secret}`,
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
  };
  const latencies: number[] = [];
  let errors = 0;
  let issued = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.agents }, async (_, agent) => {
      for (let n = 0; issued < options.calls; n++) {
        issued++;
        const request = rpcRequest(era, n, options.next(agent, n));
        const t0 = performance.now();
        const res = await fetch(`${urls[agent % urls.length]}/mcp`, {
          method: "POST",
          headers: { ...headers, ...request.headers },
          body: request.body,
        });
        const body = (await answerOf(res)) as { error?: unknown; result?: { isError?: boolean } };
        latencies.push(performance.now() - t0);
        if (!res.ok || body.error || body.result?.isError) errors++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    calls: latencies.length,
    errors,
    seconds,
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
  };
}

/** tools/list only: the MCP transport floor, no store work. */
export const toolsList = (): Call => ({ method: "tools/list" });

const tool = (name: string, args: Record<string, unknown>): Call => ({
  method: "tools/call",
  params: { name, arguments: args },
});

/**
 * A mixed coordination workload per agent: reads dominate as in real sessions (summary, plan, unblocked, context,
 * unread), with task adds/updates, events, heartbeats, context writes and variables mixed in.
 */
export function mixedWorkload(roomIds: string[]): (agent: number, n: number) => Call {
  return (agent, n) => {
    const roomId = roomIds[agent % roomIds.length] as string;
    const agentId = `agent-${agent}`;
    switch (n % 20) {
      case 0:
        return tool("get_my_summary", { roomId, agentId });
      case 1:
      case 11:
        return tool("add_task", { roomId, title: `task ${agent}/${n}`, agentId });
      case 2:
      case 12:
        return tool("read_plan", { roomId });
      case 3:
      case 13:
        return tool("update_task", {
          roomId,
          taskId: `task-${1 + ((agent * 7 + n) % 8)}`,
          note: `n${n}`,
          agentId,
        });
      case 4:
      case 14:
        return tool("get_unblocked_tasks", { roomId, agentId });
      case 5:
      case 15:
        return tool("post_event", { roomId, type: "progress", from: agentId, payload: { n } });
      case 6:
      case 16:
        return tool("get_unread_events", { roomId, agentId, limit: 20 });
      case 7:
        return tool("heartbeat", { roomId, agentId, statusText: `step ${n}` });
      case 8:
        return tool("write_context", {
          roomId,
          type: "note",
          summary: `note ${n}`,
          consuming_agents: [],
          payload: { text: "x" },
          author: agentId,
        });
      case 9:
      case 19:
        return tool("list_context", { roomId, type: "api_contract" });
      case 10:
        return tool("set_shared_var", { roomId, key: `k${agent}`, value: String(n), agentId });
      case 17:
        return tool("get_task", { roomId, taskId: "task-1" });
      case 18:
        return tool("get_shared_var", { roomId, key: `k${agent}` });
      default:
        return tool("list_locks", { roomId });
    }
  };
}

/**
 * Writes and reads over plans of a fixed size (rooms seeded with `tasks` tasks, `task-1`…): the plan does not grow
 * during the phase, so every call works on the same room size. Per 20 calls: 11 reads (summary, plan ×2, unblocked
 * ×2, unread ×2, my tasks, a task, context list, a variable) and 9 writes (task updates ×3, events ×2, heartbeat,
 * a context entry, a variable, a lock taken and given back in the next cycle's slot).
 */
export function planWorkload(roomIds: string[], tasks: number): (agent: number, n: number) => Call {
  return (agent, n) => {
    const roomId = roomIds[agent % roomIds.length] as string;
    const agentId = `agent-${agent}`;
    const taskId = `task-${1 + ((agent * 37 + n * 11) % tasks)}`;
    switch (n % 20) {
      case 0:
        return tool("get_my_summary", { roomId, agentId });
      case 1:
      case 11:
        return tool("read_plan", { roomId });
      case 2:
      case 12:
      case 16:
        return tool("update_task", { roomId, taskId, note: `n${n}`, agentId });
      case 3:
      case 13:
        return tool("get_unblocked_tasks", { roomId, agentId });
      case 4:
      case 14:
        return tool("post_event", { roomId, type: "progress", from: agentId, payload: { n } });
      case 5:
      case 15:
        return tool("get_unread_events", { roomId, agentId, limit: 20 });
      case 6:
        return tool("heartbeat", { roomId, agentId, statusText: `step ${n}` });
      case 7:
        return tool("get_my_tasks", { roomId, agentId });
      case 8:
        return tool("write_context", {
          roomId,
          type: "note",
          summary: `note ${n}`,
          consuming_agents: [],
          payload: { text: "x" },
          author: agentId,
        });
      case 9:
        return tool("list_context", { roomId, type: "api_contract" });
      case 10:
        return tool("set_shared_var", { roomId, key: `k${agent}`, value: String(n), agentId });
      case 17:
        return tool("get_task", { roomId, taskId });
      case 18:
        return tool("acquire_lock", { roomId, resource: `r${agent}`, agentId, ttlSeconds: 60 });
      default:
        return tool("release_lock", { roomId, resource: `r${agent}`, agentId });
    }
  };
}

/** One small read, again and again: `get_shared_var` of a variable that exists. */
export function sharedVarWorkload(roomIds: string[]): (agent: number, n: number) => Call {
  return (agent) =>
    tool("get_shared_var", { roomId: roomIds[agent % roomIds.length] as string, key: "port" });
}
