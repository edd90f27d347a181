/**
 * Built-in room templates (tool create_room_from_template): a plan with dependencies and context stubs, made from a
 * few named parameters. A template is data plus a build function, so list_templates shows exactly what
 * create_room_from_template creates (with the defaults filled in).
 */
import { RoomError } from "./errors.ts";
import { AGENT_ID } from "./ids.ts";
import { validatePayload } from "./payloads.ts";
import type { ContextType, JsonObject } from "./records.ts";
import { toolErrors } from "./tool-errors.ts";
import { line } from "./validation.ts";

/** A task of a seed; depends_on holds indexes of earlier tasks of the same seed. */
export interface SeedTask {
  title: string;
  description: string;
  depends_on: number[];
  priority: number | null;
}

export interface SeedContext {
  type: ContextType;
  summary: string;
  consuming_agents: string[];
  payload: JsonObject;
}

/** What a template puts in an empty room, in order: tasks, then context entries. */
export interface RoomSeed {
  template: string;
  tasks: SeedTask[];
  contexts: SeedContext[];
}

export interface TemplateParam {
  name: string;
  description: string;
  default: string;
  /** "agent": an agent id (it becomes a consumer of context entries); "text": a short phrase. */
  kind: "agent" | "text";
}

export interface Template {
  name: string;
  title: string;
  description: string;
  params: TemplateParam[];
  /** Builds the seed; `param` gives each parameter's value (validated, default filled in). */
  build(param: (name: string) => string): Omit<RoomSeed, "template">;
}

/** Longest text parameter, so every title built from one stays within the title limit. */
export const TEMPLATE_TEXT_MAX = 80;
const TEXT_PARAM = line(1, TEMPLATE_TEXT_MAX);

const distinct = (agents: string[]) => [...new Set(agents)];

const apiHandoff: Template = {
  name: "api-handoff",
  title: "API handoff between a backend and a frontend agent",
  description:
    "The backend agent drafts and implements an API; the frontend agent builds against its contract. Creates a 4-task plan (contract → backend and frontend in parallel → integration) and an api_contract stub the frontend consumes.",
  params: [
    { name: "service", description: "Name of the API.", default: "api", kind: "text" },
    { name: "backend", description: "Agent id of the backend agent.", default: "backend", kind: "agent" },
    { name: "frontend", description: "Agent id of the frontend agent.", default: "frontend", kind: "agent" },
  ],
  build: (param) => {
    const [service, backend, frontend] = [param("service"), param("backend"), param("frontend")];
    return {
      tasks: [
        {
          title: `Draft the ${service} API contract`,
          description: `${backend}: replace the stub endpoints of the ${service} api_contract entry with the real ones (update_context), then mark this done.`,
          depends_on: [],
          priority: 1,
        },
        {
          title: `Implement the ${service} API`,
          description: `${backend}: implement every endpoint of the ${service} contract. Contract changes go through update_context so ${frontend} is told.`,
          depends_on: [0],
          priority: 2,
        },
        {
          title: `Build the ${service} client`,
          description: `${frontend}: build the client against the ${service} contract; ask for changes with a change_request entry, not by editing the contract.`,
          depends_on: [0],
          priority: 2,
        },
        {
          title: `Integrate the ${service} client with the API`,
          description: `${frontend} and ${backend}: run the client against the implemented API and fix what disagrees with the contract.`,
          depends_on: [1, 2],
          priority: 3,
        },
      ],
      contexts: [
        {
          type: "api_contract",
          summary: `${service} API contract (stub): ${backend} fills in the endpoints, ${frontend} builds against them`,
          consuming_agents: distinct([frontend]),
          payload: {
            service,
            version: "0.1",
            endpoints: [
              {
                method: "GET",
                path: "/health",
                response: { status: "string" },
                auth_required: false,
                description: "Stub endpoint: replace with the real ones",
              },
            ],
          },
        },
      ],
    };
  },
};

const reviewLoop: Template = {
  name: "review-loop",
  title: "Implement, review, revise",
  description:
    "An author agent implements a change and asks a named reviewer agent for a review (request_review); only that reviewer approves or rejects; on a rejection the author revises and asks again. Creates a 4-task plan and a note describing the loop to both agents.",
  params: [
    {
      name: "subject",
      description: "What is being built and reviewed.",
      default: "the change",
      kind: "text",
    },
    { name: "author", description: "Agent id of the implementing agent.", default: "author", kind: "agent" },
    { name: "reviewer", description: "Agent id of the reviewing agent.", default: "reviewer", kind: "agent" },
  ],
  build: (param) => {
    const [subject, author, reviewer] = [param("subject"), param("author"), param("reviewer")];
    return {
      tasks: [
        {
          title: `Implement ${subject}`,
          description: `${author}: implement ${subject}.`,
          depends_on: [],
          priority: 1,
        },
        {
          title: `Review ${subject}`,
          description: `${author}: call request_review naming ${reviewer}. ${reviewer}: read the work and call approve or reject with a comment.`,
          depends_on: [0],
          priority: 2,
        },
        {
          title: `Address the review of ${subject}`,
          description: `${author}: on a rejection, change what the comment asks and request a new review; on an approval, nothing to do.`,
          depends_on: [1],
          priority: 3,
        },
        {
          title: `Ship ${subject}`,
          description: `${author}: ship once ${reviewer} has approved the latest review.`,
          depends_on: [2],
          priority: 4,
        },
      ],
      contexts: [
        {
          type: "note",
          summary: `Review loop for ${subject}: ${author} implements, ${reviewer} approves or rejects`,
          consuming_agents: distinct([author, reviewer]),
          payload: {
            text: `${author} implements ${subject} and calls request_review naming ${reviewer}. Only ${reviewer} can approve or reject (with a comment). After a rejection ${author} revises and requests a new review; ship after an approval.`,
            references: ["request_review", "approve", "reject", "list_reviews"],
          },
        },
      ],
    };
  },
};

/** Every built-in template, by name. */
export const TEMPLATES: readonly Template[] = [apiHandoff, reviewLoop];
export const TEMPLATE_NAMES = TEMPLATES.map((t) => t.name) as [string, ...string[]];

export function findTemplate(name: string): Template {
  const template = TEMPLATES.find((t) => t.name === name);
  if (!template) throw new RoomError("invalid", `Invalid arguments: template: unknown template ${name}`);
  return template;
}

/**
 * The seed of a template from the given parameters (defaults for the others). An unknown parameter, an agent
 * parameter that is not an agent id, or a text one outside 1–TEMPLATE_TEXT_MAX characters is refused.
 */
export function buildSeed(template: Template, given: Record<string, string> = {}): RoomSeed {
  const params: Record<string, string> = {};
  for (const name of Object.keys(given)) {
    if (!template.params.some((p) => p.name === name)) {
      const known = template.params.map((p) => p.name).join(", ");
      throw new RoomError(
        "invalid",
        `Invalid arguments: params.${name}: template ${template.name} has no such parameter (it takes ${known})`,
      );
    }
  }
  for (const param of template.params) {
    const value = given[param.name] ?? param.default;
    const ok = param.kind === "agent" ? AGENT_ID.test(value) : TEXT_PARAM.safeParse(value).success;
    if (!ok) {
      const rule =
        param.kind === "agent"
          ? "must be an agent id (1-64 chars of A-Z, a-z, 0-9, _ . : -)"
          : `must be 1-${TEMPLATE_TEXT_MAX} characters without control characters`;
      throw new RoomError("invalid", `Invalid arguments: params.${param.name}: ${rule}`);
    }
    params[param.name] = value;
  }
  const seed = { template: template.name, ...template.build((name) => params[name] ?? "") };
  for (const entry of seed.contexts) validatePayload(entry.type, entry.payload);
  return seed;
}

/** Refuses filling a room that already has tasks, context entries or events: a template fills only an empty room. */
export function checkSeedable(
  roomId: string,
  room: { tasks: number; contexts: number; events: number },
): void {
  if (room.tasks > 0 || room.contexts > 0 || room.events > 0) throw toolErrors.roomNotEmpty(roomId);
}
