/** The audit: reads the room after the load and checks it against the ledger. */
import { postTool } from "../http.ts";
import type { Json } from "./call.ts";
import { compareVersions, countBy, lockOverlaps, splitMissing } from "./checks.ts";
import type { Ledger } from "./ledger.ts";
import { type AuditReport, errorKind } from "./report.ts";

async function auditCall(url: string, secret: string, tool: string, args: Json): Promise<any> {
  const res = await postTool(url, secret, tool, args, AbortSignal.timeout(30_000));
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
