import { z } from "zod";
import { RoomError } from "./errors.ts";
import type { ContextType } from "./records.ts";
import { requiredOr } from "./validation.ts";

/**
 * Payload schemas per context type (docs/protocol.md#context-payloads-per-type-extra-fields-allowed). Extra fields
 * are allowed: consumers rely on the named ones.
 */
const endpoint = z.looseObject({
  method: z.enum(["GET", "POST", "PUT", "DELETE", "PATCH"]),
  path: z.string(),
  request: z.unknown().optional(),
  response: z.unknown(),
  auth_required: z.boolean(),
  description: z.string(),
});

export const PAYLOAD_SCHEMAS: Record<ContextType, z.ZodType> = {
  api_contract: z.looseObject({
    service: z.string(),
    version: z.string(),
    endpoints: z.array(endpoint).min(1),
    base_url: z.string().optional(),
  }),
  arch_decision: z.looseObject({
    title: z.string(),
    decision: z.string(),
    rationale: z.string(),
    alternatives: z.array(z.string()),
    consequences: z.array(z.string()),
  }),
  task: z.looseObject({
    task_id: z.string(),
    acceptance_criteria: z.array(z.string()),
    technical_notes: z.string(),
  }),
  change_request: z.looseObject({
    requested_by: z.string(),
    target_agent: z.string(),
    description: z.string(),
    urgency: z.enum(["low", "medium", "high"]),
    blocking_task_id: z.string().optional(),
  }),
  note: z.looseObject({
    text: z.string(),
    references: z.array(z.string()).optional(),
  }),
};

/** Validates a payload for its context type; throws a RoomError naming the first bad path. */
export function validatePayload(type: ContextType, payload: unknown): void {
  const result = PAYLOAD_SCHEMAS[type].safeParse(payload);
  if (result.success) return;
  const issue = result.error.issues[0];
  const path = issue && issue.path.length > 0 ? issue.path.join(".") : "payload";
  throw new RoomError(
    "invalid",
    `Invalid payload for context type "${type}": ${path}: ${requiredOr(issue?.message ?? "invalid")}`,
  );
}
