/**
 * The contract every handoff scenario passes around, and how an agent of each arm publishes it, asks for a change
 * and learns of a version: a context entry (room arms), an event carrying it (room-no-context) or a message
 * restating it in full (chat). `versionSeen` reads only what the agent itself has read.
 */
import type { Actor } from "../harness/actor.ts";
import type { EventLike } from "../harness/ops.ts";

export interface Contract {
  service: string;
  version: string;
  endpoints: {
    method: string;
    path: string;
    response: { fields: string[] };
    auth_required: boolean;
    description: string;
  }[];
}

/** Version n (1.0, 1.1, …) of the orders contract with these response fields. */
export function contract(n: number, fields: string[]): Contract {
  return {
    service: "orders",
    version: `1.${n}`,
    endpoints: [
      {
        method: "GET",
        path: "/orders",
        response: { fields },
        auth_required: true,
        description: "List the caller's orders, newest first.",
      },
      {
        method: "POST",
        path: "/orders",
        response: { fields: ["id", "status"] },
        auth_required: true,
        description: "Place an order.",
      },
    ],
  };
}

export const BASE_FIELDS = ["id", "status", "total", "created_at"];

/** Where the published contract lives: the context entry's id (room arms) once written. */
export interface Published {
  contextId: string | null;
  version: string;
  /** Virtual ms at which each version was published. */
  times: Map<string, number>;
}

export async function publish(a: Actor, p: Published, c: Contract, consumer: string): Promise<void> {
  const { rules } = a.world;
  p.version = c.version;
  p.times.set(c.version, a.now);
  if (rules.context) {
    const summary = `Orders API ${c.version}: GET/POST /orders`;
    if (p.contextId === null)
      p.contextId = (await a.ops.writeContext("api_contract", summary, c, [consumer])).id;
    else await a.ops.updateContext(p.contextId, summary, c);
  } else if (rules.plan) await a.ops.post("api_contract", consumer, { contract: c });
  else await a.say(`CONTRACT orders ${c.version} (in full below)`, { contract: c });
}

export const versionOf = (e: EventLike): string | null => {
  const p = e.payload;
  if (e.type === "context_available" && p.contextType === "api_contract") return "1.0";
  if (e.type === "context_updated" && p.contextType === "api_contract") return String(p.version);
  const c = p.contract as Contract | undefined;
  return c && typeof c.version === "string" ? c.version : null;
};

/** The newest contract version the agent has seen in what it read, and the id of the entry (room arms). */
export function versionSeen(a: Actor): { version: string | null; contextId: string | null } {
  let version: string | null = null;
  let contextId: string | null = null;
  for (const e of a.seen) {
    const v = versionOf(e);
    if (v === null) continue;
    if (version === null || Number(v.split(".")[1]) > Number(version.split(".")[1])) version = v;
    if (typeof e.payload.contextId === "string") contextId = e.payload.contextId;
  }
  return { version, contextId };
}

/** Records, as the agent reads, when it first saw each version (virtual ms). */
export function trackVersions(a: Actor, into: Map<string, number>): void {
  const note = (events: EventLike[]) => {
    for (const e of events) {
      const v = versionOf(e);
      if (v !== null && !into.has(v)) into.set(v, a.now);
    }
  };
  note(a.seen);
  a.onSeen.push(note);
}

/** Asks the producer for a field: a change_request entry, an event, or a message. */
export async function requestChange(a: Actor, producer: string, field: string, taskId: string | null) {
  const { rules } = a.world;
  const description = `GET /orders needs a \`${field}\` field for paging`;
  if (rules.context)
    await a.ops.writeContext(
      "change_request",
      `Add ${field} to GET /orders`,
      {
        requested_by: a.agentId,
        target_agent: producer,
        description,
        urgency: "high",
        ...(taskId ? { blocking_task_id: taskId } : {}),
      },
      [producer],
    );
  else if (rules.plan) await a.ops.post("change_request", producer, { description, field });
  else await a.say(`@${producer} ${description}`, { request: field });
}

/**
 * A change request for the producer among the events it read: the field asked for, or null. A change_request
 * entry is announced by its summary only, so the producer reads the entry (one call) to learn what is asked.
 */
export async function changeAsked(a: Actor, events: EventLike[]): Promise<string | null> {
  for (const e of events) {
    const p = e.payload;
    if (
      e.type === "context_available" &&
      p.contextType === "change_request" &&
      typeof p.contextId === "string"
    ) {
      const entry = await a.ops.readContext(p.contextId);
      return String(/`(\w+)`/.exec(String(entry.payload.description))?.[1] ?? "");
    }
    if (e.type === "change_request" && e.to === a.agentId) return String(p.field);
    if (e.type === "message" && typeof p.request === "string") return p.request;
  }
  return null;
}
