/**
 * What an import writes on Redis: every stored record of a room, shaped here exactly as the scripts that write
 * them shape it (field order included where Lua reads by pattern: a task's lease last, an event's id, seq and type
 * first, an approval's details last), as generic writes — a hash field or a sorted-set member of one of the room's
 * keys — that IMPORT_WRITE applies in parts. Events are turned into writes as they are read, so a long log is never
 * all in memory.
 */
import { noFloors, raiseFloor } from "../../protocol/fork-rebuild.ts";
import { MAILBOX_TYPES } from "../../protocol/people.ts";
import type { ContextEntry, RoomEvent, Task } from "../../protocol/records.ts";
import { type ValuePieces, valueText } from "../../protocol/room-values.ts";
import {
  contextFields,
  documentTerms,
  eventFields,
  fieldTerms,
  type SearchFields,
  taskFields,
} from "../../protocol/search.ts";
import type { LoggedEvent, RoomSnapshot, SnapshotVersion } from "../move-types.ts";
import { ROOM_KEY_PARTS, type RoomKeyPart } from "./keys.ts";
import { serial } from "./records.ts";

/** A hash field (h) or a sorted-set member (z) of the room key `part`. */
export type Write =
  | { h: RoomKeyPart; field: string; value: string }
  | { z: RoomKeyPart; score: number; member: string };

/** The key's number in the scripts' KEYS list. */
export const keyNumber = (part: RoomKeyPart): string => String(ROOM_KEY_PARTS.indexOf(part) + 1);

const ms = (value: string): number => Date.parse(value);
const pad = (seq: number) => String(seq).padStart(12, "0");
const MAIL: ReadonlySet<string> = new Set(MAILBOX_TYPES);

/** lua-plan.ts task_json: lease_expires_at last, only on leased tasks. */
export const taskJson = (t: Task): string =>
  JSON.stringify({
    id: t.id,
    title: t.title,
    description: t.description,
    status: t.status,
    owner: t.owner,
    depends_on: t.depends_on,
    priority: t.priority,
    version: t.version,
    created_at: t.created_at,
    updated_at: t.updated_at,
    ...(t.lease_expires_at === undefined ? {} : { lease_expires_at: t.lease_expires_at }),
  });

/** lua-context.ts entry_json: the entry without its payload (an import's, a fork's). */
export const entryJson = (e: Omit<ContextEntry, "payload">): string =>
  JSON.stringify({
    id: e.id,
    type: e.type,
    author: e.author,
    timestamp: e.timestamp,
    summary: e.summary,
    consuming_agents: e.consuming_agents,
    version: e.version,
  });

/** lua-context.ts `earlier`: one version of the history array (an import's, a fork's). */
export const historyVersion = (v: SnapshotVersion["version"]) => ({
  author: v.author,
  timestamp: v.timestamp,
  summary: v.summary,
  consuming_agents: v.consuming_agents,
  payload: v.payload,
  version: v.version,
});

/** lua-log.ts append_event: id, seq and type first (scripts match them), without read_by. */
const eventJson = (e: RoomEvent): string =>
  JSON.stringify({
    id: e.id,
    seq: e.seq,
    type: e.type,
    from: e.from,
    to: e.to,
    payload: e.payload,
    timestamp: e.timestamp,
    ...(e.reply_to_id === undefined ? {} : { reply_to_id: e.reply_to_id }),
    ...(e.deleted === undefined ? {} : { deleted: e.deleted }),
  });

/** lua-people-helpers.ts P.approval(…, stored): expiresMs, then the details last. */
const approvalJson = (a: RoomSnapshot["approvals"][number]): string => {
  const { details, ...rest } = a;
  return JSON.stringify({
    id: rest.id,
    action: rest.action,
    requestedBy: rest.requestedBy,
    ...(rest.approvers === undefined ? {} : { approvers: rest.approvers }),
    status: rest.status,
    ...(rest.decidedBy === undefined ? {} : { decidedBy: rest.decidedBy }),
    ...(rest.note === undefined ? {} : { note: rest.note }),
    created_at: rest.created_at,
    ...(rest.decided_at === undefined ? {} : { decided_at: rest.decided_at }),
    expires_at: rest.expires_at,
    expiresMs: ms(rest.expires_at),
    details,
  });
};

/** lua-holdings.ts R.claim_json. */
const claimJson = (c: RoomSnapshot["claims"][number]): string =>
  JSON.stringify({
    agentId: c.agentId,
    expiresAt: ms(c.expiresAt),
    ttl: c.ttlMs,
    claimedAt: ms(c.claimedAt),
    ...(c.reason === undefined ? {} : { reason: c.reason }),
  });

/** The search index of one document (lua-index.ts IX.put): postings, length, per-field counts. */
function* indexed(doc: string, fields: SearchFields, total: { tokens: number }): Generator<Write> {
  const { terms, length } = documentTerms(fields);
  total.tokens += length;
  for (const [token, n] of Object.entries(terms))
    yield { z: "search_post", score: 0, member: `${token} ${doc} ${n}` };
  yield { h: "search_len", field: doc, value: String(length) };
  yield { h: "search_fields", field: doc, value: JSON.stringify(fieldTerms(fields)) };
}

/** Every write of the room, the log's as `events` yields them, the meta fields last. */
export function* importWrites(
  s: RoomSnapshot,
  events: Iterable<LoggedEvent>,
  pieces: ValuePieces,
): Generator<Write> {
  const total = { tokens: 0 };
  const leases = new Map<string, string[]>();
  for (const { task, leaseMs } of s.tasks) {
    yield { h: "tasks", field: task.id, value: taskJson(task) };
    if (task.lease_expires_at !== undefined && leaseMs !== null && task.owner !== null) {
      yield { z: "leases", score: ms(task.lease_expires_at), member: task.id };
      leases.set(task.owner, [...(leases.get(task.owner) ?? []), `${task.id} ${leaseMs}`]);
    }
    yield* indexed(task.id, taskFields(task), total);
  }
  for (const [agent, items] of leases) yield { h: "holdings", field: `l:${agent}`, value: items.join("\n") };
  for (const c of s.contexts) {
    const id = c.entry.id;
    yield { h: "ctx", field: id, value: entryJson(c.entry) };
    yield { h: "ctx_payload", field: id, value: JSON.stringify(c.entry.payload) };
    if (c.history.length > 0)
      yield {
        h: "ctx_hist",
        field: id,
        value: JSON.stringify(c.history.map((old) => historyVersion(old.version))),
      };
    const heads = [...c.history.map((v) => v.atSeq), c.atSeq].filter((v): v is number => v !== null);
    if (heads.length > 0) yield { h: "ctx_seqs", field: id, value: JSON.stringify(heads) };
    yield { z: "ctx_changes", score: c.changedSeq, member: id };
    yield* indexed(id, contextFields(c.entry), total);
  }
  for (const v of s.vars) yield { h: "vars", field: v.key, value: v.value };
  for (const r of s.reviews) yield { h: "reviews", field: r.id, value: JSON.stringify(r) };
  for (const a of s.approvals) yield { h: "approvals", field: a.id, value: approvalJson(a) };
  for (const h of s.handoffs) yield { h: "handoffs", field: h.id, value: JSON.stringify(h) };
  for (const v of s.verdicts) yield { h: "verdicts", field: v.id, value: JSON.stringify(v) };
  for (const c of s.cursors) {
    if (c.seq !== null) yield { h: "cursors", field: c.agentId, value: String(c.seq) };
    yield { h: "ctx_marks", field: c.agentId, value: String(c.contextMark) };
  }
  for (const m of s.marks) yield { h: "marks", field: `${m.type} ${m.agentId}`, value: String(m.seq) };
  for (const f of s.fences) yield { h: "fences", field: f.resource, value: String(f.fence) };
  const held = new Map<string, string[]>();
  for (const c of s.claims) {
    yield { h: "claims", field: c.path, value: claimJson(c) };
    yield { z: "claim_exp", score: ms(c.expiresAt), member: c.path };
    held.set(c.agentId, [...(held.get(c.agentId) ?? []), c.path]);
  }
  for (const [agent, paths] of held) yield { h: "holdings", field: `c:${agent}`, value: paths.join("\n") };
  for (const v of s.values)
    yield { h: "values", field: `${v.piece} ${v.key}`, value: valueText(pieces, v.piece, v.key, v.value) };

  const floors = noFloors();
  for (const { event: e, posted, deliveredAt } of events) {
    raiseFloor(floors, { ...e, posted });
    const seq = String(e.seq);
    yield { h: "events", field: seq, value: eventJson(e) };
    yield { h: "event_idx", field: seq, value: `${ms(e.timestamp)} ${e.to}` };
    yield { z: "event_addr", score: 0, member: `${e.to} ${pad(e.seq)}` };
    if (MAIL.has(e.type)) yield { z: "mailbox", score: 0, member: `${e.type} ${e.to} ${pad(e.seq)}` };
    if (e.read_by.length > 0) yield { h: "event_reads", field: seq, value: JSON.stringify(e.read_by) };
    for (const [agent, at] of Object.entries(deliveredAt)) {
      yield { h: "ctx_reads", field: `${seq} ${agent}`, value: String(ms(at)) };
    }
    if (posted) yield { h: "posted", field: seq, value: "1" };
    if (posted && !e.deleted) yield* indexed(e.id, eventFields(e), total);
  }

  const maxSerial = (list: { id: string }[]) => list.reduce((max, r) => Math.max(max, serial(r.id)), 0);
  const byStatus = { pending: 0, in_progress: 0, done: 0, blocked: 0 };
  for (const { task } of s.tasks) byStatus[task.status] += 1;
  const meta: [string, string | number | null][] = [
    ["created_at", s.createdAt],
    ["task_n", s.counters.tasks],
    ["ctx_n", s.counters.contexts],
    ["ctx_seq", s.counters.contextChanges],
    ["event_seq", s.head],
    ["plan_created_at", s.plan.createdAt],
    ["plan_updated_at", s.plan.updatedAt],
    ["n_pending", byStatus.pending],
    ["n_in_progress", byStatus.in_progress],
    ["n_done", byStatus.done],
    ["n_blocked", byStatus.blocked],
    ["counted", "1"],
    ["addr_v", "1"],
    ["review_n", maxSerial(s.reviews)],
    // A copy of a fork: its log names ids its records do not hold, which it must never mint again.
    ["approval_n", Math.max(maxSerial(s.approvals), floors.approval)],
    ["handoff_n", Math.max(maxSerial(s.handoffs), floors.handoff)],
    ["verdict_n", Math.max(maxSerial(s.verdicts), floors.verdict)],
    ["search_tokens", total.tokens],
    ["forked_from", s.forkedFrom ? JSON.stringify(s.forkedFrom) : null],
    ["drv_holder", s.driver.holder],
    ["drv_kind", s.driver.holder === null ? null : s.driver.holderKind],
    ["drv_epoch", s.driver.epoch > 0 ? s.driver.epoch : null],
    ["drv_since", s.driver.since],
    ["trim_seq", s.trimmedBefore === null ? null : s.trimmedBefore - 1],
  ];
  for (const [field, value] of meta) {
    if (value !== null) yield { h: "meta", field, value: String(value) };
  }
}
