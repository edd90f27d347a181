/**
 * The room export format (NDJSON, version 1): one JSON value per line. Lines keep the order of object keys as the
 * room has them (a payload's keys stay in the order its author wrote them); hashes are computed over canonical
 * JSON (canonical-json.ts), so they do not depend on key order or spacing, and the same room gives the same hashes
 * on every store.
 *
 *   line 1   {kind: "roomd-export", version: 1, roomId, exportedAt, head, trimmedBefore?, forkedFrom?}
 *   state    {kind: "room", …}, then "task", "context_version" (each before its "context"), "context", "var",
 *            "review", "approval", "handoff", "verdict", "cursor", "mark", "fence", "claim" lines
 *   log      {kind: "event", event, posted?, deliveredAt?, hash}, oldest first, seqs trimmedBefore ?? 1 … head
 *   last     {kind: "end", counts, stateHash, headHash}
 *
 * Integrity: the state lines form one hash chain and the events continue it, so any edit shows.
 *   seed        = sha256(canonical({kind, version, head, trimmedBefore, forkedFrom} of the header))
 *   stateHash   = fold of sha256(previous + canonical(line)) over the state lines, from the seed
 *   event hash  = sha256(previous + canonical(the event line without its hash)), the first one's previous being
 *                 stateHash; headHash = the last event's hash (stateHash when the log is empty)
 * Hashes are lowercase hex; `previous + canonical` is the concatenation of the two texts, hashed as UTF-8. roomId
 * and exportedAt are outside every hash: a room re-imported under another id exports the same headHash.
 */
import { z } from "zod";
import { canonicalJson, sha256Hex } from "./canonical-json.ts";
import { AGENT_ID } from "./ids.ts";
import { APPROVAL_STATUSES, HANDOFF_STATUSES, MAILBOX_TYPES, VERDICTS } from "./people.ts";
import { CONTEXT_TYPES, REVIEW_STATUSES, TASK_STATUSES } from "./records.ts";
import { hasControl, jsonObject } from "./validation.ts";

export const EXPORT_KIND = "roomd-export";
export const EXPORT_VERSION = 1;
/** Longest line a reader accepts (a 64 KB payload, escaped, fits many times over). */
export const MAX_LINE_BYTES = 1024 * 1024;

// ── shapes ──────────────────────────────────────────────────────────────────────────────────────────────

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const time = z.string().regex(ISO, { error: "must be an ISO time like 2025-01-31T12:00:00.000Z" });
/** Who acts or is addressed: agent ids, `human:<id>`, `system`, `all`, `any`, `invite:<token id>`. */
const name = z
  .string()
  .regex(/^[A-Za-z0-9_.:@-]{1,80}$/, { error: "must be 1-80 chars of A-Z a-z 0-9 _ . : @ -" });
const agent = z.string().regex(AGENT_ID, { error: "must be an agent id" });
const text = (max: number) => z.string().max(max);
const oneLine = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((v) => !hasControl(v), { error: "must not hold control characters" });
const serialId = (prefix: string) =>
  z.string().regex(new RegExp(`^${prefix}-[1-9][0-9]{0,15}$`), { error: `must be ${prefix}-<n>` });
const seq = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const taskRef = z.string().regex(/^[A-Za-z0-9_.:-]{1,100}$/, { error: "must be a task or context id" });

export const taskSchema = z.strictObject({
  id: taskRef,
  title: text(1000),
  description: text(65_536),
  status: z.enum(TASK_STATUSES),
  owner: name.nullable(),
  depends_on: z.array(taskRef).max(1000),
  priority: z.number().int().nullable(),
  version: z.number().int().min(1),
  created_at: time,
  updated_at: time,
  lease_expires_at: time.optional(),
});

const versionFields = {
  author: name,
  timestamp: time,
  summary: text(65_536),
  consuming_agents: z.array(name).max(1000),
  payload: jsonObject,
  version: z.string().regex(/^1\.\d{1,9}$/, { error: 'must be "1.<n>"' }),
};
export const contextEntrySchema = z.strictObject({
  id: serialId("ctx"),
  type: z.enum(CONTEXT_TYPES),
  ...versionFields,
});
export const contextVersionSchema = z.strictObject(versionFields);

export const eventSchema = z
  .strictObject({
    id: z.string().regex(/^evt-[1-9][0-9]{0,15}$/, { error: "must be evt-<seq>" }),
    seq,
    type: oneLine(200),
    from: name,
    to: name,
    payload: jsonObject,
    timestamp: time,
    read_by: z.array(name).max(100_000),
    reply_to_id: z.string().max(100).optional(),
    deleted: z.strictObject({ by: name, at: time }).optional(),
  })
  .refine((e) => e.id === `evt-${e.seq}`, { error: "id must be evt-<seq>" });

export const reviewSchema = z.strictObject({
  id: serialId("rev"),
  status: z.enum(REVIEW_STATUSES),
  requester: name,
  reviewer: name,
  subject: text(65_536),
  details: text(65_536),
  task_id: taskRef.nullable(),
  context_id: taskRef.nullable(),
  context_version: z.string().max(20).nullable(),
  comment: text(65_536).nullable(),
  created_at: time,
  decided_at: time.nullable(),
});

export const approvalSchema = z.strictObject({
  id: serialId("apr"),
  action: text(65_536),
  details: jsonObject,
  requestedBy: name,
  status: z.enum(APPROVAL_STATUSES),
  decidedBy: name.optional(),
  note: text(65_536).optional(),
  created_at: time,
  decided_at: time.optional(),
  expires_at: time,
});

export const handoffSchema = z.strictObject({
  id: serialId("hof"),
  from: name,
  to: name,
  taskIds: z.array(taskRef).max(1000),
  contextIds: z.array(taskRef).max(1000),
  note: text(65_536),
  status: z.enum(HANDOFF_STATUSES),
  offeredBy: name,
  owners: z.record(taskRef, name.nullable()),
  created_at: time,
  updated_at: time,
  closedBy: name.optional(),
  reason: text(65_536).optional(),
  moved: z.array(taskRef).max(1000).optional(),
  conflicts: z
    .array(z.strictObject({ taskId: taskRef, owner: name.nullable() }))
    .max(1000)
    .optional(),
});

export const verdictSchema = z.strictObject({
  id: serialId("vrd"),
  verdict: z.enum(VERDICTS),
  summary: text(65_536),
  details: text(65_536),
  ref: text(65_536).nullable(),
  by: name,
  created_at: time,
});

const forkedFromSchema = z.strictObject({ roomId: z.string().min(2).max(64), seq: count });

export const headerSchema = z.strictObject({
  kind: z.literal(EXPORT_KIND),
  version: z.literal(EXPORT_VERSION, { error: `must be ${EXPORT_VERSION} (this roomd reads version 1)` }),
  roomId: z.string().min(1).max(64),
  exportedAt: time,
  head: count,
  trimmedBefore: seq.optional(),
  forkedFrom: forkedFromSchema.optional(),
});

const driverSchema = z.strictObject({
  holder: name.nullable(),
  holderKind: z.enum(["human", "agent"]).nullable(),
  epoch: count,
  since: time.nullable(),
});

/** Every state line, by kind. */
export const stateLineSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("room"),
    createdAt: time,
    plan: z.strictObject({ createdAt: time.nullable(), updatedAt: time.nullable() }),
    counters: z.strictObject({ tasks: count, contexts: count, contextChanges: count }),
    driver: driverSchema,
  }),
  z.strictObject({ kind: z.literal("task"), task: taskSchema, leaseMs: z.number().int().min(1).optional() }),
  z.strictObject({
    kind: z.literal("context_version"),
    id: serialId("ctx"),
    version: contextVersionSchema,
    atSeq: count.nullable(),
  }),
  z.strictObject({
    kind: z.literal("context"),
    entry: contextEntrySchema,
    atSeq: count.nullable(),
    changedSeq: count,
  }),
  z.strictObject({ kind: z.literal("var"), key: oneLine(1000), value: text(1_000_000) }),
  z.strictObject({ kind: z.literal("review"), review: reviewSchema }),
  z.strictObject({ kind: z.literal("approval"), approval: approvalSchema }),
  z.strictObject({ kind: z.literal("handoff"), handoff: handoffSchema }),
  z.strictObject({ kind: z.literal("verdict"), verdict: verdictSchema }),
  z.strictObject({ kind: z.literal("cursor"), agentId: agent, seq: count.nullable(), contextMark: count }),
  z.strictObject({ kind: z.literal("mark"), agentId: agent, type: z.enum(MAILBOX_TYPES), seq }),
  z.strictObject({ kind: z.literal("fence"), resource: oneLine(1000), fence: count }),
  z.strictObject({
    kind: z.literal("claim"),
    path: oneLine(4096),
    agentId: agent,
    expiresAt: time,
    ttlMs: z.number().int().min(1),
    claimedAt: time,
    reason: text(65_536).optional(),
  }),
]);

export const eventLineSchema = z.strictObject({
  kind: z.literal("event"),
  event: eventSchema,
  posted: z.literal(true).optional(),
  deliveredAt: z.record(agent, time).optional(),
  hash: z.string().regex(/^[0-9a-f]{64}$/, { error: "must be 64 lowercase hex digits" }),
});

export const endLineSchema = z.strictObject({
  kind: z.literal("end"),
  counts: z.record(z.string(), count),
  stateHash: z.string().regex(/^[0-9a-f]{64}$/),
  headHash: z.string().regex(/^[0-9a-f]{64}$/),
});

export type ExportHeader = z.output<typeof headerSchema>;
export type StateLine = z.output<typeof stateLineSchema>;
export type EventLine = z.output<typeof eventLineSchema>;
export type EndLine = z.output<typeof endLineSchema>;

// ── the chain ───────────────────────────────────────────────────────────────────────────────────────────

/** The chain's start: the header's fields that describe the room (not its id, not the time of the export). */
export function chainSeed(header: Pick<ExportHeader, "head" | "trimmedBefore" | "forkedFrom">): string {
  return sha256Hex(
    canonicalJson({
      kind: EXPORT_KIND,
      version: EXPORT_VERSION,
      head: header.head,
      trimmedBefore: header.trimmedBefore ?? null,
      forkedFrom: header.forkedFrom ?? null,
    }),
  );
}

/** The next link: sha256(previous + canonical JSON of the line), lowercase hex. */
export const nextHash = (previous: string, line: unknown): string =>
  sha256Hex(previous + canonicalJson(line));

/** One line of the file: the value's JSON (keys in their order) and a newline. */
export const lineOf = (value: unknown): string => `${JSON.stringify(value)}\n`;
