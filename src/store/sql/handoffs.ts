/**
 * Handoffs: an offer of tasks and context to another agent or to any agent; acceptance moves the tasks whose owner
 * is still the one recorded at the offer, in the same transaction as the decision, so two acceptors racing get one
 * winner and the other a conflict naming it. Tasks are seen as reads show them (a lease that ran out is its
 * holder's no more); acceptance is a plan write (plan lock, leases that ran out recorded first) and a moved task's
 * lease ends, since it leaves its holder (protocol/leases.ts).
 */
import { errors } from "../../protocol/errors.ts";
import { effectiveTask } from "../../protocol/leases.ts";
import {
  ANY_AGENT,
  type Handoff,
  type HandoffStatus,
  handoffMoves,
  peopleErrors,
} from "../../protocol/people.ts";
import {
  checkHandoffAccept,
  checkHandoffCancel,
  checkHandoffDecline,
  checkHandoffOpen,
  checkHandoffTask,
  newHandoff,
} from "../../protocol/people-rules.ts";
import { BROADCAST, type Task } from "../../protocol/records.ts";
import { handedTask } from "../../protocol/task-rules.ts";
import { iso } from "../../protocol/time.ts";
import type { NewHandoff } from "../people-types.ts";
import type { RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { Leases } from "./leases.ts";
import type { Locks } from "./locks.ts";
import type { SqlParts } from "./rooms.ts";
import type { Op } from "./run.ts";
import { createNextSerial } from "./serials.ts";

const parse = (row: { json: string }): Handoff => JSON.parse(row.json);
const audience = (to: string) => (to === ANY_AGENT ? BROADCAST : to);

export function createHandoffs(
  { sql, now, rooms }: SqlParts,
  events: Events,
  locks: Locks,
  leases: Pick<Leases, "recordExpired" | "store">,
) {
  const get = sql.query<{ json: string }, [string, string]>(
    "SELECT json FROM handoffs WHERE room_id = ? AND id = ?",
  );
  const all = sql.query<{ json: string }, [string]>("SELECT json FROM handoffs WHERE room_id = ? ORDER BY n");
  // A fork's own continue after every id its copied log names (rooms.id_floors).
  const nextN = createNextSerial(sql, "handoff");
  const insert = sql.query<unknown, [string, string, number, string]>(
    "INSERT INTO handoffs (room_id, id, n, json) VALUES (?, ?, ?, ?)",
  );
  const update = sql.query<unknown, [string, string, string]>(
    "UPDATE handoffs SET json = ? WHERE room_id = ? AND id = ?",
  );
  const taskGet = sql.query<{ json: string }, [string, string]>(
    "SELECT json FROM tasks WHERE room_id = ? AND id = ?",
  );
  const contextExists = sql.query<{ one: number }, [string, string]>(
    "SELECT 1 AS one FROM contexts WHERE room_id = ? AND id = ?",
  );

  /** A task as reads show it (once leases that ran out are recorded, exactly as stored). */
  function* task(roomId: string, id: string): Op<Task | undefined> {
    const row = yield* taskGet.get(roomId, id);
    return row ? effectiveTask(JSON.parse(row.json) as Task, now()) : undefined;
  }

  function* find(roomId: string, id: string): Op<Handoff> {
    const row = yield* get.get(roomId, id);
    if (!row) throw peopleErrors.handoffNotFound(id);
    return parse(row);
  }

  /** An open offer of a live room, or the refusal naming who closed it. */
  function* open(scope: RoomScope, id: string): Op<Handoff> {
    const room = yield* rooms.check(scope);
    if (!room) throw peopleErrors.handoffNotFound(id);
    const handoff = yield* find(room.room_id, id);
    checkHandoffOpen(handoff);
    return handoff;
  }

  function* close(roomId: string, closed: Handoff): Op<void> {
    yield* update.run(JSON.stringify(closed), roomId, closed.id);
  }

  return {
    *offerHandoff(scope: RoomScope, input: NewHandoff): Op<Handoff> {
      const room = yield* rooms.check(scope);
      const owners: Record<string, string | null> = {};
      for (const taskId of input.taskIds) {
        const current = room ? yield* task(room.room_id, taskId) : undefined;
        if (!current) throw errors.taskNotFound(taskId);
        checkHandoffTask(input, taskId, current.owner);
        owners[taskId] = current.owner;
      }
      for (const contextId of input.contextIds) {
        if (!room || !(yield* contextExists.get(room.room_id, contextId)))
          throw errors.contextNotFound(contextId);
      }
      yield* rooms.claim(scope);
      const n = yield* nextN(scope.roomId);
      const handoff = newHandoff(n, input, owners, now());
      yield* insert.run(scope.roomId, handoff.id, n, JSON.stringify(handoff));
      yield* events.append(scope.roomId, {
        type: "handoff_offered",
        from: input.offeredBy,
        to: audience(input.to),
        payload: { handoff },
      });
      return handoff;
    },
    *acceptHandoff(scope: RoomScope, input: { id: string; agentId: string }): Op<Handoff> {
      const handoff = yield* open(scope, input.id);
      checkHandoffAccept(handoff, input.agentId);
      const roomId = scope.roomId;
      // Moving tasks is a plan write: the plan lock, then the leases that ran out, like every other one.
      if (handoff.taskIds.length > 0) {
        yield* locks.assertPlanWritable(roomId, input.agentId);
        yield* leases.recordExpired(roomId);
      }
      const tasks = new Map<string, Task | undefined>();
      for (const id of handoff.taskIds) tasks.set(id, yield* task(roomId, id));
      const { move, conflicts } = handoffMoves(handoff, (id) => tasks.get(id));
      yield* rooms.claim(scope);
      const t = now();
      for (const taskId of move) {
        // The lease ends: the task leaves its holder (the acceptor owns it without one, like any assignment).
        const previous = (yield* task(roomId, taskId)) as Task;
        const moved = handedTask(previous, input.agentId, t);
        yield* leases.store(roomId, moved, null);
        yield* rooms.planChanged(roomId, t);
        yield* events.append(roomId, {
          type: "task_updated",
          from: input.agentId,
          to: BROADCAST,
          payload: {
            task: moved,
            previousStatus: previous.status,
            changes: { owner: input.agentId, note: `handoff ${handoff.id} from ${handoff.from}` },
          },
        });
      }
      const accepted: Handoff = {
        ...handoff,
        status: "accepted",
        closedBy: input.agentId,
        moved: move,
        conflicts,
        updated_at: iso(t),
      };
      yield* close(roomId, accepted);
      yield* events.append(roomId, {
        type: "handoff_accepted",
        from: input.agentId,
        to: BROADCAST,
        payload: { handoffId: handoff.id, from: handoff.from, by: input.agentId, moved: move, conflicts },
      });
      return accepted;
    },
    *declineHandoff(scope: RoomScope, input: { id: string; agentId: string; reason: string }): Op<Handoff> {
      const handoff = yield* open(scope, input.id);
      checkHandoffDecline(handoff, input.agentId);
      yield* rooms.claim(scope);
      const declined: Handoff = {
        ...handoff,
        status: "declined",
        closedBy: input.agentId,
        reason: input.reason,
        updated_at: iso(now()),
      };
      yield* close(scope.roomId, declined);
      yield* events.append(scope.roomId, {
        type: "handoff_declined",
        from: input.agentId,
        to: handoff.from,
        payload: { handoffId: handoff.id, by: input.agentId, reason: input.reason },
      });
      return declined;
    },
    *cancelHandoff(scope: RoomScope, input: { id: string; by: string }): Op<Handoff> {
      const handoff = yield* open(scope, input.id);
      checkHandoffCancel(handoff, input.by);
      yield* rooms.claim(scope);
      const cancelled: Handoff = {
        ...handoff,
        status: "cancelled",
        closedBy: input.by,
        updated_at: iso(now()),
      };
      yield* close(scope.roomId, cancelled);
      yield* events.append(scope.roomId, {
        type: "handoff_cancelled",
        from: input.by,
        to: audience(handoff.to),
        payload: { handoffId: handoff.id, by: input.by },
      });
      return cancelled;
    },
    *listHandoffs(scope: RoomScope, status?: HandoffStatus): Op<Handoff[]> {
      const room = yield* rooms.read(scope);
      if (!room) return [];
      const list = (yield* all.all(room.room_id)).map(parse);
      return status === undefined ? list : list.filter((h) => h.status === status);
    },
  };
}
