/** Search and analytics tools (2): finding things in a room, and what its log says about the work. */
import { z } from "zod";
import { computeAnalytics } from "../../protocol/analytics.ts";
import { TASK_STATUSES } from "../../protocol/records.ts";
import {
  QUERY_TERMS_MAX,
  SEARCH_KINDS,
  SEARCH_LIMIT_DEFAULT,
  SEARCH_LIMIT_MAX,
  searchTerms,
} from "../../protocol/search.ts";
import { roomId } from "../schemas.ts";
import { defineTool } from "../tool.ts";

const counts = z.record(z.string(), z.number().int());
const iso = z.string().describe("ISO 8601 time");

export const searchTools = [
  defineTool({
    name: "search",
    title: "Search the room",
    description:
      "Full-text search of the room's tasks (title, description), context entries (summary, payload text) and posted events (type, payload text), best match first (bm25). Every word must occur; case and accents are ignored; whole words only. Each hit has a snippet with the words in **bold**.",
    returns: "{query, terms, hits: [{type, id, score, title, field, snippet}], count}",
    input: z.strictObject({
      roomId,
      query: z.string().min(1).max(500).describe("Words to find, e.g. 'login token'."),
      types: z
        .array(z.enum(SEARCH_KINDS))
        .min(1)
        .max(SEARCH_KINDS.length)
        .optional()
        .describe("Only these kinds: task, context, event (default all)."),
      limit: z
        .number()
        .int()
        .min(1)
        .max(SEARCH_LIMIT_MAX)
        .optional()
        .describe(`Most hits (default ${SEARCH_LIMIT_DEFAULT}).`),
    }),
    output: z.object({
      query: z.string(),
      terms: z.array(z.string()).describe("The words searched for, as matched: lower case, accents removed"),
      hits: z.array(
        z.object({
          type: z.enum(SEARCH_KINDS),
          id: z.string(),
          score: z.number().describe("bm25 relevance, higher is better"),
          title: z.string(),
          field: z.string(),
          snippet: z.string(),
        }),
      ),
      count: z.number().int(),
    }),
    effect: "read",
    errors: [
      "Invalid arguments: query: has no word to search for (letters or digits)",
      `Invalid arguments: query: at most ${QUERY_TERMS_MAX} different words`,
    ],
    example: async (room) => {
      await room.call("add_task", { title: "Write the login endpoint", agentId: "alice" });
      return { query: "login", types: ["task"] };
    },
    handler: async (a, call) => {
      const terms = searchTerms(a.query);
      const hits = await call.store.search(call.scope, {
        terms,
        types: a.types ? [...new Set(a.types)] : SEARCH_KINDS,
        limit: a.limit ?? SEARCH_LIMIT_DEFAULT,
      });
      return { query: a.query, terms, hits, count: hits.length };
    },
  }),
  defineTool({
    name: "get_room_analytics",
    title: "Room analytics",
    description:
      "How the work in the room went, from its event log: tasks by status, tasks done per agent, median time from claiming a task to finishing it, handoffs (a task passing from one agent to another), context churn (updates per entry), events per agent, and how long each consumer took to receive an api_contract update.",
    returns:
      "{roomId, eventCount, taskCount, tasksByStatus, tasksDeleted, donePerAgent, claimToDone, handoffs, contextChurn, eventsPerAgent, contractReads}",
    input: z.strictObject({ roomId }),
    output: z.object({
      roomId: z.string(),
      eventCount: z.number().int(),
      taskCount: z.number().int(),
      tasksByStatus: z.object(Object.fromEntries(TASK_STATUSES.map((s) => [s, z.number().int()]))),
      tasksDeleted: z.number().int(),
      donePerAgent: counts,
      claimToDone: z.object({ count: z.number().int(), medianMs: z.number().nullable() }),
      handoffs: z.number().int(),
      contextChurn: z.object({
        entries: z.number().int(),
        updates: z.number().int(),
        deleted: z.number().int(),
        byEntry: z.array(
          z.object({
            contextId: z.string(),
            type: z.string(),
            version: z.string(),
            updates: z.number().int(),
          }),
        ),
      }),
      eventsPerAgent: counts,
      contractReads: z.object({
        count: z.number().int(),
        read: z.number().int(),
        unread: z.number().int(),
        medianMs: z.number().nullable(),
        reads: z.array(
          z.object({
            contextId: z.string(),
            version: z.string(),
            updatedAt: iso,
            consumer: z.string(),
            readAt: iso.nullable(),
            lagMs: z.number().nullable(),
          }),
        ),
      }),
    }),
    effect: "read",
    example: async (room) => {
      await room.call("add_task", { title: "Write the login endpoint", agentId: "alice" });
      return {};
    },
    handler: async (a, call) => computeAnalytics(a.roomId, await call.store.analyticsLog(call.scope)),
  }),
];
