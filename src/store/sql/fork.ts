/**
 * Forks: a new room from the prefix seq ≤ atSeq of another's log, in one transaction that runs alone on both rooms.
 * Events are copied row for row (INSERT … SELECT, so 10,000 events cost milliseconds), with their posted mark and
 * tombstones. The plan and the reviews are rebuilt from the copied events (protocol/fork-rebuild.ts: task and
 * review events carry the whole record), and each context entry is taken at the version that was current when the
 * log's head was atSeq (versions record that head in at_seq). The fork's search index is built from what it holds,
 * as the writes would have built it (Search.putNew). A room whose log retention trimmed forks only at its head,
 * from its current plan and reviews.
 */
import { errors } from "../../protocol/errors.ts";
import {
  type ContextVersionAt,
  checkForkPoint,
  contextAt,
  FORK_PLAN_TYPES,
  forkFloors,
  type RebuildEvent,
  rebuildPlan,
  rebuildRecords,
  serialOf,
} from "../../protocol/fork-rebuild.ts";
import type { ForkedFrom } from "../../protocol/people.ts";
import { peopleErrors } from "../../protocol/people.ts";
import { BROADCAST, type ContextEntry, type Review, type Task } from "../../protocol/records.ts";
import { contextFields, eventFields, type SearchFields, taskFields } from "../../protocol/search.ts";
import type { ForkInput } from "../people-types.ts";
import type { RoomScope } from "../types.ts";
import type { DriverOps } from "./driver.ts";
import type { Events } from "./events.ts";
import type { Values } from "./room-values.ts";
import type { RoomRow, SqlParts } from "./rooms.ts";
import { type ContextRow, type EventRow, perDialect, toEvent } from "./rows.ts";
import type { Op } from "./run.ts";

/** FORK_PLAN_TYPES as an SQL list for `type IN (…)`. */
const FORK_PLAN_TYPES_SQL = [...FORK_PLAN_TYPES].map((t) => `'${t}'`).join(", ");

const isObject = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value);

interface RoomCounts {
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
  /** JSON {handoff, approval, verdict}: rooms.id_floors. */
  floors: string;
}

export function createFork(
  { sql, rooms, dialect }: SqlParts,
  events: Events,
  driver: DriverOps,
  values: Values,
) {
  const { search } = dialect;
  const copyEvents = sql.query<unknown, [{ src: string; dst: string; at: number }]>(
    `INSERT INTO events (room_id, seq, type, from_agent, to_agent, ts, payload, reply_to, posted, deleted_by,
       deleted_at)
     SELECT $dst, seq, type, from_agent, to_agent, ts, payload, reply_to, posted, deleted_by, deleted_at FROM events
     WHERE room_id = $src AND seq <= $at ORDER BY seq`,
  );
  const countAddressees = sql.query<unknown, [string]>(
    `INSERT INTO addr_counts (room_id, to_agent, n)
     SELECT room_id, to_agent, count(*) FROM events WHERE room_id = ?1 GROUP BY room_id, to_agent`,
  );
  // Events that change the plan or remove context (whole tasks in payload.task, and the deletions, lease expiries
  // and departures that carry ids), and those that create reviews, handoffs, approvals and verdicts. On PostgreSQL
  // a text match finds every payload with a "task" object (and perhaps a few more, which the filter below drops):
  // its JSON operators refuse a payload holding an escaped U+0000.
  const candidates = sql.query<
    { seq: number; type: string; ts: number; payload: string; posted: number },
    [string]
  >(
    perDialect(
      (d) => `SELECT seq, type, ts, payload, posted FROM events WHERE room_id = ?1
     AND (type IN (${FORK_PLAN_TYPES_SQL}) OR ${
       d === "sqlite" ? "json_type(payload, '$.task') = 'object'" : `payload LIKE '%"task":{%'`
     }) ORDER BY seq`,
    ),
  );
  // Events agents posted and nobody deleted: the searchable ones (read receipts play no part in the index).
  const searchable = sql.query<EventRow, [string]>(
    `SELECT e.seq, e.type, e.from_agent, e.to_agent, e.ts, e.payload, e.reply_to, e.deleted_by, e.deleted_at,
       '[]' AS read_by FROM events e WHERE e.room_id = ? AND e.posted = 1 AND e.deleted_by IS NULL ORDER BY e.seq`,
  );
  const insertReview = sql.query<unknown, [string, string, number, string]>(
    "INSERT INTO reviews (room_id, id, n, json) VALUES (?, ?, ?, ?)",
  );
  const currentTasks = sql.query<{ json: string }, [string]>(
    "SELECT json FROM tasks WHERE room_id = ? ORDER BY n",
  );
  const currentReviews = sql.query<{ json: string }, [string]>(
    "SELECT json FROM reviews WHERE room_id = ? ORDER BY n",
  );
  const recordIds = sql.query<{ kind: string; id: string }, [string]>(
    `SELECT 'handoff' AS kind, id FROM handoffs WHERE room_id = ?1
     UNION ALL SELECT 'approval', id FROM approvals WHERE room_id = ?1
     UNION ALL SELECT 'verdict', id FROM verdicts WHERE room_id = ?1`,
  );
  const tsAt = sql.query<{ ts: number }, [string, number]>(
    "SELECT ts FROM events WHERE room_id = ? AND seq = ?",
  );
  const entries = sql.query<ContextRow, [string]>(
    "SELECT id, n, type, json, at_seq FROM contexts WHERE room_id = ? ORDER BY n",
  );
  const history = sql.query<{ id: string; json: string; at_seq: number | null }, [string]>(
    "SELECT id, json, at_seq FROM context_history WHERE room_id = ? ORDER BY rowid",
  );
  const insertTask = sql.query<unknown, [string, string, number, string | null, string]>(
    "INSERT INTO tasks (room_id, id, n, owner, json) VALUES (?, ?, ?, ?, ?)",
  );
  const insertContext = sql.query<
    unknown,
    [string, string, number, string, string, number, string, number | null]
  >(
    `INSERT INTO contexts (room_id, id, n, type, author, changed_seq, json, at_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertHistory = sql.query<unknown, [string, string, string, number | null]>(
    "INSERT INTO context_history (room_id, id, json, at_seq) VALUES (?, ?, ?, ?)",
  );
  const setRoom = sql.query<unknown, [RoomCounts]>(
    `UPDATE rooms SET task_n = $task_n, ctx_n = $ctx_n, ctx_seq = $ctx_seq, event_seq = $event_seq,
     n_pending = $p, n_in_progress = $ip, n_done = $d, n_blocked = $b, n_contexts = $c,
     plan_created_at = $created, plan_updated_at = $updated, forked_from = $from, trimmed_seq = $trimmed,
     id_floors = $floors WHERE room_id = $room`,
  );

  /**
   * The plan of a room whose log retention trimmed, at its head: the tasks as they are (the log no longer holds
   * every task's history, so it cannot be replayed), with the room's own counters.
   */
  function* currentPlan(source: RoomRow) {
    const tasks = (yield* currentTasks.all(source.room_id)).map((row) => JSON.parse(row.json) as Task);
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
    *forkRoom(scope: RoomScope, input: ForkInput): Op<{ roomId: string; forkedFrom: ForkedFrom }> {
      // The write runs alone on the source; the new room is held next (on PostgreSQL its advisory lock: a deadlock
      // between two crossing forks is detected and the write retried).
      yield* dialect.lockRoom(input.newRoomId);
      const source = yield* rooms.check(scope);
      if (!source) throw errors.denied();
      const head = source.event_seq;
      const atSeq = input.atSeq ?? head;
      checkForkPoint(atSeq, head, source.trimmed_seq);
      // A trimmed log cannot be replayed: such a room forks at its head, from its current state.
      const trimmed = source.trimmed_seq > 0;
      const target = { roomId: input.newRoomId, teamId: scope.teamId, mayClaim: scope.mayClaim };
      if (yield* rooms.check(target)) throw peopleErrors.forkTargetExists(input.newRoomId);
      yield* rooms.claim(target);
      const dst = input.newRoomId;
      yield* copyEvents.run({ src: source.room_id, dst, at: atSeq });
      yield* countAddressees.run(dst);

      const log: RebuildEvent[] = (yield* candidates.all(dst))
        .map((row) => ({
          seq: row.seq,
          type: row.type,
          ts: row.ts,
          payload: JSON.parse(row.payload),
          posted: row.posted === 1,
        }))
        .filter((e) => FORK_PLAN_TYPES.has(e.type) || isObject(e.payload.task));
      const plan = trimmed ? yield* currentPlan(source) : rebuildPlan(log);
      // The fork's search documents, written in bulk once its records are in place.
      const docs: { id: string; fields: SearchFields }[] = [];
      for (const [i, task] of plan.tasks.entries()) {
        yield* insertTask.run(dst, task.id, i + 1, task.owner, JSON.stringify(task));
        docs.push({ id: task.id, fields: taskFields(task) });
      }
      const rebuilt = rebuildRecords(log);
      const reviews: Review[] = trimmed
        ? (yield* currentReviews.all(source.room_id)).map((row) => JSON.parse(row.json) as Review)
        : rebuilt.reviews;
      const floors = { ...rebuilt.floors };
      if (trimmed) {
        // The events that named the source's records may be trimmed: its records themselves give the floors.
        for (const review of reviews) floors.review = Math.max(floors.review, serialOf(review.id));
        for (const row of yield* recordIds.all(source.room_id)) {
          const kind = row.kind as "handoff" | "approval" | "verdict";
          floors[kind] = Math.max(floors[kind], serialOf(row.id));
        }
      }
      for (const review of reviews)
        yield* insertReview.run(dst, review.id, serialOf(review.id), JSON.stringify(review));

      // The instant the head moved past atSeq: versions written before at_seq was recorded are placed by it.
      const nextTs = atSeq === head ? null : ((yield* tsAt.get(source.room_id, atSeq + 1))?.ts ?? null);
      const earlier = new Map<string, ContextVersionAt[]>();
      for (const row of yield* history.all(source.room_id)) {
        const list = earlier.get(row.id) ?? [];
        list.push({ version: JSON.parse(row.json), atSeq: row.at_seq });
        earlier.set(row.id, list);
      }
      let ctxN = plan.deletedContexts.reduce(
        (max, id) => Math.max(max, serialOf(id)),
        trimmed ? source.ctx_n : 0,
      );
      let copied = 0;
      for (const row of yield* entries.all(source.room_id)) {
        if (plan.deletedContexts.includes(row.id)) continue;
        const { id: _id, type: _type, ...current } = JSON.parse(row.json) as ContextEntry;
        const versions = [...(earlier.get(row.id) ?? []), { version: current, atSeq: row.at_seq }];
        const at = contextAt(versions, atSeq, nextTs);
        if (!at) continue;
        copied += 1;
        ctxN = Math.max(ctxN, row.n);
        const entry = { id: row.id, type: row.type, ...at.current.version };
        for (const old of at.history) {
          yield* insertHistory.run(dst, row.id, JSON.stringify(old.version), old.atSeq);
        }
        yield* insertContext.run(
          dst,
          row.id,
          row.n,
          row.type,
          entry.author,
          copied,
          JSON.stringify(entry),
          at.current.atSeq,
        );
        docs.push({ id: row.id, fields: contextFields(entry as ContextEntry) });
      }
      for (const row of yield* searchable.all(dst)) {
        const event = toEvent(row);
        docs.push({ id: event.id, fields: eventFields(event) });
      }
      yield* search.putNew(dst, docs);

      const forkedFrom: ForkedFrom = { roomId: source.room_id, seq: atSeq };
      const counts = plan.byStatus;
      yield* setRoom.run({
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
        // Handoffs, approvals and verdicts are not copied: the fork's own start after every id its log names.
        floors: forkFloors(floors),
      });
      // Small values are not in the log: the kinds declared to fork are copied as they are now.
      yield* values.fill(dst, yield* values.forked(source.room_id), false);
      if (input.driver !== undefined) yield* driver.seed(dst, input.driver);
      yield* events.append(dst, {
        type: "room_forked",
        from: input.by,
        to: BROADCAST,
        payload: { from: forkedFrom },
      });
      return { roomId: dst, forkedFrom };
    },
  };
}
