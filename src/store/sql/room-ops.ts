/**
 * Operations that span areas: get_my_summary, and the writes that keep the search index (and the deletable-event
 * mark, the delivery times) in step inside the same transaction as the write itself.
 */
import type { Summary } from "../../protocol/records.ts";
import { contextFields, eventFields, taskFields } from "../../protocol/search.ts";
import type {
  ContextUpdate,
  NewContext,
  NewEvent,
  NewTask,
  RoomScope,
  SearchQuery,
  TaskUpdate,
} from "../types.ts";
import type { ContextOps } from "./context.ts";
import type { EventEdits } from "./event-edits.ts";
import type { Events } from "./events.ts";
import type { Mailbox } from "./mailbox.ts";
import type { PlanOps } from "./plan.ts";
import type { PresenceOps } from "./presence.ts";
import type { SqlParts } from "./rooms.ts";
import type { Op } from "./run.ts";

interface Deps {
  events: Events;
  eventEdits: EventEdits;
  plan: PlanOps;
  context: ContextOps;
  presence: PresenceOps;
  mailbox: Mailbox;
}

/** The summary of a room with no state yet. */
const emptySummary = (scope: RoomScope, agentId: string): Summary => ({
  agentId,
  roomId: scope.roomId,
  roomExists: false,
  myTasks: [],
  newContextCount: 0,
  presence: [],
  cursor: null,
  messages: [],
  unreadEvents: { events: [], cursor: null, count: 0, remaining: 0 },
});

export function createRoomOps({ sql, now, rooms, dialect }: SqlParts, deps: Deps) {
  const { events, eventEdits, plan, context, presence, mailbox } = deps;
  const { search } = dialect;
  const markContext = sql.query<unknown, [string, string, number]>(
    `INSERT INTO cursors (room_id, agent_id, seq, ctx_mark) VALUES (?1, ?2, NULL, ?3)
     ON CONFLICT (room_id, agent_id) DO UPDATE SET ctx_mark = excluded.ctx_mark`,
  );
  const contextMark = sql.query<{ ctx_mark: number }, [string, string]>(
    "SELECT ctx_mark FROM cursors WHERE room_id = ? AND agent_id = ?",
  );

  return {
    /** get_my_summary: heartbeat, consume, and the context count since the previous summary, all in one write. */
    *summary(scope: RoomScope, agentId: string, limit: number): Op<Summary> {
      // Never claims: a room not owned yet answers the empty summary and records nothing.
      if (!(yield* rooms.check(scope))) return emptySummary(scope, agentId);
      const room = yield* rooms.claim(scope);
      yield* presence.beat(scope.roomId, agentId);
      // Taken before the cursor moves: people's messages lead the summary whatever the backlog.
      const messages = yield* mailbox.takeMessages(scope.roomId, agentId);
      // The summary is a heartbeat: it renews the agent's leases and claims like any call naming it.
      yield* dialect.renew(scope.roomId, agentId, now());
      const unreadEvents = yield* events.deliver(scope, room, agentId, limit, true);
      yield* eventEdits.delivered(scope.roomId, agentId, unreadEvents.events);
      const mark = (yield* contextMark.get(scope.roomId, agentId))?.ctx_mark ?? 0;
      const newContextCount = yield* context.countChangedSince(scope.roomId, mark);
      yield* markContext.run(scope.roomId, agentId, room.ctx_seq);
      return {
        agentId,
        roomId: scope.roomId,
        roomExists: true,
        messages,
        myTasks: yield* plan.myTasks(scope.roomId, agentId),
        unreadEvents,
        newContextCount,
        presence: yield* presence.list(scope.roomId),
        cursor: unreadEvents.cursor,
      };
    },
    *addTask(scope: RoomScope, input: NewTask) {
      const task = yield* plan.addTask(scope, input);
      yield* search.put(scope.roomId, task.id, taskFields(task));
      return task;
    },
    *updateTask(scope: RoomScope, input: TaskUpdate) {
      const task = yield* plan.updateTask(scope, input);
      if (input.title !== undefined || input.description !== undefined) {
        yield* search.put(scope.roomId, task.id, taskFields(task));
      }
      return task;
    },
    *writeContext(scope: RoomScope, input: NewContext) {
      const entry = yield* context.writeContext(scope, input);
      yield* search.put(scope.roomId, entry.id, contextFields(entry));
      return entry;
    },
    *updateContext(scope: RoomScope, input: ContextUpdate) {
      const entry = yield* context.updateContext(scope, input);
      if (input.summary !== undefined || input.payload !== undefined) {
        yield* search.put(scope.roomId, entry.id, contextFields(entry));
      }
      return entry;
    },
    *postEvent(scope: RoomScope, input: NewEvent) {
      const event = yield* events.postEvent(scope, input);
      yield* eventEdits.posted(scope.roomId, event.seq);
      yield* search.put(scope.roomId, event.id, eventFields(event));
      return event;
    },
    *consumeEvents(scope: RoomScope, agentId: string, limit: number) {
      const batch = yield* events.consumeEvents(scope, agentId, limit);
      yield* eventEdits.delivered(scope.roomId, agentId, batch.events);
      return batch;
    },
    *searchRoom(scope: RoomScope, query: SearchQuery) {
      const room = yield* rooms.read(scope);
      return room ? yield* search.search(room.room_id, query) : [];
    },
  };
}
