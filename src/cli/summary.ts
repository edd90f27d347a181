/**
 * The short payload of an event line in `roomctl watch`: the one or two facts a person scanning the log wants
 * (a task's id, title and status; a message's text; the paths claimed), else the payload as compact JSON.
 * The caller cleans and cuts the result.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const s = (v: unknown) =>
  typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v);

function task(t: Obj): string {
  const owner = typeof t.owner === "string" ? ` @${t.owner}` : "";
  return `${s(t.id)} ${JSON.stringify(s(t.title))} ${s(t.status)}${owner}`;
}

export function summarize(type: string, payload: unknown): string {
  if (!isObj(payload)) return "";
  if (isObj(payload.task)) {
    const note =
      isObj(payload.changes) && typeof payload.changes.note === "string" ? ` — ${payload.changes.note}` : "";
    return `${task(payload.task)}${note}`;
  }
  if (isObj(payload.approval)) return `${s(payload.approval.id)} ${s(payload.approval.action)}`;
  if (isObj(payload.handoff)) {
    const h = payload.handoff;
    return `${s(h.id)} ${s(h.from)} → ${s(h.to)}: ${s(h.note)}`;
  }
  if (isObj(payload.verdict)) return `${s(payload.verdict.verdict)}: ${s(payload.verdict.summary)}`;
  if (type === "driver_changed")
    return `holder ${s(payload.holder) || "nobody"}, epoch ${s(payload.epoch)} (${s(payload.reason)})`;
  if (type === "approval_decided") {
    const note = typeof payload.note === "string" ? `: ${payload.note}` : "";
    return `${s(payload.approvalId)} ${s(payload.decision)} by ${s(payload.decidedBy)}${note}`;
  }
  if (type === "agent_step")
    return `${s(payload.tool)} ${s(payload.target)}${payload.ok === false ? " (failed)" : ""}`;
  for (const field of ["text", "reason", "message", "summary", "decision"]) {
    if (typeof payload[field] === "string") return payload[field] as string;
  }
  if (Array.isArray(payload.paths)) return payload.paths.map(s).join(", ");
  if (typeof payload.taskId === "string") return payload.taskId;
  if (typeof payload.contextId === "string")
    return `${payload.contextId}${typeof payload.summary === "string" ? ` ${payload.summary}` : ""}`;
  const json = JSON.stringify(payload);
  return json === "{}" ? "" : json;
}
