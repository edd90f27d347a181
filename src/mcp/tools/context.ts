/** Context tools (7): typed, versioned artifacts such as API contracts and change requests, with their history. */
import { z } from "zod";
import { diffJson } from "../../protocol/json-patch.ts";
import { LIMITS } from "../../protocol/limits.ts";
import { validatePayload } from "../../protocol/payloads.ts";
import { FIELDS } from "../../protocol/record-fields.ts";
import type { ContextEntry } from "../../protocol/records.ts";
import { toolErrors } from "../../protocol/tool-errors.ts";
import { jsonObject } from "../../protocol/validation.ts";
import type { ContextVersion } from "../../store/types.ts";
import {
  actingAgentId,
  anyJsonValue,
  contextId,
  contextShape,
  contextType,
  otherAgentId,
  roomId,
} from "../schemas.ts";
import { defineTool, type ExampleRoom } from "../tool.ts";

const summary = FIELDS.contextSummary.describe("One or two sentences a consumer can act on.");
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

/** A version argument: "1.0", "1.1", … */
const versionArg = z.string().regex(/^1\.\d{1,6}$/, { error: 'must look like "1.0", "1.1", …' });
const versionShape = z.object({
  version: z.string(),
  author: z.string(),
  timestamp: z.string().describe("ISO 8601 time"),
  summary: z.string(),
  consuming_agents: z.array(z.string()),
  payload: z.record(z.string(), z.unknown()),
});
/** Every version of an entry, oldest first: its kept history, then the current one. */
function allVersions(entry: ContextEntry, history: ContextVersion[]): ContextVersion[] {
  const { id: _id, type: _type, ...current } = entry;
  return [...history, current];
}
const revisedNote = async (room: ExampleRoom) => {
  const note = await writtenNote(room);
  await room.call("update_context", {
    id: note.id,
    author: "alice",
    payload: { text: "Staging listens on port 8081.", references: ["ops"] },
  });
  return note;
};

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
  defineTool({
    name: "delete_context",
    title: "Delete a context entry",
    description:
      "Delete a context entry and its history (for an entry published by mistake; revise a wrong one with update_context instead). Pass expectedVersion to refuse the deletion if someone revised it first. Posts a context_deleted event holding the entry as it was, to its consumers.",
    returns: "ContextEntry (as it was before the deletion)",
    input: z.strictObject({
      roomId,
      id: contextId,
      agentId: actingAgentId,
      expectedVersion: version.optional(),
    }),
    output: contextShape,
    effect: "destructive",
    acting: ["agentId"],
    events: ["context_deleted"],
    errors: [NOT_FOUND, "Version conflict: context <id> is at version <v>"],
    example: async (room) => ({ id: (await writtenNote(room)).id, agentId: "alice" }),
    handler: (a, call) =>
      call.store.deleteContext(call.scope, {
        id: a.id,
        agentId: a.agentId,
        expectedVersion: a.expectedVersion,
      }),
  }),
  defineTool({
    name: "get_context_history",
    title: "Every version of a context entry",
    description:
      "Every version of a context entry, oldest first (1.0, 1.1, …, the current one last): who wrote each, when, its summary, consumers and payload. Use diff_context to see what changed between two of them.",
    returns:
      "{id, type, versions: [{version, author, timestamp, summary, consuming_agents, payload}] oldest first}",
    input: z.strictObject({ roomId, id: contextId }),
    output: z.object({
      id: z.string(),
      type: contextType,
      versions: z.array(versionShape),
    }),
    effect: "read",
    errors: [NOT_FOUND],
    example: async (room) => ({ id: (await revisedNote(room)).id }),
    handler: async (a, call) => {
      const { entry, history } = await call.store.contextVersions(call.scope, a.id);
      return { id: entry.id, type: entry.type, versions: allVersions(entry, history) };
    },
  }),
  defineTool({
    name: "diff_context",
    title: "What changed in a context entry",
    description:
      "What changed in a context entry's payload between two versions, as an RFC 6902 JSON Patch (deep: a changed field deep in an endpoint is one small operation). Applying the patch to the payload of version `from` gives the payload of version `to`. to defaults to the current version, from to the version before `to`.",
    returns: "{id, type, from, to, patch: RFC 6902 operations}",
    input: z.strictObject({
      roomId,
      id: contextId,
      from: versionArg.optional().describe('The older version, e.g. "1.0" (default: the one before `to`).'),
      to: versionArg.optional().describe('The newer version, e.g. "1.2" (default: the current one).'),
    }),
    output: z.object({
      id: z.string(),
      type: contextType,
      from: z.string(),
      to: z.string(),
      patch: z.array(
        z.object({
          op: z.enum(["add", "remove", "replace"]),
          path: z.string().describe("RFC 6901 JSON Pointer into the payload"),
          value: anyJsonValue.optional().describe("The new value (add, replace)"),
        }),
      ),
    }),
    effect: "read",
    errors: [NOT_FOUND, toolErrors.versionNotFound("<id>", "<v>", "<latest>").message],
    example: async (room) => ({ id: (await revisedNote(room)).id, from: "1.0", to: "1.1" }),
    handler: async (a, call) => {
      const { entry, history } = await call.store.contextVersions(call.scope, a.id);
      const versions = allVersions(entry, history);
      const pick = (v: string) => {
        const found = versions.find((x) => x.version === v);
        if (!found) throw toolErrors.versionNotFound(entry.id, v, entry.version);
        return found;
      };
      const to = pick(a.to ?? entry.version);
      const before = versions[versions.indexOf(to) - 1] ?? to;
      const from = a.from === undefined ? before : pick(a.from);
      return {
        id: entry.id,
        type: entry.type,
        from: from.version,
        to: to.version,
        patch: diffJson(from.payload, to.payload),
      };
    },
  }),
];
