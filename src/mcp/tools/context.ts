/** Context tools (4): typed, versioned artifacts such as API contracts and change requests. */
import { z } from "zod";
import { LIMITS } from "../../protocol/limits.ts";
import { validatePayload } from "../../protocol/payloads.ts";
import { jsonObject } from "../../protocol/validation.ts";
import { actingAgentId, contextId, contextShape, contextType, otherAgentId, roomId } from "../schemas.ts";
import { defineTool, type ExampleRoom } from "../tool.ts";

const summary = z
  .string()
  .min(1)
  .max(LIMITS.summaryMax)
  .describe("One or two sentences a consumer can act on.");
const consumers = z
  .array(otherAgentId)
  .max(LIMITS.consumingAgentsMax)
  .describe(
    "The agents who should read this entry (at most 50); each gets a context_available event. Empty for none.",
  );
const version = z
  .string()
  .regex(/^1\.\d{1,6}$/, { error: 'must look like "1.0", "1.1", …' })
  .describe('The version you read, e.g. "1.2"; the update is refused if the entry changed since.');

const PAYLOAD_HELP = [
  "The entry's content, a JSON object whose shape depends on type (extra fields allowed):",
  "api_contract {service, version, endpoints: [{method GET|POST|PUT|DELETE|PATCH, path, request?, response, auth_required, description}] (at least one), base_url?};",
  "arch_decision {title, decision, rationale, alternatives: string[], consequences: string[]};",
  "task {task_id, acceptance_criteria: string[], technical_notes};",
  "change_request {requested_by, target_agent, description, urgency low|medium|high, blocking_task_id?};",
  "note {text, references?: string[]}.",
].join(" ");
const payload = jsonObject.describe(PAYLOAD_HELP);

const NOT_FOUND = "Context entry not found: <id>";
const writtenNote = (room: ExampleRoom) =>
  room.call("write_context", {
    type: "note",
    summary: "Staging uses port 8080",
    consuming_agents: ["bob"],
    payload: { text: "Staging listens on port 8080." },
    author: "alice",
  });

export const contextTools = [
  defineTool({
    name: "write_context",
    title: "Publish a context entry",
    description:
      "Publish a typed context entry (version 1.0) that other agents build against: an API contract, an architecture decision, a task brief, a change request or a note. Use change_request (not an event) for durable requests to another agent. Consumers listed in consuming_agents get a context_available event.",
    returns: 'ContextEntry (version "1.0")',
    input: z.strictObject({
      roomId,
      type: contextType.describe("api_contract, arch_decision, task, change_request or note."),
      summary,
      consuming_agents: consumers,
      payload,
      author: actingAgentId,
    }),
    output: contextShape,
    effect: "write",
    acting: ["author"],
    addressees: ["consuming_agents"],
    events: ["context_available"],
    errors: ['Invalid payload for context type "<type>": <path>: <problem>'],
    example: async () => ({
      type: "api_contract",
      summary: "POST /login returns a session token",
      consuming_agents: ["bob"],
      payload: {
        service: "auth",
        version: "1",
        endpoints: [
          {
            method: "POST",
            path: "/login",
            response: { token: "string" },
            auth_required: false,
            description: "Log in",
          },
        ],
      },
      author: "alice",
    }),
    handler: (a, call) => {
      validatePayload(a.type, a.payload);
      return call.store.writeContext(call.scope, {
        type: a.type,
        summary: a.summary,
        consuming_agents: a.consuming_agents,
        payload: a.payload,
        author: a.author,
      });
    },
  }),
  defineTool({
    name: "read_context",
    title: "Read a context entry",
    description:
      "Read one context entry by id (its current version). With includeHistory, also the earlier versions, oldest first.",
    returns: "ContextEntry (with history when asked)",
    input: z.strictObject({
      roomId,
      id: contextId,
      includeHistory: z.boolean().optional().describe("Also return the earlier versions."),
    }),
    output: contextShape,
    effect: "read",
    errors: [NOT_FOUND],
    roundTrips: 1,
    example: async (room) => ({ id: (await writtenNote(room)).id }),
    handler: async (a, call) => {
      const entry = await call.store.readContext(call.scope, a.id);
      if (!a.includeHistory) return entry;
      return { ...entry, history: await call.store.contextHistory(call.scope, a.id) };
    },
  }),
  defineTool({
    name: "list_context",
    title: "List context entries",
    description: "List context entries, oldest first, optionally only one type and/or one author.",
    returns: "ContextEntry[], oldest first",
    input: z.strictObject({
      roomId,
      type: contextType.optional().describe("Only entries of this type."),
      author: otherAgentId.optional().describe("Only entries whose current version this agent wrote."),
    }),
    effect: "read",
    filters: ["author"],
    example: async (room) => {
      await writtenNote(room);
      return { type: "note", author: "alice" };
    },
    handler: (a, call) => call.store.listContext(call.scope, { type: a.type, author: a.author }),
  }),
  defineTool({
    name: "update_context",
    title: "Revise a context entry",
    description:
      "Revise a context entry in place (same id and type, version 1.0 → 1.1 → …); the previous version is kept in history. The payload is re-validated against the entry's type. Pass expectedVersion to refuse the update if someone revised it first. Consumers get a context_updated event.",
    returns: "ContextEntry (the new version)",
    input: z
      .strictObject({
        roomId,
        id: contextId,
        author: actingAgentId,
        summary: summary.optional(),
        consuming_agents: consumers.optional(),
        payload: payload.optional(),
        expectedVersion: version.optional(),
      })
      .refine((a) => a.summary !== undefined || a.consuming_agents !== undefined || a.payload !== undefined, {
        error: "give at least one of summary, consuming_agents or payload",
      }),
    output: contextShape,
    effect: "write",
    acting: ["author"],
    addressees: ["consuming_agents"],
    events: ["context_updated"],
    errors: [
      NOT_FOUND,
      "Version conflict: context <id> is at version <v>",
      'Invalid payload for context type "<type>": <path>: <problem>',
    ],
    example: async (room) => ({
      id: (await writtenNote(room)).id,
      author: "alice",
      summary: "Staging moved to port 8081",
    }),
    handler: (a, call) =>
      call.store.updateContext(call.scope, {
        id: a.id,
        author: a.author,
        summary: a.summary,
        consuming_agents: a.consuming_agents,
        payload: a.payload,
        expectedVersion: a.expectedVersion,
      }),
  }),
];
