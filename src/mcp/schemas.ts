/**
 * Zod building blocks shared by the tool files: identifiers (each with its pattern), bounded JSON payloads and
 * the record shapes used as output schemas. Everything here is built once at module load.
 */

import { z } from "zod";
import { ROOMD_EVENT_TYPES, reservedTypeMessage } from "../protocol/event-types.ts";
import { agentIdSchema, roomIdSchema } from "../protocol/ids.ts";
import { recordRef } from "../protocol/record-fields.ts";
import { CONTEXT_TYPES, PRESENCE_STATUSES, TASK_STATUSES } from "../protocol/records.ts";
import { jsonObject } from "../protocol/validation.ts";

export const roomId = roomIdSchema.describe("Room id: 2-64 chars of a-z, 0-9, _ and -.");

/** An agent acting: the caller itself. Bound keys force it (and may leave it out). */
export const actingAgentId = agentIdSchema.describe(
  "Your agent id, unique in the room (e.g. backend-claude).",
);

/** An agent named as someone else (an addressee, a filter, a consumer): described by each use. */
export const otherAgentId = agentIdSchema;

/** Record ids minted by roomd ("task-3", "ctx-2", "evt-17"), or any id of the same shape. */
export const recordId = recordRef;

export const taskId = recordId("task").describe(
  "Task id, as returned by add_task or read_plan (e.g. task-3).",
);
export const contextId = recordId("context").describe(
  "Context entry id, as returned by write_context (e.g. ctx-2).",
);
export const eventId = recordId("event").describe(
  "Event id, as returned in an event's id field (e.g. evt-17).",
);

/** An event payload: any JSON object up to 64 KB, 32 levels and 10,000 values. */
export const eventPayload = jsonObject.describe(
  "Any JSON object (at most 64 KB, 32 levels of nesting, 10,000 values). Default {}.",
);

/** An event type an agent may post: any line but the types roomd appends itself (protocol/event-types.ts). */
export const postableEventType = (type: z.ZodString) =>
  type.refine((t) => !ROOMD_EVENT_TYPES.has(t), {
    error: (issue) => reservedTypeMessage(String(issue.input)),
  });

export const taskStatus = z.enum(TASK_STATUSES);
export const contextType = z.enum(CONTEXT_TYPES);

const iso = z.string().describe("ISO 8601 time");
const jsonValue = z.record(z.string(), z.unknown());

/**
 * Any JSON value, spelled out type by type: `z.any()` publishes `{}`, which clients flag as an unconstrained
 * schema. Output schemas only (an input is always a JSON object of known fields). Typed `unknown`, as the values
 * it describes are (a JSON Patch operation's value).
 */
export const anyJsonValue: z.ZodType<unknown> = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.record(z.string(), z.unknown()),
  z.array(z.unknown()),
  z.null(),
]);

export const taskShape = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  status: taskStatus,
  owner: z.string().nullable(),
  depends_on: z.array(z.string()),
  priority: z.number().nullable(),
  version: z.number().int(),
  created_at: iso,
  updated_at: iso,
  lease_expires_at: iso
    .optional()
    .describe(
      "Only on a task taken with claim_task: when its lease runs out unless the owner's calls renew it.",
    ),
});

export const planShape = z.object({
  project: z.string(),
  created_at: iso.nullable(),
  updated_at: iso.nullable(),
  tasks: z.array(taskShape),
});

export const contextShape = z.object({
  id: z.string(),
  type: contextType,
  author: z.string(),
  timestamp: iso,
  summary: z.string(),
  consuming_agents: z.array(z.string()),
  payload: jsonValue,
  version: z.string(),
  history: z.array(jsonValue).optional(),
});

export const eventShape = z.object({
  id: z.string(),
  seq: z.number().int(),
  type: z.string(),
  from: z.string(),
  to: z.string(),
  payload: jsonValue,
  timestamp: iso,
  read_by: z.array(z.string()),
  reply_to_id: z.string().optional(),
  deleted: z
    .object({ by: z.string(), at: iso })
    .optional()
    .describe("Set on a tombstone (delete_event): who deleted the event and when; its payload is {}"),
});

export const presenceShape = z.object({
  agentId: z.string(),
  status: z.enum(PRESENCE_STATUSES),
  lastSeen: iso,
  statusText: z.string().optional(),
});

export const unreadShape = z.object({
  events: z.array(eventShape),
  cursor: z.number().int().nullable(),
  count: z.number().int(),
  remaining: z.number().int(),
  trimmedBefore: z
    .number()
    .int()
    .optional()
    .describe(
      "Set when events you had not read yet were trimmed by the room's retention: the oldest seq still kept (you carry on from it)",
    ),
});
