/** Context tools (spec §3, 4 tools): typed, versioned artifacts such as API contracts and change requests. */
import { z } from "zod";
import { LIMITS } from "../../protocol/limits.ts";
import { validatePayload } from "../../protocol/payloads.ts";
import { actingAgent, scope } from "../identity.ts";
import { agentId, contextShape, contextType, jsonPayload, roomId } from "../schemas.ts";
import { defineTool } from "../tool.ts";

const contextId = z.string().min(1).max(100).describe("Context entry id, as returned by write_context.");
const summary = z
  .string()
  .min(1)
  .max(LIMITS.summaryMax)
  .describe("One or two sentences a consumer can act on.");
const consumers = z
  .array(agentId)
  .max(LIMITS.consumingAgentsMax)
  .describe("Agents that must act on this entry; each is notified with an event.");
const version = z.string().regex(/^1\.\d{1,6}$/, { error: 'must look like "1.0", "1.1", …' });

const PAYLOAD_HELP = [
  "Payload by type (extra fields allowed):",
  "api_contract {service, version, endpoints: [{method GET|POST|PUT|DELETE|PATCH, path, request?, response, auth_required, description}] (at least one), base_url?};",
  "arch_decision {title, decision, rationale, alternatives: string[], consequences: string[]};",
  "task {task_id, acceptance_criteria: string[], technical_notes};",
  "change_request {requested_by, target_agent, description, urgency low|medium|high, blocking_task_id?};",
  "note {text, references?: string[]}.",
].join(" ");

export const contextTools = [
  defineTool({
    name: "write_context",
    description: `Publish a typed context entry (version 1.0) that other agents build against. Use change_request (not an event) for durable requests to another agent. Consumers listed in consuming_agents get a context_available event. ${PAYLOAD_HELP}`,
    input: z.strictObject({
      roomId,
      type: contextType,
      summary,
      consuming_agents: consumers,
      payload: jsonPayload,
      author: agentId,
    }),
    output: contextShape,
    handler: (a, ctx) => {
      validatePayload(a.type, a.payload);
      return ctx.store.writeContext(scope(ctx, a.roomId), {
        type: a.type,
        summary: a.summary,
        consuming_agents: a.consuming_agents,
        payload: a.payload,
        author: actingAgent(ctx, a.author),
      });
    },
  }),
  defineTool({
    name: "read_context",
    description:
      "Read one context entry by id (its current version). With includeHistory, also the earlier versions, oldest first.",
    input: z.strictObject({ roomId, id: contextId, includeHistory: z.boolean().optional() }),
    output: contextShape,
    annotations: { readOnlyHint: true },
    handler: async (a, ctx) => {
      const room = scope(ctx, a.roomId);
      const entry = await ctx.store.readContext(room, a.id);
      if (!a.includeHistory) return entry;
      return { ...entry, history: await ctx.store.contextHistory(room, a.id) };
    },
  }),
  defineTool({
    name: "list_context",
    description: "List context entries, oldest first, optionally only one type and/or one author.",
    input: z.strictObject({ roomId, type: contextType.optional(), author: agentId.optional() }),
    annotations: { readOnlyHint: true },
    handler: (a, ctx) => ctx.store.listContext(scope(ctx, a.roomId), { type: a.type, author: a.author }),
  }),
  defineTool({
    name: "update_context",
    description:
      "Revise a context entry in place (same id and type, version 1.0 → 1.1 → …); the previous version is kept in history. The payload is re-validated against the entry's type. Pass expectedVersion to refuse the update if someone revised it first. Consumers get a context_updated event.",
    input: z
      .strictObject({
        roomId,
        id: contextId,
        author: agentId,
        summary: summary.optional(),
        consuming_agents: consumers.optional(),
        payload: jsonPayload.optional(),
        expectedVersion: version.optional(),
      })
      .refine((a) => a.summary !== undefined || a.consuming_agents !== undefined || a.payload !== undefined, {
        error: "give at least one of summary, consuming_agents or payload",
      }),
    output: contextShape,
    handler: (a, ctx) =>
      ctx.store.updateContext(scope(ctx, a.roomId), {
        id: a.id,
        author: actingAgent(ctx, a.author),
        summary: a.summary,
        consuming_agents: a.consuming_agents,
        payload: a.payload,
        expectedVersion: a.expectedVersion,
      }),
  }),
];
