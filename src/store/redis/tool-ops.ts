/** Deletions, history, templates, reviews, search and analytics of the Redis store: one script each. */
import type { AnalyticsLog } from "../../protocol/analytics.ts";
import { RoomError } from "../../protocol/errors.ts";
import { effectiveTask } from "../../protocol/leases.ts";
import type { RoomEvent, Task } from "../../protocol/records.ts";
import { reviewMatches } from "../../protocol/reviews.ts";
import {
  type Candidate,
  contextFields,
  eventFields,
  fieldTerms,
  hitOf,
  kindOf,
  rank,
  type SearchFields,
  taskFields,
} from "../../protocol/search.ts";
import { iso } from "../../protocol/time.ts";
import { toolErrors } from "../../protocol/tool-errors.ts";
import type { RoomScope, RoomStore, UsableRoom } from "../types.ts";
import type { Bridge } from "./call.ts";
import type { RoomReply } from "./call-types.ts";
import type { StoredHit } from "./lua-tools.ts";
import { byCreation, type StoredEntry, type StoredEvent, sortTasks, toEntry, toEvent } from "./records.ts";
import { ScriptRefusal } from "./run.ts";

type ToolOps = Pick<
  RoomStore,
  | "deleteTask"
  | "addDependency"
  | "deleteContext"
  | "contextVersions"
  | "deleteEvent"
  | "usableRooms"
  | "seedRoom"
  | "requestReview"
  | "decideReview"
  | "listReviews"
  | "search"
  | "analyticsLog"
>;

/** Title and search fields of a hit's record, as the script returned it. */
function described(hit: StoredHit): { title: string; fields: SearchFields } {
  const kind = kindOf(hit.id);
  if (kind === "task") {
    const task = hit.r as Task;
    return { title: task.title, fields: taskFields(task) };
  }
  if (kind === "context") {
    const entry = toEntry(hit.r as StoredEntry);
    return { title: entry.summary, fields: contextFields(entry) };
  }
  const event = toEvent(hit.r as StoredEvent);
  return { title: event.type, fields: eventFields(event) };
}

/** Seqs per analytics page: about 0.1 s of redis-server time on a 2-core machine (docs/benchmarks.md). */
const ANALYTICS_PAGE = 1000;

export function toolOps({ call, team, open, ttlMs }: Bridge): ToolOps {
  /**
   * The analytics read in pages of ANALYTICS_PAGE seqs, one script each, so no call holds Redis for a whole long
   * log (a 50,000-event room took one script past the store timeout). Events never change once written, so pages
   * read at different instants still join into the log; the plan, context and deliveries come with the page that
   * reached the head, read at that page's instant. When the head fell back between pages (the room was deleted and
   * made again), the read starts over.
   */
  async function analyticsPages(scope: RoomScope) {
    for (let attempt = 0; ; attempt++) {
      const events: RoomReply<"ANALYTICS_LOG">["events"] = [];
      let from = 0;
      let seen = 0;
      for (;;) {
        const { value, now } = await call(scope, "ANALYTICS_LOG", { from, count: ANALYTICS_PAGE });
        if (value.top < seen) break;
        seen = value.top;
        events.push(...value.events);
        if (value.last) return { events, last: value.last, now };
        from = value.next;
      }
      if (attempt >= 3)
        throw new RoomError(
          "conflict",
          "The room was deleted and made again while its log was being read, three times over: read it again.",
        );
    }
  }

  return {
    async deleteTask(scope, input) {
      const { value } = await call(scope, "DELETE_TASK", {
        agent: input.agentId,
        id: input.taskId,
        expected: input.expectedVersion,
        force: input.force === true,
        from: input.agentId ?? "system",
      });
      return value;
    },

    async addDependency(scope, input) {
      const { value } = await call(scope, "ADD_DEPENDENCY", {
        agent: input.agentId,
        id: input.taskId,
        expected: input.expectedVersion,
        dep: input.dependsOn,
        from: input.agentId ?? "system",
      });
      return value;
    },

    async deleteContext(scope, input) {
      const { value } = await call(scope, "DELETE_CONTEXT", {
        id: input.id,
        agent: input.agentId,
        expected: input.expectedVersion,
      });
      return toEntry(value);
    },

    async contextVersions(scope, id) {
      const { value } = await call(scope, "CONTEXT_VERSIONS", { id });
      return { entry: toEntry(value), history: value.h };
    },

    async deleteEvent(scope, input) {
      const { value } = await call(scope, "DELETE_EVENT", {
        id: input.eventId,
        by: input.by,
        only: input.onlyAuthor,
      });
      return toEvent(value);
    },

    /**
     * The team's room index (one round trip). A room claimed within ROOM_TTL is live (a room lives ROOM_TTL past
     * its last use, and its claim was a use; with ROOM_TTL 0 every room lives); an older place is checked against
     * the room itself, one round trip each, so only rooms claimed more than ROOM_TTL ago cost more.
     */
    async usableRooms(teamId) {
      const { value, now } = await team(teamId, "ROOM_INDEX", {});
      const rooms = await Promise.all(
        value.map(async ([roomId, score]): Promise<UsableRoom | null> => {
          if (ttlMs === 0 || score > now - ttlMs) return { roomId, createdAt: iso(score) };
          const info = (await open(roomId, "", "ROOM_INFO", {})).value;
          const live = info.owner === teamId && (info.lastUsed === null || info.lastUsed > now - ttlMs);
          return live ? { roomId, createdAt: iso(score) } : null;
        }),
      );
      return rooms
        .filter((r): r is UsableRoom => r !== null)
        .sort((a, b) =>
          a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.roomId < b.roomId ? -1 : 1,
        );
    },

    async seedRoom(scope, seed, agentId) {
      try {
        const { value } = await call(
          scope,
          "SEED_ROOM",
          {
            agent: agentId,
            template: seed.template,
            tasks: seed.tasks,
            taskTerms: seed.tasks.map((t) => fieldTerms(taskFields(t))),
            contexts: seed.contexts.map((c) => ({
              type: c.type,
              summary: c.summary,
              consuming_agents: c.consuming_agents,
            })),
            contextTerms: seed.contexts.map((c) => fieldTerms(contextFields(c))),
            payloads: seed.contexts.map((c) => JSON.stringify(c.payload)),
          },
          ["roomNotEmpty"],
        );
        return { tasks: value.tasks, contexts: value.contexts.map(toEntry) };
      } catch (err) {
        if (err instanceof ScriptRefusal) throw toolErrors.roomNotEmpty(scope.roomId);
        throw err;
      }
    },

    async requestReview(scope, input) {
      const { value } = await call(scope, "REQUEST_REVIEW", {
        requester: input.requester,
        reviewer: input.reviewer,
        subject: input.subject,
        details: input.details,
        taskId: input.taskId,
        ctxId: input.contextId,
      });
      return value;
    },

    async decideReview(scope, input) {
      const { value } = await call(scope, "DECIDE_REVIEW", {
        id: input.reviewId,
        agent: input.agentId,
        status: input.status,
        comment: input.comment,
      });
      return value;
    },

    async listReviews(scope, filter) {
      const { value } = await call(scope, "LIST_REVIEWS", {});
      return value.sort(byCreation).filter((r) => reviewMatches(r, filter));
    },

    async search(scope, query) {
      const { value } = await call(scope, "SEARCH", {
        terms: query.terms,
        kinds: ` ${query.types.join(" ")} `,
        limit: query.limit,
      });
      if (value.hits.length === 0) return [];
      const stats = { documents: value.n, tokens: value.tokens, df: value.df };
      const byId = new Map(value.hits.map((h) => [h.id, h]));
      const candidates: Candidate[] = value.hits.map((h) => ({ id: h.id, length: h.len, tf: h.tf }));
      return rank(stats, candidates)
        .slice(0, query.limit)
        .map(({ id, score }) => {
          const { title, fields } = described(byId.get(id) as StoredHit);
          return hitOf(id, score, title, fields, query.terms);
        });
    },

    async analyticsLog(scope) {
      const { events: stored, last, now } = await analyticsPages(scope);
      const value = { events: stored, ...last };
      const events = value.events.map(
        (x): RoomEvent =>
          "e" in x ? toEvent({ e: x.e, r: [] }) : { ...x.h, payload: {}, timestamp: iso(x.ms), read_by: [] },
      );
      const reads: AnalyticsLog["reads"] = [];
      for (let i = 0; i < value.reads.length; i += 2) {
        const [seq, agent] = String(value.reads[i]).split(" ");
        reads.push({ seq: Number(seq), agent: agent as string, at: iso(Number(value.reads[i + 1])) });
      }
      reads.sort((a, b) => a.seq - b.seq || (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : 0));
      return {
        events,
        posted: value.posted.sort((a, b) => a - b),
        tasks: sortTasks(value.tasks).map((task) => effectiveTask(task, now)),
        contexts: value.contexts
          .sort(byCreation)
          .map((c) => ({ id: c.id, type: c.type, version: c.version })),
        reads,
      } satisfies AnalyticsLog;
    },
  };
}
