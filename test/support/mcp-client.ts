/** The official MCP SDK client, connected over real HTTP, in JSON or SSE-framed response mode. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export type ResponseMode = "json" | "sse";

export interface RoomClient {
  client: Client;
  /** Calls a tool and returns the parsed JSON result; throws with the error text when isError. */
  call<T = unknown>(name: string, args: Record<string, unknown>): Promise<T>;
  /** Calls a tool and returns the raw result (errors included). */
  raw(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** A tool profile to list (?profile=) and extra request headers (X-Roomd-Room, X-Roomd-Agent). */
export interface ConnectOptions {
  profile?: "full" | "compact" | "agentroom";
  headers?: Record<string, string>;
}

export async function connect(
  url: string,
  secret: string,
  mode: ResponseMode = "json",
  options: ConnectOptions = {},
): Promise<RoomClient> {
  // The SDK always lists both types with equal weight; roomd then answers JSON. Preferring SSE by q-value
  // exercises the SSE-framed mode with the same client.
  const preferSse: typeof fetch = ((input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    if (headers.get("accept")?.includes("application/json")) {
      headers.set("accept", "text/event-stream, application/json;q=0.5");
    }
    return fetch(input, { ...init, headers });
  }) as typeof fetch;
  const query = options.profile ? `?profile=${options.profile}` : "";
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp${query}`), {
    requestInit: { headers: { Authorization: `Bearer ${secret}`, ...options.headers } },
    ...(mode === "sse" ? { fetch: preferSse } : {}),
  });
  const client = new Client({ name: "roomd-test", version: "1.0.0" });
  await client.connect(transport);
  const raw = (name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  return {
    client,
    raw,
    async call<T>(name: string, args: Record<string, unknown>): Promise<T> {
      const result = await raw(name, args);
      if (result.isError) throw new Error(errorText(result));
      return resultValue(result) as T;
    },
    close: () => client.close(),
  };
}

/**
 * A successful result's value: structuredContent when present (on the model-facing profiles a list comes as
 * `{items}`, model-text.ts structuredOf), else the JSON of the text (the full profile's text).
 */
export function resultValue(result: CallToolResult): unknown {
  const structured = result.structuredContent;
  if (structured === undefined) return JSON.parse(errorText(result));
  const keys = Object.keys(structured);
  return keys.length === 1 && keys[0] === "items" && Array.isArray(structured.items)
    ? structured.items
    : structured;
}

export function errorText(result: CallToolResult): string {
  return result.content[0]?.type === "text" ? result.content[0].text : "";
}

/** Everything observable about a room through the read tools, to prove a refused call changed nothing. */
export async function roomSnapshot(c: RoomClient, roomId: string): Promise<string> {
  const reads = await Promise.all([
    c.call("read_plan", { roomId }),
    c.call("list_context", { roomId }),
    c.call("read_events", { roomId, limit: 100 }),
    c.call("list_locks", { roomId }),
    c.call("list_shared_vars", { roomId }),
    c.call("get_presence", { roomId }),
  ]);
  return JSON.stringify(reads);
}
