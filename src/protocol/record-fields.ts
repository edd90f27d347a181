/**
 * One definition of each record field's size and character rules: the tools' input schemas (src/mcp/tools/) and
 * the people's routes build on these, and an import checks every record of a file with the same ones
 * (export-format.ts), so a record that reaches a room by a move obeys exactly the rules of one written live. Each
 * is a zod schema built once; callers add their own `.describe()` or `.optional()`.
 */
import { z } from "zod";
import { agentIdSchema } from "./ids.ts";
import { LIMITS } from "./limits.ts";
import { PEOPLE_LIMITS } from "./people.ts";
import { jsonObject, line } from "./validation.ts";

/** Ids of records ("task-3", "ctx-2", "evt-17"), as tools take them: 1-100 chars of A-Z a-z 0-9 _ . : -. */
export const RECORD_ID = /^[A-Za-z0-9_.:-]{1,100}$/;
export const recordRef = (what: string) =>
  z.string().regex(RECORD_ID, { error: `must be a ${what} id such as the ones roomd returns` });

/** At most `max` bytes of JSON. */
const boundedJson = (max: number) =>
  jsonObject.superRefine((value, ctx) => {
    const bytes = Buffer.byteLength(JSON.stringify(value));
    if (bytes > max) ctx.addIssue({ code: "custom", message: `too large: ${bytes} bytes (max ${max})` });
  });

/** Text of at most `max` UTF-8 bytes (and so at most `max` characters). */
const boundedBytes = (max: number, error: string) =>
  z
    .string()
    .max(max)
    .refine((v) => Buffer.byteLength(v) <= max, { error });

export const FIELDS = {
  taskTitle: line(1, LIMITS.titleMax),
  taskDescription: z.string().max(LIMITS.descriptionMax),
  taskPriority: z.number().int().min(-LIMITS.priorityMax).max(LIMITS.priorityMax),
  dependsOn: z.array(recordRef("task")).max(LIMITS.dependsOnMax),
  /** A progress note on a task change (it goes into the event). */
  taskNote: z.string().min(1).max(LIMITS.noteMax),

  contextSummary: z.string().min(1).max(LIMITS.summaryMax),
  consumingAgents: z.array(agentIdSchema).max(LIMITS.consumingAgentsMax),

  eventType: line(1, LIMITS.eventTypeMax),

  varKey: line(1, LIMITS.varKeyMax),
  /** Kept byte for byte: any character, newlines and controls included. */
  varValue: z.string().max(LIMITS.varValueMax),

  lockResource: line(1, LIMITS.resourceMax),
  claimReason: line(1, LIMITS.claimReasonMax),

  reviewSubject: line(1, LIMITS.titleMax),
  reviewDetails: z.string().max(LIMITS.descriptionMax),
  reviewComment: z.string().min(1).max(LIMITS.noteMax),

  approvalAction: line(1, PEOPLE_LIMITS.actionMax),
  approvalDetails: boundedJson(PEOPLE_LIMITS.detailsBytesMax),
  approvalNote: z.string().min(1).max(PEOPLE_LIMITS.noteMax),

  handoffNote: z.string().min(1).max(PEOPLE_LIMITS.noteMax),
  handoffItems: (what: string) => z.array(recordRef(what)).max(PEOPLE_LIMITS.handoffItemsMax),
  handoffReason: z.string().min(1).max(PEOPLE_LIMITS.reasonMax),

  verdictSummary: z.string().min(1).max(PEOPLE_LIMITS.verdictSummaryMax),
  verdictDetails: boundedBytes(PEOPLE_LIMITS.verdictDetailsBytesMax, "at most 16 KB"),
  verdictRef: z
    .string()
    .max(PEOPLE_LIMITS.refMax)
    .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), {
      error: "must be an http(s) URL, e.g. the pull request",
    }),
} as const;
