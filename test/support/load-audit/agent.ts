/** One agent of the load: its name, PRNG and ledger-recording versions of the write tools. */
import { callTool, type Json } from "./call.ts";
import { type Ledger, type LockHolding, tally } from "./ledger.ts";
import type { LoadOptions } from "./load.ts";

/** Tasks the coordinator adds for every agent to update. */
export const SHARED_TASKS = 6;
/** Context entries the coordinator writes for every agent to update. */
export const SHARED_CONTEXT = 3;
/** Resources the random ops lock and release. */
export const LOCK_RESOURCES = ["res-a", "res-b", "res-c"];
/** Shared variables the random ops set. */
export const VAR_KEYS = ["port", "base_url", "branch", "owner"];
/** Page size of an agent's get_unread_events; the audit relies on it to bound what an unknown consume took. */
export const CONSUME_LIMIT = 20;

/** mulberry32: small, fast and deterministic for a given seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Ids of the shared tasks and context entries, filled in by the coordinator before the agents start. */
export interface Shared {
  tasks: string[];
  contexts: string[];
}

/** The agent id of load agent `i`. */
export const agentName = (i: number) => `agent-${String(i).padStart(2, "0")}`;

/** The load's view of one agent: its URL, PRNG and the ledger-recording versions of the write tools. */
export function agentActions(ledger: Ledger, options: LoadOptions, index: number, shared: Shared) {
  const agent = agentName(index);
  const slot = index % options.urls.length;
  const rand = prng(options.seed * 1_000_003 + index);
  const pick = <T>(items: T[]): T => items[Math.floor(rand() * items.length)] as T;
  const roomId = options.roomId;
  const own: string[] = [];
  const call = (tool: string, args: Json) =>
    callTool(
      ledger,
      { secret: options.secret, timeoutMs: options.callTimeoutMs ?? 10_000, unknownIf: options.unknownIf },
      options.urls[slot] as string,
      agent,
      tool,
      {
        roomId,
        ...args,
      },
    );

  const addTask = async (title: string) => {
    const r = await call("add_task", { title, agentId: agent, priority: Math.floor(rand() * 10) });
    if (r.outcome === "ok") {
      ledger.addedTasks.push(r.value.id);
      own.push(r.value.id);
    } else if (r.outcome === "unknown") ledger.unknownTaskAdds++;
    return r;
  };
  const updateTask = async (taskId: string, args: Json) => {
    const r = await call("update_task", { taskId, agentId: agent, ...args });
    tally(ledger.taskUpdates, taskId, r.outcome);
    return r;
  };
  const writeContext = async (args: Json) => {
    const r = await call("write_context", { author: agent, ...args });
    if (r.outcome === "ok") ledger.contextWrites.push(r.value.id);
    else if (r.outcome === "unknown") ledger.unknownContextWrites++;
    return r;
  };
  const updateContext = async (id: string, summary: string) => {
    const r = await call("update_context", { id, author: agent, summary });
    tally(ledger.contextUpdates, id, r.outcome);
    return r;
  };
  const post = async (tool: "post_event" | "reply_to_event", args: Json) => {
    const r = await call(tool, { from: agent, payload: { by: agent, n: Math.floor(rand() * 1e6) }, ...args });
    if (r.outcome === "ok") ledger.postedEvents.push(r.value.id);
    else if (r.outcome === "unknown") ledger.unknownPosts++;
    return r;
  };
  const setVar = async (key: string, value: string) => {
    const r = await call("set_shared_var", { key, value, agentId: agent });
    ledger.vars[key] ??= { ok: [], unknown: [] };
    const slot = ledger.vars[key];
    if (r.outcome === "ok") slot.ok.push(value);
    else if (r.outcome === "unknown") slot.unknown.push(value);
  };
  const consume = async (): Promise<Json[]> => {
    const r = await call("get_unread_events", { agentId: agent, limit: CONSUME_LIMIT });
    if (r.outcome === "ok") {
      ledger.deliveries[agent]?.push(...r.value.events.map((e: Json) => e.seq));
      return r.value.events;
    }
    if (r.outcome === "unknown") ledger.unknownConsumes[agent] = (ledger.unknownConsumes[agent] ?? 0) + 1;
    return [];
  };
  /** Takes the lock; returns the holding when acquired, to be passed to release(). */
  const acquire = async (resource: string, ttlSeconds: number) => {
    const r = await call("acquire_lock", { resource, agentId: agent, ttlSeconds });
    if (r.outcome !== "ok" || r.value.acquired !== true) return undefined;
    const holding: LockHolding = {
      resource,
      agent,
      fence: r.value.fence,
      acquiredAt: Date.now(),
      expiresAt: Date.parse(r.value.expiresAt),
    };
    ledger.locks.push(holding);
    return holding;
  };
  const release = async (holding: LockHolding) => {
    const sentAt = Date.now();
    const r = await call("release_lock", { resource: holding.resource, agentId: agent });
    // A failed release was not applied: the lock lives until it expires.
    if (r.outcome === "ok") holding.release = r.value.released === true ? "released" : "not-holder";
    else if (r.outcome === "unknown") holding.release = "unknown";
    if (r.outcome !== "error") holding.releaseSentAt = sentAt;
  };
  /** Waits (bounded) for an event of `type` about context `contextId` in this agent's own unread stream. */
  const awaitContextEvent = async (contextId: string): Promise<Json | undefined> => {
    for (let round = 0; round < 40; round++) {
      const found = (await consume()).find((e) => e.payload?.contextId === contextId);
      if (found) return found;
      await Bun.sleep(5);
    }
    return undefined;
  };

  return {
    agent,
    ledger,
    rand,
    pick,
    own,
    call,
    addTask,
    updateTask,
    writeContext,
    updateContext,
    post,
    setVar,
    consume,
    acquire,
    release,
    awaitContextEvent,
    shared,
  };
}

/** What an agent can do, as returned by agentActions. */
export type Actions = ReturnType<typeof agentActions>;
