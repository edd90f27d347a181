/**
 * A deterministic multi-agent load against one or more roomd processes sharing a store, and an audit of the room
 * afterwards against the ledger of what the load saw acknowledged. Used by the scale-out and fault tests and by
 * the bench scripts, so it imports nothing from bun:test.
 *
 * Outcomes: a call that answered (tool result, error or not) is known; a call that timed out or whose connection
 * broke mid-request is "unknown" (it may or may not have been applied) and loosens the audit by exactly that
 * call; a refused connection never reached roomd and counts as not applied.
 */

type Json = Record<string, any>;

export interface LoadOptions {
  /** roomd base URLs; read on every call, so a test may point a slot at a replacement process mid-load. */
  urls: string[];
  secret: string;
  /** Number of agents (the scale tests use 32), spread round-robin over `urls`. */
  agents: number;
  opsPerAgent: number;
  roomId: string;
  seed: number;
  /** Pause between one agent's random ops, to stretch a load over a fault window (default 0). */
  thinkMs?: number;
  /** A call that has not answered after this long is abandoned as unknown-outcome (default 10 s). */
  callTimeoutMs?: number;
}

export type Outcome = "ok" | "error" | "unknown";

export interface CallRecord {
  agent: string;
  url: string;
  tool: string;
  /** Client clock (Date.now()) when the request was sent and when its answer (or failure) arrived. */
  startedAt: number;
  endedAt: number;
  outcome: Outcome;
  /** Tool error text (`Error: …`), HTTP status text, or the transport failure. */
  error?: string;
  status?: number;
}

/** One successful acquire_lock, with the client-side window in which the agent surely held the lock. */
export interface LockHolding {
  resource: string;
  agent: string;
  fence: number;
  /** When the acquire answered (the lock was taken before this). */
  acquiredAt: number;
  expiresAt: number;
  /** When release_lock was sent, and what came of it (none: never sent, or refused before reaching roomd). */
  releaseSentAt?: number;
  release?: "released" | "not-holder" | "unknown";
}

interface Tally {
  ok: number;
  unknown: number;
}

export interface Ledger {
  roomId: string;
  /** Agents that consume their own cursor; the audit drains each of them. */
  agents: string[];
  calls: CallRecord[];
  addedTasks: string[];
  unknownTaskAdds: number;
  taskUpdates: Record<string, Tally>;
  contextWrites: string[];
  unknownContextWrites: number;
  contextUpdates: Record<string, Tally>;
  postedEvents: string[];
  unknownPosts: number;
  /** Seqs delivered to each agent by get_unread_events during the load. */
  deliveries: Record<string, number[]>;
  unknownConsumes: Record<string, number>;
  locks: LockHolding[];
  vars: Record<string, { ok: string[]; unknown: string[] }>;
  /** Producer/consumer pairs whose handoff went through every step. */
  handoffsCompleted: number;
}

export interface RunningLoad {
  ledger: Ledger;
  /** Fraction of the random ops done so far (0…1). */
  progress(): number;
  /** Pairs whose whitepaper handoff has not finished yet. */
  handoffsPending(): number;
  done: Promise<Ledger>;
}

const SHARED_TASKS = 6;
const SHARED_CONTEXT = 3;
const LOCK_RESOURCES = ["res-a", "res-b", "res-c"];
const VAR_KEYS = ["port", "base_url", "branch", "owner"];
const CONSUME_LIMIT = 20;

/** mulberry32: small, fast and deterministic for a given seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function newLedger(roomId: string, agents: string[]): Ledger {
  return {
    roomId,
    agents,
    calls: [],
    addedTasks: [],
    unknownTaskAdds: 0,
    taskUpdates: {},
    contextWrites: [],
    unknownContextWrites: 0,
    contextUpdates: {},
    postedEvents: [],
    unknownPosts: 0,
    deliveries: Object.fromEntries(agents.map((a) => [a, []])),
    unknownConsumes: {},
    locks: [],
    vars: {},
    handoffsCompleted: 0,
  };
}

type CallResult = { outcome: "ok"; value: Json } | { outcome: "error" | "unknown"; error: string };

/** One raw JSON-RPC tools/call with a deadline; never throws, records the call in the ledger. */
async function callTool(
  ledger: Ledger,
  options: { secret: string; timeoutMs: number },
  url: string,
  agent: string,
  tool: string,
  args: Json,
): Promise<CallResult> {
  const record: CallRecord = { agent, url, tool, startedAt: Date.now(), endedAt: 0, outcome: "unknown" };
  let result: CallResult;
  try {
    const res = await fetch(`${url}/mcp`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${options.secret}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: tool, arguments: args },
      }),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    record.status = res.status;
    const body = (await res.json().catch(() => undefined)) as Json | undefined;
    const text: string | undefined = body?.result?.content?.[0]?.text;
    if (res.status !== 200 || text === undefined) {
      // An HTTP-level failure (5xx, non-JSON-RPC answer): roomd may have done part of the work, so unknown.
      result = { outcome: "unknown", error: `HTTP ${res.status}: ${JSON.stringify(body).slice(0, 200)}` };
    } else if (body?.result?.isError === true) {
      result = { outcome: "error", error: text };
    } else {
      result = { outcome: "ok", value: JSON.parse(text) };
    }
  } catch (error) {
    const e = error as { code?: string; name?: string; message?: string };
    // Refused: the request never reached roomd. Anything else (timeout, reset mid-request) may have been applied.
    const refused = e.code === "ECONNREFUSED" || e.code === "ConnectionRefused";
    result = { outcome: refused ? "error" : "unknown", error: `${e.code ?? e.name}: ${e.message}` };
  }
  record.endedAt = Date.now();
  record.outcome = result.outcome;
  if (result.outcome !== "ok") record.error = result.error;
  ledger.calls.push(record);
  return result;
}

function tally(map: Record<string, Tally>, id: string, outcome: Outcome): void {
  map[id] ??= { ok: 0, unknown: 0 };
  const t = map[id];
  if (outcome === "ok") t.ok++;
  else if (outcome === "unknown") t.unknown++;
}

/** The load's view of one agent: its URL, PRNG and the ledger-recording versions of the write tools. */
function agentActions(ledger: Ledger, options: LoadOptions, index: number, shared: Shared) {
  const agent = agentName(index);
  const slot = index % options.urls.length;
  const rand = prng(options.seed * 1_000_003 + index);
  const pick = <T>(items: T[]): T => items[Math.floor(rand() * items.length)] as T;
  const roomId = options.roomId;
  const own: string[] = [];
  const call = (tool: string, args: Json) =>
    callTool(
      ledger,
      { secret: options.secret, timeoutMs: options.callTimeoutMs ?? 10_000 },
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

type Actions = ReturnType<typeof agentActions>;

interface Shared {
  tasks: string[];
  contexts: string[];
}

const agentName = (i: number) => `agent-${String(i).padStart(2, "0")}`;

/**
 * The whitepaper handoff between a producer and its consumer: the producer takes `plan`, claims its task and
 * releases; publishes an API contract for the consumer; the consumer finds it in its events and sends a
 * change_request back; the producer revises the contract and replies to the request's event.
 */
async function handoff(p: Actions, c: Actions): Promise<void> {
  const added = await p.addTask(`${p.agent}: build the orders API`);
  let plan: LockHolding | undefined;
  for (let attempt = 0; attempt < 60 && !plan; attempt++) {
    plan = await p.acquire("plan", 60);
    if (!plan) await Bun.sleep(2 + Math.floor(p.rand() * 10));
  }
  if (added.outcome === "ok") await p.updateTask(added.value.id, { owner: p.agent, status: "in_progress" });
  if (plan) await p.release(plan);
  const contract = await p.writeContext({
    type: "api_contract",
    summary: `Orders API by ${p.agent}`,
    consuming_agents: [c.agent],
    payload: {
      service: "orders",
      version: "1.0.0",
      endpoints: [
        {
          method: "GET",
          path: "/orders",
          response: { items: "Order[]" },
          auth_required: true,
          description: "list",
        },
      ],
    },
  });
  if (contract.outcome !== "ok") return;
  const contractId: string = contract.value.id;
  await c.awaitContextEvent(contractId);
  const request = await c.writeContext({
    type: "change_request",
    summary: `${c.agent} needs pagination on /orders`,
    consuming_agents: [p.agent],
    payload: {
      requested_by: c.agent,
      target_agent: p.agent,
      description: "add ?cursor= to GET /orders",
      urgency: "medium",
    },
  });
  await p.updateContext(contractId, `Orders API by ${p.agent}, paginated`);
  if (request.outcome !== "ok") return;
  const asked = await p.awaitContextEvent(request.value.id);
  if (!asked) return;
  const reply = await p.post("reply_to_event", {
    replyToId: asked.id,
    type: "change_request_done",
    to: c.agent,
  });
  if (reply.outcome === "ok") p.ledger.handoffsCompleted++;
}

/** One random op, chosen by weight with the agent's PRNG. */
async function randomOp(a: Actions, agents: number): Promise<void> {
  const roll = a.rand() * 100;
  if (roll < 14) {
    await a.addTask(`${a.agent} task ${Math.floor(a.rand() * 1e6)}`);
  } else if (roll < 34) {
    const pool = a.own.length > 0 && a.rand() < 0.4 ? a.own : a.shared.tasks;
    const status = a.rand() < 0.3 ? { status: a.pick(["pending", "in_progress", "blocked"]) } : {};
    await a.updateTask(a.pick(pool), {
      note: `${a.agent} progress ${Math.floor(a.rand() * 1e6)}`,
      ...status,
    });
  } else if (roll < 48) {
    const to = a.rand() < 0.5 ? "all" : agentName(Math.floor(a.rand() * agents));
    await a.post("post_event", { type: "status", to });
  } else if (roll < 63) {
    await a.consume();
  } else if (roll < 73) {
    await a.updateContext(a.pick(a.shared.contexts), `${a.agent} revised ${Math.floor(a.rand() * 1e6)}`);
  } else if (roll < 81) {
    const key = a.pick(VAR_KEYS);
    const value = `${a.agent}:${Math.floor(a.rand() * 1e6)}`;
    await a.setVar(key, value);
  } else if (roll < 94) {
    const holding = await a.acquire(a.pick(LOCK_RESOURCES), 60);
    if (holding) {
      await Bun.sleep(Math.floor(a.rand() * 4));
      await a.release(holding);
    }
  } else {
    if (a.rand() < 0.5) await a.call("read_plan", {});
    else await a.call("get_unblocked_tasks", { agentId: a.agent });
  }
}

/** Starts the load and returns at once; `done` resolves with the ledger when every agent has finished. */
export function startScaleLoad(options: LoadOptions): RunningLoad {
  const names = Array.from({ length: options.agents }, (_, i) => agentName(i));
  const ledger = newLedger(options.roomId, names);
  const shared: Shared = { tasks: [], contexts: [] };
  let opsDone = 0;
  let pending = Math.floor(options.agents / 2);
  const total = options.agents * options.opsPerAgent;

  const run = async () => {
    // Setup by a coordinator that never consumes: shared tasks and context entries everyone updates.
    const coordinator = agentActions(ledger, { ...options, agents: 1 }, options.agents, shared);
    for (let i = 0; i < SHARED_TASKS; i++) {
      const r = await coordinator.addTask(`shared task ${i}`);
      if (r.outcome !== "ok") throw new Error(`load setup failed: add_task: ${r.error}`);
      shared.tasks.push(r.value.id);
    }
    for (let i = 0; i < SHARED_CONTEXT; i++) {
      const r = await coordinator.writeContext({
        type: "note",
        summary: `shared note ${i}`,
        consuming_agents: [agentName(0), agentName(1)],
        payload: { text: `shared note ${i}` },
      });
      if (r.outcome !== "ok") throw new Error(`load setup failed: write_context: ${r.error}`);
      shared.contexts.push(r.value.id);
    }
    const actors = names.map((_, i) => agentActions(ledger, options, i, shared));
    // A pair's random ops wait for its handoff, so the consumer's own reads cannot swallow the contract event.
    const handoffs = actors.map((a, i) =>
      i % 2 === 0 && actors[i + 1]
        ? handoff(a, actors[i + 1] as Actions).finally(() => pending--)
        : Promise.resolve(),
    );
    await Promise.all(
      actors.map(async (a, i) => {
        await handoffs[i - (i % 2)];
        for (let n = 0; n < options.opsPerAgent; n++) {
          await randomOp(a, options.agents);
          opsDone++;
          if (options.thinkMs) await Bun.sleep(options.thinkMs);
        }
      }),
    );
    return ledger;
  };
  return { ledger, progress: () => opsDone / total, handoffsPending: () => pending, done: run() };
}

/** Runs the whole load and resolves with its ledger. */
export function runScaleLoad(options: LoadOptions): Promise<Ledger> {
  return startScaleLoad(options).done;
}

export interface AuditReport {
  tasks: number;
  events: number;
  maxSeq: number;
  /** Acknowledged add_task ids missing from the plan. */
  lostTasks: string[];
  /** Plan tasks nobody acknowledged, beyond the number of unknown-outcome adds. */
  unexplainedTasks: number;
  /** Acknowledged update_task calls missing from task versions (version - 1 < acknowledged). */
  lostTaskUpdates: number;
  /** Applied updates beyond acknowledged + unknown-outcome ones. */
  unexplainedTaskUpdates: number;
  lostContextWrites: string[];
  lostContextUpdates: number;
  unexplainedContextUpdates: number;
  /** Acknowledged post_event / reply_to_event ids missing from the log. */
  lostEvents: string[];
  /** Seqs missing from 1..max, plus seqs present more than once. */
  eventSeqGaps: number;
  /** Writes whose record and event disagree: a task without task_added (or the reverse), a version without its event. */
  halfWritten: string[];
  duplicateDeliveries: Record<string, number>;
  /** Addressed events never delivered, not explained by an unknown-outcome get_unread_events of that agent. */
  missingDeliveries: Record<string, number>;
  /** Missing deliveries explained by unknown-outcome consumes (kept apart, not a failure). */
  unknownOutcomeDeliveries: Record<string, number>;
  /** Events delivered to an agent they were not addressed to. */
  misdirectedDeliveries: Record<string, number>;
  lockOverlaps: string[];
  /** Shared variables whose final value nobody wrote. */
  varMismatches: string[];
  /** Calls whose outcome is unknown (timeouts, broken connections), by tool. */
  unknownOutcomes: Record<string, number>;
  /** Tool error texts, with digits and agent names folded so kinds group together, by count. */
  errorKinds: Record<string, number>;
}

/** Folds the variable parts of an error text (ids, agents, times) so errors of one kind group together. */
export function errorKind(text: string): string {
  return text
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<time>")
    .replace(/agent-\d+/g, "<agent>")
    .replace(/\d+/g, "<n>");
}

const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

/** Every nonzero failure count of a report, as readable lines ([] when the audit is clean). */
export function auditProblems(report: AuditReport): string[] {
  const detail = (items: string[]) => `${items.length} (${items.slice(0, 5).join("; ")})`;
  const perAgent = (r: Record<string, number>) => `${sum(r)} ${JSON.stringify(r)}`;
  const found: [string, number, string][] = [
    ["lostTasks", report.lostTasks.length, detail(report.lostTasks)],
    ["unexplainedTasks", report.unexplainedTasks, String(report.unexplainedTasks)],
    ["lostTaskUpdates", report.lostTaskUpdates, String(report.lostTaskUpdates)],
    ["unexplainedTaskUpdates", report.unexplainedTaskUpdates, String(report.unexplainedTaskUpdates)],
    ["lostContextWrites", report.lostContextWrites.length, detail(report.lostContextWrites)],
    ["lostContextUpdates", report.lostContextUpdates, String(report.lostContextUpdates)],
    ["unexplainedContextUpdates", report.unexplainedContextUpdates, String(report.unexplainedContextUpdates)],
    ["lostEvents", report.lostEvents.length, detail(report.lostEvents)],
    ["eventSeqGaps", report.eventSeqGaps, String(report.eventSeqGaps)],
    ["halfWritten", report.halfWritten.length, detail(report.halfWritten)],
    ["duplicateDeliveries", sum(report.duplicateDeliveries), perAgent(report.duplicateDeliveries)],
    ["missingDeliveries", sum(report.missingDeliveries), perAgent(report.missingDeliveries)],
    ["misdirectedDeliveries", sum(report.misdirectedDeliveries), perAgent(report.misdirectedDeliveries)],
    ["lockOverlaps", report.lockOverlaps.length, detail(report.lockOverlaps)],
    ["varMismatches", report.varMismatches.length, detail(report.varMismatches)],
  ];
  return found.filter(([, n]) => n > 0).map(([name, , text]) => `${name}: ${text}`);
}

async function auditCall(url: string, secret: string, tool: string, args: Json): Promise<any> {
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${secret}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: tool, arguments: args },
    }),
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await res.json()) as Json;
  const text: string = body?.result?.content?.[0]?.text ?? JSON.stringify(body);
  if (res.status !== 200 || body?.result?.isError)
    throw new Error(`audit ${tool} failed (${res.status}): ${text}`);
  return JSON.parse(text);
}

/** The whole log, oldest first, paged back with `before`. */
async function readLog(url: string, secret: string, roomId: string): Promise<Json[]> {
  const events: Json[] = [];
  let before: number | undefined;
  for (let page = 0; page < 10_000; page++) {
    const batch: Json[] = await auditCall(url, secret, "read_events", {
      roomId,
      limit: 100,
      ...(before !== undefined ? { before } : {}),
    });
    if (batch.length === 0) break;
    events.push(...batch);
    before = batch[batch.length - 1]?.seq;
  }
  return events.reverse();
}

/** Applied vs acknowledged per record: lost when fewer applied, unexplained when more than ok + unknown. */
function compareVersions(applied: Map<string, number>, ledger: Record<string, Tally>) {
  let lost = 0;
  let unexplained = 0;
  for (const [id, t] of Object.entries(ledger)) {
    const n = applied.get(id) ?? 0;
    lost += Math.max(0, t.ok - n);
    unexplained += Math.max(0, n - t.ok - t.unknown);
  }
  return { lost, unexplained };
}

function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
}

/** The end of the window in which a holder surely held its lock: its release (if one may have landed) or expiry. */
const surelyHeldUntil = (h: LockHolding) => Math.min(h.releaseSentAt ?? h.expiresAt, h.expiresAt);

/**
 * Mutual exclusion per resource: by fence, strictly increasing fences and no surely-overlapping holdings (the
 * next holder's acquire answered before the previous holder even sent its release). A release answered
 * released=false, although the TTL is far from over, means the lock was taken from its holder.
 */
function lockOverlaps(holdings: LockHolding[]): string[] {
  const out: string[] = [];
  const byResource = new Map<string, LockHolding[]>();
  for (const h of holdings) byResource.set(h.resource, [...(byResource.get(h.resource) ?? []), h]);
  for (const [resource, list] of byResource) {
    const sorted = [...list].sort((a, b) => a.fence - b.fence || a.acquiredAt - b.acquiredAt);
    // The same holder acquiring again before a confirmed release renews (same fence): one longer holding.
    const merged: LockHolding[] = [];
    for (const h of sorted) {
      const last = merged[merged.length - 1];
      if (last && last.fence === h.fence && last.agent === h.agent && last.release !== "released") {
        merged[merged.length - 1] = { ...h, acquiredAt: last.acquiredAt };
      } else merged.push(h);
    }
    for (const h of sorted) {
      if (h.release === "not-holder" && (h.releaseSentAt ?? 0) < h.expiresAt) {
        out.push(`${resource}: ${h.agent} (fence ${h.fence}) lost the lock before its expiry`);
      }
    }
    for (let i = 1; i < merged.length; i++) {
      const prev = merged[i - 1] as LockHolding;
      const next = merged[i] as LockHolding;
      if (next.fence <= prev.fence) {
        out.push(`${resource}: fence ${next.fence} (${next.agent}) not above ${prev.fence} (${prev.agent})`);
      }
      if (next.acquiredAt < surelyHeldUntil(prev)) {
        out.push(
          `${resource}: ${next.agent} (fence ${next.fence}) acquired while ${prev.agent} (fence ${prev.fence}) held it`,
        );
      }
    }
  }
  return out;
}

/** Missing seqs of one agent, split into those an unknown-outcome consume can explain and the rest. */
function splitMissing(addressed: number[], missing: Set<number>, unknownConsumes: number) {
  // An unknown consume advanced the cursor by at most CONSUME_LIMIT consecutive addressed events.
  const runs: number[] = [];
  let run = 0;
  for (const seq of addressed) {
    if (missing.has(seq)) run++;
    else if (run > 0) {
      runs.push(run);
      run = 0;
    }
  }
  if (run > 0) runs.push(run);
  runs.sort((a, b) => b - a);
  let explained = 0;
  for (const [i, length] of runs.entries()) {
    if (i < unknownConsumes) explained += Math.min(length, CONSUME_LIMIT);
  }
  return { explained, unexplained: missing.size - explained };
}

/**
 * Reads the room after the load (plan, context, the whole event log, a final drain of every agent's cursor) and
 * checks it against the ledger. Run it only when the load has finished and the store is healthy.
 */
export async function audit(
  url: string,
  secret: string,
  roomId: string,
  ledger: Ledger,
): Promise<AuditReport> {
  const plan = await auditCall(url, secret, "read_plan", { roomId });
  const entries: Json[] = await auditCall(url, secret, "list_context", { roomId });
  const contexts = await Promise.all(
    entries.map((e) => auditCall(url, secret, "read_context", { roomId, id: e.id }) as Promise<Json>),
  );
  const log = await readLog(url, secret, roomId);
  const maxSeq = log.reduce((m, e) => Math.max(m, e.seq), 0);

  // Final drain: every agent consumes what is left of its cursor.
  const delivered: Record<string, number[]> = {};
  for (const agent of ledger.agents) {
    const seqs = [...(ledger.deliveries[agent] ?? [])];
    for (let round = 0; round < 10_000; round++) {
      const batch = await auditCall(url, secret, "get_unread_events", { roomId, agentId: agent, limit: 100 });
      seqs.push(...batch.events.map((e: Json) => e.seq));
      if (batch.count === 0) break;
    }
    delivered[agent] = seqs.filter((s) => s <= maxSeq);
  }

  const tasks: Json[] = plan.tasks;
  const planIds = new Set(tasks.map((t) => t.id));
  const ackedTasks = new Set(ledger.addedTasks);
  const halfWritten: string[] = [];
  const addedEvents = new Set(log.filter((e) => e.type === "task_added").map((e) => e.payload?.task?.id));
  for (const id of planIds) if (!addedEvents.has(id)) halfWritten.push(`task ${id} has no task_added event`);
  for (const id of addedEvents)
    if (!planIds.has(id)) halfWritten.push(`task_added for ${id} but no such task`);
  const taskEvents = countBy(
    log.filter((e) => e.type === "task_updated"),
    (e) => e.payload?.task?.id,
  );
  for (const t of tasks) {
    if ((taskEvents[t.id] ?? 0) !== t.version - 1) {
      halfWritten.push(
        `task ${t.id} at version ${t.version} has ${taskEvents[t.id] ?? 0} task_updated events`,
      );
    }
  }
  const contextEvents = countBy(
    log.filter((e) => e.type === "context_updated"),
    (e) => e.payload?.contextId,
  );
  const contextMinor = new Map(
    contexts.map((c) => [c.id as string, Number(String(c.version).split(".")[1])]),
  );
  for (const c of contexts) {
    const minor = contextMinor.get(c.id) ?? 0;
    if (c.consuming_agents.length > 0 && (contextEvents[c.id] ?? 0) !== minor) {
      halfWritten.push(
        `context ${c.id} at ${c.version} has ${contextEvents[c.id] ?? 0} context_updated events`,
      );
    }
  }

  const taskVersions = compareVersions(
    new Map(tasks.map((t) => [t.id as string, t.version - 1])),
    ledger.taskUpdates,
  );
  const contextVersions = compareVersions(contextMinor, ledger.contextUpdates);

  const seqCounts = countBy(log, (e) => String(e.seq));
  const duplicatedSeqs = Object.values(seqCounts).reduce((n, c) => n + c - 1, 0);
  const eventSeqGaps = maxSeq - Object.keys(seqCounts).length + duplicatedSeqs;
  const logIds = new Set(log.map((e) => e.id));

  const duplicateDeliveries: Record<string, number> = {};
  const missingDeliveries: Record<string, number> = {};
  const unknownOutcomeDeliveries: Record<string, number> = {};
  const misdirectedDeliveries: Record<string, number> = {};
  const toBySeq = new Map(log.map((e) => [e.seq as number, e.to as string]));
  for (const agent of ledger.agents) {
    const seqs = delivered[agent] ?? [];
    const counts = countBy(seqs, String);
    const dup = Object.values(counts).reduce((n, c) => n + c - 1, 0);
    const misdirected = Object.keys(counts).filter((s) => {
      const to = toBySeq.get(Number(s));
      return to !== "all" && to !== agent;
    }).length;
    const addressed = log.filter((e) => e.to === "all" || e.to === agent).map((e) => e.seq as number);
    const missing = new Set(addressed.filter((s) => counts[String(s)] === undefined));
    const split = splitMissing(addressed, missing, ledger.unknownConsumes[agent] ?? 0);
    if (dup) duplicateDeliveries[agent] = dup;
    if (misdirected) misdirectedDeliveries[agent] = misdirected;
    if (split.unexplained) missingDeliveries[agent] = split.unexplained;
    if (split.explained) unknownOutcomeDeliveries[agent] = split.explained;
  }

  const vars: Record<string, string> = (await auditCall(url, secret, "list_shared_vars", { roomId })).vars;
  const varMismatches = Object.entries(ledger.vars)
    .filter(([key, w]) => {
      const value = vars[key];
      if (value === undefined) return w.ok.length > 0;
      return !w.ok.includes(value) && !w.unknown.includes(value);
    })
    .map(([key]) => `${key} = ${JSON.stringify(vars[key])}`);

  const failed = ledger.calls.filter((c) => c.outcome !== "ok");
  return {
    tasks: tasks.length,
    events: log.length,
    maxSeq,
    lostTasks: ledger.addedTasks.filter((id) => !planIds.has(id)),
    unexplainedTasks: Math.max(
      0,
      [...planIds].filter((id) => !ackedTasks.has(id)).length - ledger.unknownTaskAdds,
    ),
    lostTaskUpdates: taskVersions.lost,
    unexplainedTaskUpdates: taskVersions.unexplained,
    lostContextWrites: ledger.contextWrites.filter((id) => !contextMinor.has(id)),
    lostContextUpdates: contextVersions.lost,
    unexplainedContextUpdates: contextVersions.unexplained,
    lostEvents: ledger.postedEvents.filter((id) => !logIds.has(id)),
    eventSeqGaps,
    halfWritten,
    duplicateDeliveries,
    missingDeliveries,
    unknownOutcomeDeliveries,
    misdirectedDeliveries,
    lockOverlaps: lockOverlaps(ledger.locks),
    varMismatches,
    unknownOutcomes: countBy(
      failed.filter((c) => c.outcome === "unknown"),
      (c) => c.tool,
    ),
    errorKinds: countBy(
      failed.filter((c) => c.outcome === "error"),
      (c) => errorKind(c.error ?? ""),
    ),
  };
}
