/**
 * The room export format (NDJSON, version 1): one JSON value per line. Lines keep the order of object keys as the
 * room has them (a payload's keys stay in the order its author wrote them); hashes are computed over canonical
 * JSON (canonical-json.ts), so they do not depend on key order or spacing, and the same room gives the same hashes
 * on every store.
 *
 *   line 1   {kind: "roomd-export", version: 1, roomId, exportedAt, head, trimmedBefore?, forkedFrom?}
 *   state    {kind: "room", …}, then "task", "context_version" (each before its "context"), "context", "var",
 *            "review", "approval", "handoff", "verdict", "cursor", "mark", "fence", "claim", "value" lines
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
 *
 * Records are checked with the live rules (record-fields.ts: the tools' own sizes and character rules), and every
 * seq, counter, epoch, fence and minted id number is at most COUNTER_MAX, so a moved room holds nothing a live one
 * could not.
 */
import { z } from "zod";
import { canonicalJson, sha256Hex } from "./canonical-json.ts";
import { AGENT_ID } from "./ids.ts";
import { COUNTER_MAX, LIMITS } from "./limits.ts";
import { normalisePath } from "./paths.ts";
import { APPROVAL_STATUSES, HANDOFF_STATUSES, MAILBOX_TYPES, PEOPLE_LIMITS, VERDICTS } from "./people.ts";
import { FIELDS, recordRef } from "./record-fields.ts";
import { CONTEXT_TYPES, REVIEW_STATUSES, TASK_STATUSES } from "./records.ts";
import { ROLE_LIMITS } from "./roles.ts";
import { PIECE_NAME, VALUE_LIMITS } from "./room-values.ts";
import { jsonObject } from "./validation.ts";

export const EXPORT_KIND = "roomd-export";
export const EXPORT_VERSION = 1;
/** Longest line a reader accepts (a 64 KB payload, escaped, fits many times over). */
export const MAX_LINE_BYTES = 1024 * 1024;

// ── shapes ──────────────────────────────────────────────────────────────────────────────────────────────

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** An ISO time as roomd writes them (toISOString), of a real instant (no month 13, no 25:00). */
const time = z
  .string()
  .regex(ISO, { error: "must be an ISO time like 2025-01-31T12:00:00.000Z" })
  .refine((v) => !Number.isNaN(Date.parse(v)) && new Date(v).toISOString() === v, {
    error: "must be a real instant, written like 2025-01-31T12:00:00.000Z",
  });
/** Who acts or is addressed: agent ids, `human:<id>`, `system`, `all`, `any`, `invite:<token id>`. */
const name = z
  .string()
  .regex(/^[A-Za-z0-9_.:@-]{1,80}$/, { error: "must be 1-80 chars of A-Z a-z 0-9 _ . : @ -" });
const agent = z.string().regex(AGENT_ID, { error: "must be an agent id" });
const bounded = { error: `must be at most ${COUNTER_MAX} (2^39)` };
/** A minted id: `<prefix>-<n>`, n from 1 to COUNTER_MAX. */
const serialId = (prefix: string) =>
  z
    .string()
    .regex(new RegExp(`^${prefix}-[1-9][0-9]{0,11}$`), { error: `must be ${prefix}-<n>` })
    .refine((v) => Number(v.slice(prefix.length + 1)) <= COUNTER_MAX, {
      error: `must be ${prefix}-<n> with n at most ${COUNTER_MAX} (2^39)`,
    });
const seq = z.number().int().min(1).max(COUNTER_MAX, bounded);
const count = z.number().int().min(0).max(COUNTER_MAX, bounded);
const taskRef = recordRef("task or context");
/** ms between `min` and `max` seconds, as the tools take them. */
const msWithin = (min: number, max: number) =>
  z
    .number()
    .int()
    .min(min * 1000)
    .max(max * 1000);

export const taskSchema = z.strictObject({
  id: taskRef,
  title: FIELDS.taskTitle,
  description: FIELDS.taskDescription,
  status: z.enum(TASK_STATUSES),
  owner: name.nullable(),
  depends_on: FIELDS.dependsOn,
  priority: FIELDS.taskPriority.nullable(),
  version: seq,
  created_at: time,
  updated_at: time,
  lease_expires_at: time.optional(),
});

const versionFields = {
  author: name,
  timestamp: time,
  summary: FIELDS.contextSummary,
  consuming_agents: FIELDS.consumingAgents,
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
    id: z.string().regex(/^evt-[1-9][0-9]{0,11}$/, { error: "must be evt-<seq>" }),
    seq,
    type: FIELDS.eventType,
    from: name,
    to: name,
    payload: jsonObject,
    timestamp: time,
    read_by: z.array(name).max(100_000),
    reply_to_id: recordRef("event").optional(),
    deleted: z.strictObject({ by: name, at: time }).optional(),
  })
  .refine((e) => e.id === `evt-${e.seq}`, { error: "id must be evt-<seq>" });

export const reviewSchema = z.strictObject({
  id: serialId("rev"),
  status: z.enum(REVIEW_STATUSES),
  requester: name,
  reviewer: name,
  subject: FIELDS.reviewSubject,
  details: FIELDS.reviewDetails,
  task_id: taskRef.nullable(),
  context_id: taskRef.nullable(),
  context_version: z.string().max(20).nullable(),
  comment: FIELDS.reviewComment.nullable(),
  created_at: time,
  decided_at: time.nullable(),
});

export const approvalSchema = z.strictObject({
  id: serialId("apr"),
  action: FIELDS.approvalAction,
  details: FIELDS.approvalDetails,
  requestedBy: name,
  approvers: z
    .array(z.string().regex(/^human:[A-Za-z0-9_.@-]{1,64}$/, { error: "must be human:<id>" }))
    .min(1)
    .max(ROLE_LIMITS.approversMax)
    .optional(),
  status: z.enum(APPROVAL_STATUSES),
  decidedBy: name.optional(),
  note: FIELDS.approvalNote.optional(),
  created_at: time,
  decided_at: time.optional(),
  expires_at: time,
});

export const handoffSchema = z.strictObject({
  id: serialId("hof"),
  from: name,
  to: name,
  taskIds: FIELDS.handoffItems("task"),
  contextIds: FIELDS.handoffItems("context"),
  note: FIELDS.handoffNote,
  status: z.enum(HANDOFF_STATUSES),
  offeredBy: name,
  owners: z.record(taskRef, name.nullable()),
  created_at: time,
  updated_at: time,
  closedBy: name.optional(),
  reason: FIELDS.handoffReason.optional(),
  moved: z.array(taskRef).max(PEOPLE_LIMITS.handoffItemsMax).optional(),
  conflicts: z
    .array(z.strictObject({ taskId: taskRef, owner: name.nullable() }))
    .max(PEOPLE_LIMITS.handoffItemsMax)
    .optional(),
});

export const verdictSchema = z.strictObject({
  id: serialId("vrd"),
  verdict: z.enum(VERDICTS),
  summary: FIELDS.verdictSummary,
  details: FIELDS.verdictDetails,
  ref: FIELDS.verdictRef.nullable(),
  by: name,
  created_at: time,
});

/** A claim's path as stored: in the normal form claim_files gives it (protocol/paths.ts). */
const claimPath = z.string().superRefine((path, ctx) => {
  const normal = normalisePath(path);
  if ("error" in normal) ctx.addIssue({ code: "custom", message: normal.error });
  else if (normal.path !== path)
    ctx.addIssue({ code: "custom", message: `must be in normal form (${JSON.stringify(normal.path)})` });
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
  z.strictObject({
    kind: z.literal("task"),
    task: taskSchema,
    leaseMs: msWithin(LIMITS.leaseMinSeconds, LIMITS.leaseMaxSeconds).optional(),
  }),
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
  z.strictObject({ kind: z.literal("var"), key: FIELDS.varKey, value: FIELDS.varValue }),
  z.strictObject({ kind: z.literal("review"), review: reviewSchema }),
  z.strictObject({ kind: z.literal("approval"), approval: approvalSchema }),
  z.strictObject({ kind: z.literal("handoff"), handoff: handoffSchema }),
  z.strictObject({ kind: z.literal("verdict"), verdict: verdictSchema }),
  z.strictObject({ kind: z.literal("cursor"), agentId: agent, seq: count.nullable(), contextMark: count }),
  z.strictObject({ kind: z.literal("mark"), agentId: agent, type: z.enum(MAILBOX_TYPES), seq }),
  z.strictObject({ kind: z.literal("fence"), resource: FIELDS.lockResource, fence: count }),
  z.strictObject({
    kind: z.literal("claim"),
    path: claimPath,
    agentId: agent,
    expiresAt: time,
    ttlMs: msWithin(LIMITS.claimTtlMinSeconds, LIMITS.claimTtlMaxSeconds),
    claimedAt: time,
    reason: FIELDS.claimReason.optional(),
  }),
  // A small value (room-values.ts); its kind's declaration checks it when the file is imported.
  z.strictObject({
    kind: z.literal("value"),
    piece: z.string().regex(PIECE_NAME, { error: "must be a kind of room value (a-z, 0-9, _; 1-40 chars)" }),
    key: z.string().max(VALUE_LIMITS.keyChars),
    value: z.json(),
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

/**
 * Most state lines of a kind one file may hold: no more than a live room can hold (set_shared_var refuses the
 * variable after LIMITS.varsPerRoom, claim_files the claims past LIMITS.claimsPerRoom).
 */
export const LINES_PER_ROOM: Partial<
  Record<z.output<typeof stateLineSchema>["kind"], { max: number; what: string }>
> = {
  var: { max: LIMITS.varsPerRoom, what: "shared variables" },
  claim: { max: LIMITS.claimsPerRoom, what: "file claims" },
};

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
