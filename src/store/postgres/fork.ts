/**
 * Forks (humans.md §5), as the SQLite driver's (src/store/sqlite/fork.ts): a new room from the prefix seq ≤ atSeq
 * of another's log, in one transaction holding both rooms' locks. Events are copied row for row (INSERT … SELECT).
 * The plan is rebuilt from the copied events (fork-rebuild.ts: task events carry the whole task), and each context
 * entry is taken at the version that was current when the log's head was atSeq (versions record that head in
 * at_seq).
 */
import { errors } from "../../protocol/errors.ts";
import {
  type ContextVersionAt,
  contextAt,
  type RebuildEvent,
  rebuildPlan,
  serialOf,
} from "../../protocol/fork-rebuild.ts";
import type { ForkedFrom } from "../../protocol/people.ts";
import { peopleErrors } from "../../protocol/people.ts";
import { BROADCAST, type ContextEntry } from "../../protocol/records.ts";
import type { ForkInput } from "../people-types.ts";
import type { RoomScope } from "../types.ts";
import type { DriverOps } from "./driver.ts";
import type { Events } from "./events.ts";
import { roomLock, type StoreParts } from "./rooms.ts";

const PLAN_TYPES = new Set(["task_deleted", "task_lease_expired", "context_deleted"]);
const isObject = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value);

interface ContextRow {
  id: string;
  n: number;
  type: string;
  json: string;
  at_seq: number | null;
}

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
}

export function createFork({ pg, rooms }: StoreParts, events: Events, driver: DriverOps) {
  const copyEvents = pg.query<unknown, [{ src: string; dst: string; at: number }]>(
    `INSERT INTO events (room_id, seq, type, from_agent, to_agent, ts, payload, reply_to)
     SELECT $dst, seq, type, from_agent, to_agent, ts, payload, reply_to FROM events
     WHERE room_id = $src AND seq <= $at ORDER BY seq`,
  );
  const countAddressees = pg.query<unknown, [string]>(
    `INSERT INTO addr_counts (room_id, to_agent, n)
     SELECT room_id, to_agent, count(*) FROM events WHERE room_id = ?1 GROUP BY room_id, to_agent`,
  );
  // Events that change the plan or remove context: whole tasks in payload.task, and the deletions and lease
  // expiries that carry only ids. The text match finds every payload with a "task" object (and perhaps a few more,
  // which planEvent drops): PostgreSQL's JSON operators refuse a payload holding an escaped U+0000.
  const candidates = pg.query<{ seq: number; type: string; ts: number; payload: string }, [string]>(
    `SELECT seq, type, ts, payload FROM events WHERE room_id = ?1
     AND (type IN ('task_deleted', 'task_lease_expired', 'context_deleted') OR payload LIKE '%"task":{%')
     ORDER BY seq`,
  );
  const tsAt = pg.query<{ ts: number }, [string, number]>(
    "SELECT ts FROM events WHERE room_id = ? AND seq = ?",
  );
  const entries = pg.query<ContextRow, [string]>(
    "SELECT id, n, type, json, at_seq FROM contexts WHERE room_id = ? ORDER BY n",
  );
  const history = pg.query<{ id: string; json: string; at_seq: number | null }, [string]>(
    "SELECT id, json, at_seq FROM context_history WHERE room_id = ? ORDER BY rowid",
  );
  const insertTask = pg.query<unknown, [string, string, number, string | null, string]>(
    "INSERT INTO tasks (room_id, id, n, owner, json) VALUES (?, ?, ?, ?, ?)",
  );
  const insertContext = pg.query<
    unknown,
    [string, string, number, string, string, number, string, number | null]
  >(
    `INSERT INTO contexts (room_id, id, n, type, author, changed_seq, json, at_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertHistory = pg.query<unknown, [string, string, string, number | null]>(
    "INSERT INTO context_history (room_id, id, json, at_seq) VALUES (?, ?, ?, ?)",
  );
  const setRoom = pg.query<unknown, [RoomCounts]>(
    `UPDATE rooms SET task_n = $task_n, ctx_n = $ctx_n, ctx_seq = $ctx_seq, event_seq = $event_seq,
     n_pending = $p, n_in_progress = $ip, n_done = $d, n_blocked = $b, n_contexts = $c,
     plan_created_at = $created, plan_updated_at = $updated, forked_from = $from WHERE room_id = $room`,
  );

  return {
    async forkRoom(scope: RoomScope, input: ForkInput): Promise<{ roomId: string; forkedFrom: ForkedFrom }> {
      // The write holds the source's lock; the new room's is taken next (a deadlock between two crossing forks
      // is detected by PostgreSQL and the write retried).
      await pg.lock(roomLock(input.newRoomId));
      const source = await rooms.check(scope);
      if (!source) throw errors.denied();
      const head = source.event_seq;
      const atSeq = input.atSeq ?? head;
      if (atSeq > head) throw peopleErrors.forkPastHead(atSeq, head);
      const target = { roomId: input.newRoomId, teamId: scope.teamId, mayClaim: scope.mayClaim };
      if (await rooms.check(target)) throw peopleErrors.forkTargetExists(input.newRoomId);
      await rooms.claim(target);
      const dst = input.newRoomId;
      await copyEvents.run({ src: source.room_id, dst, at: atSeq });
      await countAddressees.run(dst);

      const log: RebuildEvent[] = (await candidates.all(dst))
        .map((row) => ({ seq: row.seq, type: row.type, ts: row.ts, payload: JSON.parse(row.payload) }))
        .filter((e) => PLAN_TYPES.has(e.type) || isObject(e.payload.task));
      const plan = rebuildPlan(log);
      for (const [i, task] of plan.tasks.entries())
        await insertTask.run(dst, task.id, i + 1, task.owner, JSON.stringify(task));

      // The instant the head moved past atSeq: versions written before at_seq was recorded are placed by it.
      const nextTs = atSeq === head ? null : ((await tsAt.get(source.room_id, atSeq + 1))?.ts ?? null);
      const earlier = new Map<string, ContextVersionAt[]>();
      for (const row of await history.all(source.room_id)) {
        const list = earlier.get(row.id) ?? [];
        list.push({ version: JSON.parse(row.json), atSeq: row.at_seq });
        earlier.set(row.id, list);
      }
      let ctxN = plan.deletedContexts.reduce((max, id) => Math.max(max, serialOf(id)), 0);
      let copied = 0;
      for (const row of await entries.all(source.room_id)) {
        if (plan.deletedContexts.includes(row.id)) continue;
        const { id: _id, type: _type, ...current } = JSON.parse(row.json) as ContextEntry;
        const versions = [...(earlier.get(row.id) ?? []), { version: current, atSeq: row.at_seq }];
        const at = contextAt(versions, atSeq, nextTs);
        if (!at) continue;
        copied += 1;
        ctxN = Math.max(ctxN, row.n);
        const entry = { id: row.id, type: row.type, ...at.current.version };
        for (const old of at.history) {
          await insertHistory.run(dst, row.id, JSON.stringify(old.version), old.atSeq);
        }
        await insertContext.run(
          dst,
          row.id,
          row.n,
          row.type,
          entry.author,
          copied,
          JSON.stringify(entry),
          at.current.atSeq,
        );
      }

      const forkedFrom: ForkedFrom = { roomId: source.room_id, seq: atSeq };
      const counts = plan.byStatus;
      await setRoom.run({
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
      });
      if (input.driver !== undefined) await driver.seed(dst, input.driver);
      await events.append(dst, {
        type: "room_forked",
        from: input.by,
        to: BROADCAST,
        payload: { from: forkedFrom },
      });
      return { roomId: dst, forkedFrom };
    },
  };
}
