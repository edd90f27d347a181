/**
 * Room-level reads and writes of the tools that span areas: the rooms a team can use, filling an empty room from a
 * template, and everything the analytics read. Each runs inside the caller's transaction.
 */
import type { AnalyticsLog } from "../../protocol/analytics.ts";
import { effectiveTask } from "../../protocol/leases.ts";
import type { ContextEntry, Task } from "../../protocol/records.ts";
import { BROADCAST } from "../../protocol/records.ts";
import { contextFields, taskFields } from "../../protocol/search.ts";
import { checkSeedable, type RoomSeed } from "../../protocol/templates.ts";
import { iso } from "../../protocol/time.ts";
import type { RoomScope, UsableRoom } from "../types.ts";
import type { ContextOps } from "./context.ts";
import type { Events } from "./events.ts";
import type { Locks } from "./locks.ts";
import type { PlanOps } from "./plan.ts";
import type { SqlParts } from "./rooms.ts";
import { type EventRow, toEvent } from "./rows.ts";
import type { Op } from "./run.ts";

interface Deps {
  events: Events;
  locks: Locks;
  plan: PlanOps;
  context: ContextOps;
}

export function createRoomTools(
  { sql, now, rooms, dialect }: SqlParts,
  { events, locks, plan, context }: Deps,
) {
  const usable = sql.query<{ room_id: string; created_at: number }, [string, number]>(
    "SELECT room_id, created_at FROM rooms WHERE owner = ? AND last_activity > ? ORDER BY created_at, room_id",
  );
  // Payloads only where the analytics read them (task and context events, agent_left, agent_suspended, room_forked), so a long log
  // stays cheap.
  const log = sql.query<EventRow & { posted: number }, [string]>(
    `SELECT e.seq, e.type, e.from_agent, e.to_agent, e.ts, e.reply_to, e.deleted_by, e.deleted_at, '[]' AS read_by,
       e.posted,
       CASE WHEN substr(e.type, 1, 5) = 'task_' OR substr(e.type, 1, 8) = 'context_'
         OR e.type IN ('agent_left', 'agent_suspended', 'room_forked') THEN e.payload ELSE '{}' END AS payload
     FROM events e WHERE e.room_id = ? ORDER BY e.seq`,
  );
  const tasks = sql.query<{ json: string }, [string]>("SELECT json FROM tasks WHERE room_id = ? ORDER BY n");
  const contexts = sql.query<{ id: string; type: string; json: string }, [string]>(
    "SELECT id, type, json FROM contexts WHERE room_id = ? ORDER BY n",
  );
  const reads = sql.query<{ seq: number; agent: string; at: number }, [string]>(
    "SELECT seq, agent_id AS agent, at FROM context_reads WHERE room_id = ? ORDER BY seq, agent_id",
  );

  return {
    *usableRooms(teamId: string): Op<UsableRoom[]> {
      return (yield* usable.all(teamId, rooms.liveAfter(now()))).map((r) => ({
        roomId: r.room_id,
        createdAt: iso(r.created_at),
      }));
    },
    *seedRoom(
      scope: RoomScope,
      seed: RoomSeed,
      agentId: string,
    ): Op<{ tasks: Task[]; contexts: ContextEntry[] }> {
      const room = yield* rooms.check(scope);
      if (room)
        checkSeedable(scope.roomId, { tasks: room.task_n, contexts: room.ctx_n, events: room.event_seq });
      if (room) yield* locks.assertPlanWritable(room.room_id, agentId);
      const made: Task[] = [];
      for (const t of seed.tasks) {
        const depends_on = t.depends_on.map((i) => (made[i] as Task).id);
        const task = yield* plan.addTask(scope, { ...t, depends_on, agentId });
        yield* dialect.search.put(scope.roomId, task.id, taskFields(task));
        made.push(task);
      }
      const entries: ContextEntry[] = [];
      for (const c of seed.contexts) {
        const entry = yield* context.writeContext(scope, { ...c, author: agentId });
        yield* dialect.search.put(scope.roomId, entry.id, contextFields(entry));
        entries.push(entry);
      }
      yield* rooms.claim(scope);
      yield* events.append(scope.roomId, {
        type: "template_applied",
        from: agentId,
        to: BROADCAST,
        payload: {
          template: seed.template,
          tasks: made.map((t) => t.id),
          contexts: entries.map((e) => e.id),
        },
      });
      return { tasks: made, contexts: entries };
    },
    *analyticsLog(scope: RoomScope): Op<AnalyticsLog> {
      const room = yield* rooms.read(scope);
      if (!room) return { events: [], posted: [], tasks: [], contexts: [], reads: [] };
      const rows = yield* log.all(room.room_id);
      const t = now();
      return {
        events: rows.map(toEvent),
        posted: rows.flatMap((r) => (r.posted === 1 ? [r.seq] : [])),
        tasks: (yield* tasks.all(room.room_id)).map((r) => effectiveTask(JSON.parse(r.json), t)),
        contexts: (yield* contexts.all(room.room_id)).map(({ id, type, json }) => ({
          id,
          type,
          version: (JSON.parse(json) as ContextEntry).version,
        })),
        reads: (yield* reads.all(room.room_id)).map((r) => ({ seq: r.seq, agent: r.agent, at: iso(r.at) })),
      };
    },
  };
}
