/** Room tools (3): which rooms this key can use, and starting a room from a built-in template. */

import { z } from "zod";
import { reachesRoom } from "../../protocol/key-life.ts";
import {
  buildSeed,
  findTemplate,
  TEMPLATE_NAMES,
  TEMPLATES,
  type Template,
} from "../../protocol/templates.ts";
import { toolErrors } from "../../protocol/tool-errors.ts";
import { actingAgentId, contextShape, roomId, taskShape } from "../schemas.ts";
import { defineTool } from "../tool.ts";

/** What list_templates shows of a template: its seed with the defaults, with the ids it gets in a new room. */
function described(template: Template) {
  const seed = buildSeed(template);
  const taskIds = seed.tasks.map((_, i) => `task-${i + 1}`);
  return {
    name: template.name,
    title: template.title,
    description: template.description,
    params: template.params.map((p) => ({ ...p })),
    tasks: seed.tasks.map((t, i) => ({
      id: taskIds[i] as string,
      title: t.title,
      description: t.description,
      depends_on: t.depends_on.map((d) => taskIds[d] as string),
      priority: t.priority,
    })),
    contexts: seed.contexts.map((c, i) => ({ id: `ctx-${i + 1}`, ...c })),
  };
}
/** Built once: templates are code. */
const LISTED = TEMPLATES.map(described);

const templateShape = z.object({
  name: z.string(),
  title: z.string(),
  description: z.string(),
  params: z.array(
    z.object({
      name: z.string(),
      description: z.string(),
      default: z.string(),
      kind: z.enum(["agent", "text"]),
    }),
  ),
  tasks: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      description: z.string(),
      depends_on: z.array(z.string()),
      priority: z.number().nullable(),
    }),
  ),
  contexts: z.array(
    z.object({
      id: z.string(),
      type: z.string(),
      summary: z.string(),
      consuming_agents: z.array(z.string()),
      payload: z.record(z.string(), z.unknown()),
    }),
  ),
});

export const roomTools = [
  defineTool({
    name: "list_rooms",
    title: "List my rooms",
    description:
      "The rooms this key can use: every live room of your team (oldest first), or for an invite its one room. Use it to find a room id again.",
    returns: "{rooms: [{roomId, createdAt}], count}",
    input: z.strictObject({}),
    output: z.object({
      rooms: z.array(z.object({ roomId: z.string(), createdAt: z.string().describe("ISO 8601 time") })),
      count: z.number().int(),
    }),
    effect: "read",
    room: false,
    example: async () => ({}),
    handler: async (_a, call) => {
      const all = await call.store.usableRooms(call.principal.teamId);
      // An invite's or a scoped key's other rooms are not listed (protocol/key-life.ts).
      const rooms = all.filter((r) => reachesRoom(call.principal, r.roomId));
      return { rooms, count: rooms.length };
    },
  }),
  defineTool({
    name: "list_templates",
    title: "List room templates",
    description:
      "The built-in room templates, each with its parameters (and defaults) and exactly the tasks (with dependencies) and context entries create_room_from_template makes from the defaults.",
    returns: "{templates: [{name, title, description, params, tasks, contexts}]}",
    input: z.strictObject({}),
    output: z.object({ templates: z.array(templateShape) }),
    effect: "read",
    room: false,
    // Templates are code: listing them reads no store.
    roundTrips: 0,
    example: async () => ({}),
    handler: async () => ({ templates: LISTED }),
  }),
  defineTool({
    name: "create_room_from_template",
    title: "Create a room from a template",
    description:
      "Start a new room from a built-in template (list_templates shows them): its tasks with their dependencies and its context stubs are created at once, as you, and the room becomes your team's. Refused for a room that already has tasks, context or events. Posts task_added and context_available events, then template_applied.",
    returns: "{roomId, template, tasks: Task[], contexts: ContextEntry[]}",
    input: z.strictObject({
      roomId,
      template: z.enum(TEMPLATE_NAMES).describe("Template name, e.g. api-handoff or review-loop."),
      params: z
        .record(z.string(), z.string().max(100))
        .optional()
        .describe(
          "Template parameters by name (list_templates shows each template's, with defaults), e.g. {backend: 'api-agent', frontend: 'web-agent'}.",
        ),
      agentId: actingAgentId,
    }),
    output: z.object({
      roomId: z.string(),
      template: z.string(),
      tasks: z.array(taskShape),
      contexts: z.array(contextShape),
    }),
    effect: "write",
    acting: ["agentId"],
    events: ["task_added", "context_available", "template_applied"],
    errors: [
      toolErrors.roomNotEmpty("<roomId>").message,
      "Invalid arguments: params.<name>: <problem>",
      "Plan is locked by <agent> until <time>; retry after it",
    ],
    example: async () => ({
      template: "api-handoff",
      params: { backend: "alice", frontend: "bob" },
      agentId: "alice",
    }),
    handler: async (a, call) => {
      const seed = buildSeed(findTemplate(a.template), a.params);
      const made = await call.store.seedRoom(call.scope, seed, a.agentId);
      return { roomId: a.roomId, template: seed.template, ...made };
    },
  }),
];
