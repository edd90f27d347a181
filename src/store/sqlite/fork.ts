/**
 * Forks (humans.md §5): a new room from the prefix seq ≤ atSeq of another's log, in one IMMEDIATE transaction.
 * Events are copied row for row (INSERT … SELECT, so 10,000 events cost milliseconds), with their posted mark and
 * tombstones. The plan and the reviews are rebuilt from the copied events (fork-rebuild.ts: task and review events
 * carry the whole record), and each context entry is taken at the version that was current when the log's head was
 * atSeq (context versions record that head in at_seq). The fork's search index is built from what it holds, as the
 * writes would have built it.
 */
import { errors } from "../../protocol/errors.ts";
import {
  type ContextVersionAt,
  contextAt,
  forkFloors,
  type RebuildEvent,
  rebuildPlan,
  rebuildRecords,
  serialOf,
} from "../../protocol/fork-rebuild.ts";
import { movingErrors } from "../../protocol/moving.ts";
import type { ForkedFrom } from "../../protocol/people.ts";
import { peopleErrors } from "../../protocol/people.ts";
import { BROADCAST, type ContextEntry, type Review, type Task } from "../../protocol/records.ts";
import { contextFields, eventFields, taskFields } from "../../protocol/search.ts";
import type { ForkInput } from "../people-types.ts";
import type { RoomScope } from "../types.ts";
import type { DriverOps } from "./driver.ts";
import type { Events } from "./events.ts";
import type { RoomRow, StoreParts } from "./rooms.ts";
import { type ContextRow, EVENT_COLUMNS, type EventRow, FORK_PLAN_TYPES_SQL, toEvent } from "./rows.ts";
import type { Search } from "./search.ts";

export function createFork({ db, rooms }: StoreParts, events: Events, driver: DriverOps, search: Search) {
  const copyEvents = db.query<unknown, { src: string; dst: string; at: number }>(
    `INSERT INTO events (room_id, seq, type, from_agent, to_agent, ts, payload, reply_to, posted, deleted_by,
       deleted_at)
     SELECT $dst, seq, type, from_agent, to_agent, ts, payload, reply_to, posted, deleted_by, deleted_at FROM events
     WHERE room_id = $src AND seq <= $at ORDER BY seq`,
  );
  const countAddressees = db.query<unknown, [string]>(
    `INSERT INTO addr_counts (room_id, to_agent, n)
     SELECT room_id, to_agent, count(*) FROM events WHERE room_id = ?1 GROUP BY to_agent`,
  );
  // Events that change the plan or remove context (whole tasks in payload.task, and the deletions, lease expiries
  // and departures that carry ids), and those that create reviews, handoffs, approvals and verdicts.
  const planEvents = db.query<
    { seq: number; type: string; ts: number; payload: string; posted: number },
    [string]
  >(
    `SELECT seq, type, ts, payload, posted FROM events WHERE room_id = ?1
     AND (type IN (${FORK_PLAN_TYPES_SQL}) OR json_type(payload, '$.task') = 'object')
     ORDER BY seq`,
  );
  // Events agents posted and nobody deleted: the searchable ones.
  const searchable = db.query<EventRow, [string]>(
    `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.room_id = ? AND e.posted = 1 AND e.deleted_by IS NULL
     ORDER BY e.seq`,
  );
  const insertReview = db.query<unknown, [string, string, number, string]>(
    "INSERT INTO reviews (room_id, id, n, json) VALUES (?, ?, ?, ?)",
  );
  const setFloors = db.query<unknown, [string, string]>("UPDATE rooms SET id_floors = ? WHERE room_id = ?");
  const tsAt = db.query<{ ts: number }, [string, number]>(
    "SELECT ts FROM events WHERE room_id = ? AND seq = ?",
  );
  const entries = db.query<ContextRow, [string]>(
    "SELECT id, n, type, json, at_seq FROM contexts WHERE room_id = ? ORDER BY n",
  );
  const history = db.query<{ id: string; json: string; at_seq: number | null }, [string]>(
    "SELECT id, json, at_seq FROM context_history WHERE room_id = ? ORDER BY rowid",
  );
  const insertTask = db.query<unknown, [string, string, number, string | null, string]>(
    "INSERT INTO tasks (room_id, id, n, owner, json) VALUES (?, ?, ?, ?, ?)",
  );
  const insertContext = db.query<
    unknown,
    [string, string, number, string, string, number, string, number | null]
  >(
    `INSERT INTO contexts (room_id, id, n, type, author, changed_seq, json, at_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertHistory = db.query<unknown, [string, string, string, number | null]>(
    "INSERT INTO context_history (room_id, id, json, at_seq) VALUES (?, ?, ?, ?)",
  );
  const setRoom = db.query<
    unknown,
    {
      room: string;
      task_n: number;
      ctx_n: number;
      ctx_seq: number;
      event_seq: number;
      p: number;
      ip: number;
      d: number;
      b: number;
      c: number;
      created: number | null;
      updated: number | null;
      from: string;
      trimmed: number;
    }
  >(
    `UPDATE rooms SET task_n = $task_n, ctx_n = $ctx_n, ctx_seq = $ctx_seq, event_seq = $event_seq,
     n_pending = $p, n_in_progress = $ip, n_done = $d, n_blocked = $b, n_contexts = $c,
     plan_created_at = $created, plan_updated_at = $updated, forked_from = $from, trimmed_seq = $trimmed
     WHERE room_id = $room`,
  );
  const currentTasks = db.query<{ json: string }, [string]>(
    "SELECT json FROM tasks WHERE room_id = ? ORDER BY n",
  );
  const currentReviews = db.query<{ json: string }, [string]>(
    "SELECT json FROM reviews WHERE room_id = ? ORDER BY n",
  );
  const recordIds = db.query<{ kind: string; id: string }, [string]>(
    `SELECT 'handoff' AS kind, id FROM handoffs WHERE room_id = ?1
     UNION ALL SELECT 'approval', id FROM approvals WHERE room_id = ?1
     UNION ALL SELECT 'verdict', id FROM verdicts WHERE room_id = ?1`,
  );

  /**
   * The plan of a room whose log retention trimmed, at its head: the tasks as they are (the log no longer holds
   * every task's history, so it cannot be replayed), with the room's own counters.
   */
  function currentPlan(source: RoomRow) {
    const tasks = currentTasks.all(source.room_id).map((row) => JSON.parse(row.json) as Task);
    const byStatus = { pending: 0, in_progress: 0, done: 0, blocked: 0 };
    for (const task of tasks) byStatus[task.status] += 1;
    return {
      tasks,
      taskN: source.task_n,
      byStatus,
      createdMs: source.plan_created_at,
      updatedMs: source.plan_updated_at,
      deletedContexts: [] as string[],
    };
  }

  return {
    forkRoom(scope: RoomScope, input: ForkInput): { roomId: string; forkedFrom: ForkedFrom } {
      const source = rooms.check(scope);
      if (!source) throw errors.denied();
      const head = source.event_seq;
      const atSeq = input.atSeq ?? head;
      if (atSeq > head) throw peopleErrors.forkPastHead(atSeq, head);
      // A trimmed log cannot be replayed: such a room forks only at its head, from its current state.
      const trimmed = source.trimmed_seq > 0;
      if (trimmed && atSeq < head) throw movingErrors.forkTrimmed(atSeq, head, source.trimmed_seq + 1);
      const target = { roomId: input.newRoomId, teamId: scope.teamId, mayClaim: scope.mayClaim };
      if (rooms.check(target)) throw peopleErrors.forkTargetExists(input.newRoomId);
      rooms.claim(target);
      const dst = input.newRoomId;
      copyEvents.run({ src: source.room_id, dst, at: atSeq });
      countAddressees.run(dst);

      const log: RebuildEvent[] = planEvents.all(dst).map((row) => ({
        seq: row.seq,
        type: row.type,
        ts: row.ts,
        payload: JSON.parse(row.payload),
        posted: row.posted === 1,
      }));
      const plan = trimmed ? currentPlan(source) : rebuildPlan(log);
      for (const [i, task] of plan.tasks.entries()) {
        insertTask.run(dst, task.id, i + 1, task.owner, JSON.stringify(task));
        search.put(dst, task.id, taskFields(task));
      }
      const rebuilt = rebuildRecords(log);
      const reviews: Review[] = trimmed
        ? currentReviews.all(source.room_id).map((row) => JSON.parse(row.json) as Review)
        : rebuilt.reviews;
      const floors = { ...rebuilt.floors };
      if (trimmed) {
        // The events that named the source's records may be trimmed: its records themselves give the floors.
        for (const review of reviews) floors.review = Math.max(floors.review, serialOf(review.id));
        for (const row of recordIds.all(source.room_id)) {
          const kind = row.kind as "handoff" | "approval" | "verdict";
          floors[kind] = Math.max(floors[kind], serialOf(row.id));
        }
      }
      for (const review of reviews)
        insertReview.run(dst, review.id, serialOf(review.id), JSON.stringify(review));
      for (const row of searchable.all(dst)) {
        const event = toEvent(row);
        search.put(dst, event.id, eventFields(event));
      }

      // The instant the head moved past atSeq: versions written before at_seq was recorded are placed by it.
      const nextTs = atSeq === head ? null : (tsAt.get(source.room_id, atSeq + 1)?.ts ?? null);
      const earlier = new Map<string, ContextVersionAt[]>();
      for (const row of history.all(source.room_id)) {
        const list = earlier.get(row.id) ?? [];
        list.push({ version: JSON.parse(row.json), atSeq: row.at_seq });
        earlier.set(row.id, list);
      }
      let ctxN = plan.deletedContexts.reduce(
        (max, id) => Math.max(max, serialOf(id)),
        trimmed ? source.ctx_n : 0,
      );
      let copied = 0;
      for (const row of entries.all(source.room_id)) {
        if (plan.deletedContexts.includes(row.id)) continue;
        const { id: _id, type: _type, ...current } = JSON.parse(row.json) as ContextEntry;
        const versions = [...(earlier.get(row.id) ?? []), { version: current, atSeq: row.at_seq }];
        const at = contextAt(versions, atSeq, nextTs);
        if (!at) continue;
        copied += 1;
        ctxN = Math.max(ctxN, row.n);
        const entry = { id: row.id, type: row.type, ...at.current.version };
        for (const old of at.history) insertHistory.run(dst, row.id, JSON.stringify(old.version), old.atSeq);
        insertContext.run(
          dst,
          row.id,
          row.n,
          row.type,
          entry.author,
          copied,
          JSON.stringify(entry),
          at.current.atSeq,
        );
        search.put(dst, row.id, contextFields(entry as ContextEntry));
      }

      const forkedFrom: ForkedFrom = { roomId: source.room_id, seq: atSeq };
      const counts = plan.byStatus;
      setRoom.run({
        room: dst,
        task_n: plan.taskN,
        ctx_n: ctxN,
        ctx_seq: copied,
        event_seq: atSeq,
        p: counts.pending,
        ip: counts.in_progress,
        d: counts.done,
        b: counts.blocked,
        c: copied,
        created: plan.createdMs,
        updated: plan.updatedMs,
        from: JSON.stringify(forkedFrom),
        trimmed: source.trimmed_seq,
      });
      setFloors.run(forkFloors(floors), dst);
      if (input.driver !== undefined) driver.seed(dst, input.driver);
      events.append(dst, {
        type: "room_forked",
        from: input.by,
        to: BROADCAST,
        payload: { from: forkedFrom },
      });
      return { roomId: dst, forkedFrom };
    },
  };
}
