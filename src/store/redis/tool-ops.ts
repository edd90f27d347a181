/** Deletions, history, templates, reviews, search and analytics of the Redis store: one script each. */
import type { AnalyticsLog } from "../../protocol/analytics.ts";
import { effectiveTask } from "../../protocol/leases.ts";
import type { ContextEntry, Review, RoomEvent, Task } from "../../protocol/records.ts";
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
import type { ContextVersion, RoomStore, UsableRoom } from "../types.ts";
import type { Bridge } from "./call.ts";
import { byCreation, type StoredEntry, type StoredEvent, sortTasks, toEntry, toEvent } from "./records.ts";
import type { RoomInfo } from "./room-index.ts";
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

const opt = (value: number | string | undefined) => (value === undefined ? "" : String(value));

interface StoredHit {
  id: string;
  len: number;
  tf: number[];
  r: Task | StoredEntry | StoredEvent;
}

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

type StoredLogEvent =
  | { e: Omit<RoomEvent, "read_by"> }
  | { h: Omit<RoomEvent, "read_by" | "payload" | "timestamp">; ms: number };

export function toolOps({ call, team, open, ttlMs }: Bridge): ToolOps {
  return {
    async deleteTask(scope, input) {
      const { value } = await call<Task>(scope, "DELETE_TASK", [
        input.agentId ?? "",
        input.taskId,
        opt(input.expectedVersion),
        input.force ? "1" : "0",
        input.agentId ?? "system",
      ]);
      return value;
    },

    async addDependency(scope, input) {
      const { value } = await call<Task>(scope, "ADD_DEPENDENCY", [
        input.agentId ?? "",
        input.taskId,
        opt(input.expectedVersion),
        input.dependsOn,
        input.agentId ?? "system",
      ]);
      return value;
    },

    async deleteContext(scope, input) {
      const { value } = await call<StoredEntry>(scope, "DELETE_CONTEXT", [
        input.id,
        input.agentId,
        input.expectedVersion ?? "",
      ]);
      return toEntry(value);
    },

    async contextVersions(scope, id) {
      const { value } = await call<StoredEntry & { h: ContextVersion[] }>(scope, "CONTEXT_VERSIONS", [id]);
      return { entry: toEntry(value), history: value.h };
    },

    async deleteEvent(scope, input) {
      const { value } = await call<StoredEvent>(scope, "DELETE_EVENT", [
        input.eventId,
        input.by,
        input.onlyAuthor ?? "",
      ]);
      return toEvent(value);
    },

    /**
     * The team's room index (one round trip). A room claimed within ROOM_TTL is live (a room lives ROOM_TTL past
     * its last use, and its claim was a use; with ROOM_TTL 0 every room lives); an older place is checked against
     * the room itself, one round trip each, so only rooms claimed more than ROOM_TTL ago cost more.
     */
    async usableRooms(teamId) {
      const { value, now } = await team<[string, number][]>(teamId, "ROOM_INDEX", []);
      const rooms = await Promise.all(
        value.map(async ([roomId, score]): Promise<UsableRoom | null> => {
          if (ttlMs === 0 || score > now - ttlMs) return { roomId, createdAt: iso(score) };
          const info = (await open<RoomInfo>(roomId, "", "ROOM_INFO", [])).value;
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
        const { value } = await call<{ tasks: Task[]; contexts: StoredEntry[] }>(
          scope,
          "SEED_ROOM",
          [
            agentId,
            seed.template,
            JSON.stringify(seed.tasks),
            JSON.stringify(seed.tasks.map((t) => fieldTerms(taskFields(t)))),
            JSON.stringify(
              seed.contexts.map((c) => ({
                type: c.type,
                summary: c.summary,
                consuming_agents: c.consuming_agents,
              })),
            ),
            JSON.stringify(seed.contexts.map((c) => fieldTerms(contextFields(c)))),
            ...seed.contexts.map((c) => JSON.stringify(c.payload)),
          ],
          ["roomNotEmpty"],
        );
        return { tasks: value.tasks, contexts: value.contexts.map(toEntry) };
      } catch (err) {
        if (err instanceof ScriptRefusal) throw toolErrors.roomNotEmpty(scope.roomId);
        throw err;
      }
    },

    async requestReview(scope, input) {
      const { value } = await call<Review>(scope, "REQUEST_REVIEW", [
        input.requester,
        input.reviewer,
        input.subject,
        input.details,
        input.taskId ?? "",
        input.contextId ?? "",
      ]);
      return value;
    },

    async decideReview(scope, input) {
      const { value } = await call<Review>(scope, "DECIDE_REVIEW", [
        input.reviewId,
        input.agentId,
        input.status,
        input.comment ?? "",
        input.comment === undefined ? "0" : "1",
      ]);
      return value;
    },

    async listReviews(scope, filter) {
      const { value } = await call<Review[]>(scope, "LIST_REVIEWS", []);
      return value.sort(byCreation).filter((r) => reviewMatches(r, filter));
    },

    async search(scope, query) {
      const { value } = await call<{ n: number; tokens: number; df: number[]; hits: StoredHit[] }>(
        scope,
        "SEARCH",
        [JSON.stringify(query.terms), ` ${query.types.join(" ")} `, String(query.limit)],
      );
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
      const { value, now } = await call<{
        events: StoredLogEvent[];
        posted: number[];
        tasks: Task[];
        contexts: Omit<ContextEntry, "payload">[];
        reads: (string | number)[];
      }>(scope, "ANALYTICS_LOG", []);
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
