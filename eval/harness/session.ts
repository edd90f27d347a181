/**
 * One agent's session in one room: the official MCP SDK client over real HTTP with the agent's bound key and its
 * tool profile, and the ledger of what the session costs — every tool call, the tokens of every result it reads,
 * a fixed output estimate per call, and once per session the context it starts with (its profile's tool list as
 * tools/list returns it, and its instructions). Real latency of each call is kept apart (it varies run to run).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Profile } from "../../src/mcp/tool.ts";
import { OUTPUT_TOKENS_PER_CALL, tokens } from "./tokens.ts";

/** What one session spent. Deterministic for a seed (latencies are kept in `Latencies`). */
export interface Ledger {
  calls: number;
  /** Tokens read once at the start: the tool list and the instructions. */
  contextTokens: number;
  /** Tokens of every result read. */
  resultTokens: number;
  /** OUTPUT_TOKENS_PER_CALL per call. */
  outputTokens: number;
  /** Calls by tool name. */
  byTool: Record<string, number>;
  /** Refused calls by the first words of their error. */
  refusals: Record<string, number>;
}

export const emptyLedger = (): Ledger => ({
  calls: 0,
  contextTokens: 0,
  resultTokens: 0,
  outputTokens: 0,
  byTool: {},
  refusals: {},
});

/** A result's value for the script (see CallResult.value). */
function resultValue(result: CallToolResult): unknown {
  const structured = result.structuredContent;
  if (structured !== undefined) {
    const keys = Object.keys(structured);
    return keys.length === 1 && keys[0] === "items" ? structured.items : structured;
  }
  try {
    return JSON.parse(result.content[0]?.type === "text" ? result.content[0].text : "");
  } catch {
    return undefined;
  }
}

export const totalTokens = (l: Ledger): number => l.contextTokens + l.resultTokens + l.outputTokens;

/** Wall-clock ms of every call but waits, by tool: the latency overhead (not deterministic, reported apart). */
export type Latencies = Map<string, number[]>;

export interface CallResult {
  ok: boolean;
  /**
   * What the script reads of a result: structuredContent when present (a list comes as `{items}` on the
   * model-facing profiles), else the parsed JSON of the first text part (undefined when it is not JSON). The
   * tokens booked are those of the text parts only: what a model reads.
   */
  value: unknown;
  /** The error text without "Error: " when refused. */
  error: string;
}

const toolListTokens = new Map<string, number>();
const clients = new Map<string, Promise<Client>>();

/**
 * One connected SDK client per agent key and profile (and room, for agentroom, whose tools take the room from the
 * X-Roomd-Room header only): roomd keeps no MCP session, so a client is only a connection set-up, and reusing it
 * for an agent's next room changes no request roomd sees but the initialize it skips. Each Session still books
 * its own starting context, as a new model session would.
 */
function clientFor(url: string, key: string, profile: Profile, roomId: string): Promise<Client> {
  const id = `${key} ${profile} ${profile === "agentroom" ? roomId : ""}`;
  let client = clients.get(id);
  if (!client) {
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp?profile=${profile}`), {
      requestInit: { headers: { Authorization: `Bearer ${key}`, "X-Roomd-Room": roomId } },
    });
    const made = new Client({ name: "roomd-eval", version: "1.0.0" });
    client = made.connect(transport).then(() => made);
    clients.set(id, client);
  }
  return client;
}

/** Closes every pooled client (at the end of a run). */
export async function closeClients(): Promise<void> {
  for (const client of clients.values()) await (await client).close();
  clients.clear();
}

export class Session {
  readonly ledger = emptyLedger();
  private constructor(
    readonly agentId: string,
    readonly roomId: string,
    readonly profile: Profile,
    private readonly client: Client,
    private readonly latencies: Latencies,
  ) {}

  /** Connects (initialize), lists the profile's tools, and books the session's starting context. */
  static async open(options: {
    url: string;
    key: string;
    agentId: string;
    roomId: string;
    profile: Profile;
    instructions: string;
    latencies: Latencies;
    /** Book only these tools of the listing (the chat arm uses four). */
    tools?: readonly string[];
  }): Promise<Session> {
    const client = await clientFor(options.url, options.key, options.profile, options.roomId);
    const booked = `${options.profile} ${options.tools?.join(",") ?? "*"}`;
    let listed = toolListTokens.get(booked);
    if (listed === undefined) {
      const listing = await client.listTools();
      const tools = options.tools
        ? listing.tools.filter((t) => (options.tools as readonly string[]).includes(t.name))
        : listing.tools;
      listed = tokens(JSON.stringify({ tools }));
      toolListTokens.set(booked, listed);
    }
    const session = new Session(options.agentId, options.roomId, options.profile, client, options.latencies);
    session.ledger.contextTokens = listed + tokens(options.instructions);
    return session;
  }

  /** One tool call, booked: the result's tokens, the output estimate, a refusal's class, the latency. */
  async call(name: string, args: Record<string, unknown>, timed = true): Promise<CallResult> {
    const started = performance.now();
    const result = (await this.client.callTool({ name, arguments: args })) as CallToolResult;
    if (timed) {
      const list = this.latencies.get(name) ?? [];
      list.push(performance.now() - started);
      this.latencies.set(name, list);
    }
    const text = result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
    const l = this.ledger;
    l.calls++;
    l.byTool[name] = (l.byTool[name] ?? 0) + 1;
    l.resultTokens += tokens(text);
    l.outputTokens += OUTPUT_TOKENS_PER_CALL;
    if (result.isError) {
      const error = text.replace(/^Error:\s*/, "");
      const kind = error.split(/[:;(]/)[0]?.split(" ").slice(0, 4).join(" ") ?? "error";
      l.refusals[kind] = (l.refusals[kind] ?? 0) + 1;
      return { ok: false, value: undefined, error };
    }
    return { ok: true, value: resultValue(result), error: "" };
  }

  /** Like call, but a refusal is a bug of the script: it throws with the error. */
  async must<T = Record<string, unknown>>(name: string, args: Record<string, unknown>): Promise<T> {
    const r = await this.call(name, args);
    if (!r.ok) throw new Error(`${this.agentId} ${name} in ${this.roomId}: ${r.error}`);
    return r.value as T;
  }

  /** Ends the session (its client stays pooled for the agent's next room; see clientFor). */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Adds `b` into `a`. */
export function addLedger(a: Ledger, b: Ledger): Ledger {
  a.calls += b.calls;
  a.contextTokens += b.contextTokens;
  a.resultTokens += b.resultTokens;
  a.outputTokens += b.outputTokens;
  for (const [k, v] of Object.entries(b.byTool)) a.byTool[k] = (a.byTool[k] ?? 0) + v;
  for (const [k, v] of Object.entries(b.refusals)) a.refusals[k] = (a.refusals[k] ?? 0) + v;
  return a;
}
