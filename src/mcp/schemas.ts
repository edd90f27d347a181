/**
 * Zod building blocks shared by the tool files: identifiers, size-capped JSON payloads and the record shapes
 * used as output schemas. Everything here is built once at module load.
 */
import { z } from "zod";
import { agentIdSchema, roomIdSchema } from "../protocol/ids.ts";
import { LIMITS } from "../protocol/limits.ts";
import { CONTEXT_TYPES, TASK_STATUSES } from "../protocol/records.ts";

export const roomId = roomIdSchema.describe("Room id: 2-64 chars of a-z, 0-9, _ and -.");
export const agentId = agentIdSchema.describe("Your agent id, unique in the room (e.g. backend-claude).");

const encoder = new TextEncoder();

/** Any JSON value whose serialised size is at most LIMITS.payloadBytesMax. */
export const jsonPayload = z.unknown().superRefine((value, ctx) => {
  const bytes = encoder.encode(JSON.stringify(value) ?? "").length;
  if (bytes > LIMITS.payloadBytesMax) {
    ctx.addIssue({ code: "custom", message: `too large: ${bytes} bytes (max ${LIMITS.payloadBytesMax})` });
  }
});

export const taskStatus = z.enum(TASK_STATUSES);
export const contextType = z.enum(CONTEXT_TYPES);

const iso = z.string();

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
  payload: z.unknown(),
  version: z.string(),
  history: z.array(z.record(z.string(), z.unknown())).optional(),
});

export const eventShape = z.object({
  id: z.string(),
  seq: z.number().int(),
  type: z.string(),
  from: z.string(),
  to: z.string(),
  payload: z.unknown(),
  timestamp: iso,
  read_by: z.array(z.string()),
  reply_to_id: z.string().optional(),
});

export const presenceShape = z.object({
  agentId: z.string(),
  status: z.enum(["online", "offline"]),
  lastSeen: iso,
  statusText: z.string().optional(),
});

export const unreadShape = z.object({
  events: z.array(eventShape),
  cursor: z.number().int().nullable(),
  count: z.number().int(),
  remaining: z.number().int(),
});
