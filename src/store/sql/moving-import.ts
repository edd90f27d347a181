/**
 * Moving a room in (store/move-types.ts): an import is one write — the whole room or nothing, whatever its size.
 * Its events stream from the caller's file inside the write, IMPORT_BATCH at a time (Dialect.writeEvents: one
 * statement per batch on PostgreSQL, a statement per row on SQLite), with their search documents (Search.putNew).
 */
import { forkFloors, noFloors, raiseFloor } from "../../protocol/fork-rebuild.ts";
import { movingErrors } from "../../protocol/moving.ts";
import { BROADCAST } from "../../protocol/records.ts";
import { contextFields, eventFields, type SearchFields, taskFields } from "../../protocol/search.ts";
import type { RoomImport } from "../move-types.ts";
import type { RoomScope } from "../types.ts";
import type { DriverOps } from "./driver.ts";
import { type EventBatch, newEventBatch } from "./parts.ts";
import type { Values } from "./room-values.ts";
import type { SqlParts } from "./rooms.ts";
import { toMs } from "./rows.ts";
import type { Op } from "./run.ts";

/** An optional ISO time of a moved record as ms. */
const msOrNull = (value: string | null): number | null => (value === null ? null : toMs(value, "time"));
/** The serial of an id minted as "<prefix>-<n>" (a record's n column). */
const idSerial = (id: string) => Number(id.slice(id.lastIndexOf("-") + 1));

/** Events written per batch by an import. */
const IMPORT_BATCH = 500;

type Doc = { id: string; fields: SearchFields };

export function createImport({ sql, rooms, changes, dialect }: SqlParts, driver: DriverOps, values: Values) {
  const { search } = dialect;
  const q = <R, P extends unknown[]>(text: string) => sql.query<R, P>(text);
  const write = {
    room: q<
      unknown,
      [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number | null,
        number | null,
        string | null,
        number,
        string,
        string,
      ]
    >(
      `UPDATE rooms SET created_at = ?1, task_n = ?2, ctx_n = ?3, ctx_seq = ?4, event_seq = ?5, n_pending = ?6,
       n_in_progress = ?7, n_done = ?8, n_blocked = ?9, n_contexts = ?10, plan_created_at = ?11,
       plan_updated_at = ?12, forked_from = ?13, trimmed_seq = ?14, id_floors = ?16 WHERE room_id = ?15`,
    ),
    task: q<unknown, [string, string, number, string | null, string, number | null, number | null]>(
      `INSERT INTO tasks (room_id, id, n, owner, json, lease_expires_at, lease_ms) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    context: q<unknown, [string, string, number, string, string, number, string, number | null]>(
      `INSERT INTO contexts (room_id, id, n, type, author, changed_seq, json, at_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    history: q<unknown, [string, string, string, number | null]>(
      "INSERT INTO context_history (room_id, id, json, at_seq) VALUES (?, ?, ?, ?)",
    ),
    variable: q<unknown, [string, string, string]>("INSERT INTO vars (room_id, key, value) VALUES (?, ?, ?)"),
    record: {
      reviews: q<unknown, [string, string, number, string]>(
        "INSERT INTO reviews (room_id, id, n, json) VALUES (?, ?, ?, ?)",
      ),
      approvals: q<unknown, [string, string, number, string]>(
        "INSERT INTO approvals (room_id, id, n, json) VALUES (?, ?, ?, ?)",
      ),
      handoffs: q<unknown, [string, string, number, string]>(
        "INSERT INTO handoffs (room_id, id, n, json) VALUES (?, ?, ?, ?)",
      ),
      verdicts: q<unknown, [string, string, number, string]>(
        "INSERT INTO verdicts (room_id, id, n, json) VALUES (?, ?, ?, ?)",
      ),
    },
    cursor: q<unknown, [string, string, number | null, number]>(
      "INSERT INTO cursors (room_id, agent_id, seq, ctx_mark) VALUES (?, ?, ?, ?)",
    ),
    delivered: q<unknown, [string]>(
      `UPDATE cursors SET delivered = (SELECT count(*) FROM events e WHERE e.room_id = cursors.room_id
       AND e.seq <= coalesce(cursors.seq, 0) AND e.to_agent IN ('${BROADCAST}', cursors.agent_id)) WHERE room_id = ?`,
    ),
    mark: q<unknown, [string, string, string, number]>(
      "INSERT INTO agent_marks (room_id, agent_id, kind, seq) VALUES (?, ?, ?, ?)",
    ),
    fence: q<unknown, [string, string, number]>(
      "INSERT INTO locks (room_id, resource, holder, expires_at, fence) VALUES (?, ?, NULL, 0, ?)",
    ),
    claim: q<unknown, [string, string, string, number, number, number, string | null]>(
      `INSERT INTO claims (room_id, path, agent_id, expires_at, ttl_ms, claimed_at, reason) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    addressed: q<unknown, [string, string, number]>(
      "INSERT INTO addr_counts (room_id, to_agent, n) VALUES (?, ?, ?)",
    ),
  };

  /** Writes the room's rows (the room row is claimed already); events come from the caller's iterable. */
  function* fill(roomId: string, { snapshot: s, events }: RoomImport): Op<void> {
    const byStatus = { pending: 0, in_progress: 0, done: 0, blocked: 0 };
    const docs: Doc[] = [];
    for (const [i, { task, leaseMs }] of s.tasks.entries()) {
      byStatus[task.status] += 1;
      const leased = task.lease_expires_at !== undefined && leaseMs !== null;
      yield* write.task.run(
        roomId,
        task.id,
        i + 1,
        task.owner,
        JSON.stringify(task),
        leased ? msOrNull(task.lease_expires_at ?? null) : null,
        leased ? leaseMs : null,
      );
      docs.push({ id: task.id, fields: taskFields(task) });
    }
    for (const [i, c] of s.contexts.entries()) {
      for (const old of c.history)
        yield* write.history.run(roomId, c.entry.id, JSON.stringify(old.version), old.atSeq);
      yield* write.context.run(
        roomId,
        c.entry.id,
        i + 1,
        c.entry.type,
        c.entry.author,
        c.changedSeq,
        JSON.stringify(c.entry),
        c.atSeq,
      );
      docs.push({ id: c.entry.id, fields: contextFields(c.entry) });
    }
    yield* search.putNew(roomId, docs);
    for (const v of s.vars) yield* write.variable.run(roomId, v.key, dialect.text.store(v.value));
    const records = {
      reviews: s.reviews,
      approvals: s.approvals,
      handoffs: s.handoffs,
      verdicts: s.verdicts,
    };
    for (const [table, list] of Object.entries(records) as [keyof typeof records, { id: string }[]][]) {
      for (const r of list) yield* write.record[table].run(roomId, r.id, idSerial(r.id), JSON.stringify(r));
    }
    for (const c of s.cursors) yield* write.cursor.run(roomId, c.agentId, c.seq, c.contextMark);
    for (const m of s.marks) yield* write.mark.run(roomId, m.agentId, m.type, m.seq);
    for (const f of s.fences) yield* write.fence.run(roomId, f.resource, f.fence);
    for (const c of s.claims) {
      yield* write.claim.run(
        roomId,
        c.path,
        c.agentId,
        toMs(c.expiresAt, "expiresAt"),
        c.ttlMs,
        toMs(c.claimedAt, "claimedAt"),
        c.reason ?? null,
      );
    }
    const addressed = new Map<string, number>();
    let batch: EventBatch = newEventBatch();
    let searchable: Doc[] = [];
    const flush = function* (): Op<void> {
      if (batch.seq.length > 0) yield* dialect.writeEvents(roomId, batch);
      yield* search.putNew(roomId, searchable);
      batch = newEventBatch();
      searchable = [];
    };
    const floors = noFloors();
    for (const { event: e, posted, deliveredAt } of events()) {
      raiseFloor(floors, { ...e, posted });
      batch.seq.push(e.seq);
      batch.type.push(e.type);
      batch.from.push(e.from);
      batch.to.push(e.to);
      batch.ts.push(toMs(e.timestamp, "timestamp"));
      batch.payload.push(JSON.stringify(e.payload));
      batch.replyTo.push(e.reply_to_id ?? null);
      batch.posted.push(posted ? 1 : 0);
      batch.deletedBy.push(e.deleted?.by ?? null);
      batch.deletedAt.push(e.deleted ? toMs(e.deleted.at, "deleted.at") : null);
      for (const agent of e.read_by) {
        batch.readSeq.push(e.seq);
        batch.readAgent.push(agent);
      }
      for (const [agent, at] of Object.entries(deliveredAt)) {
        batch.atSeq.push(e.seq);
        batch.atAgent.push(agent);
        batch.at.push(toMs(at, "deliveredAt"));
      }
      addressed.set(e.to, (addressed.get(e.to) ?? 0) + 1);
      if (posted && !e.deleted) searchable.push({ id: e.id, fields: eventFields(e) });
      if (batch.seq.length >= IMPORT_BATCH) yield* flush();
    }
    yield* flush();
    yield* values.fill(roomId, s.values, true);
    for (const [to, n] of addressed) yield* write.addressed.run(roomId, to, n);
    yield* write.delivered.run(roomId);
    const d = s.driver;
    if (d.epoch > 0 || d.holder !== null) yield* driver.seedState(roomId, d);
    yield* write.room.run(
      toMs(s.createdAt, "createdAt"),
      s.counters.tasks,
      s.counters.contexts,
      s.counters.contextChanges,
      s.head,
      byStatus.pending,
      byStatus.in_progress,
      byStatus.done,
      byStatus.blocked,
      s.contexts.length,
      msOrNull(s.plan.createdAt),
      msOrNull(s.plan.updatedAt),
      s.forkedFrom ? JSON.stringify(s.forkedFrom) : null,
      s.trimmedBefore === null ? 0 : s.trimmedBefore - 1,
      roomId,
      forkFloors(floors),
    );
    if (s.head > 0) changes.appended(roomId, s.head);
  }

  return {
    *importRoom(scope: RoomScope, data: RoomImport): Op<void> {
      if (yield* rooms.check(scope)) throw movingErrors.importTargetExists(scope.roomId);
      yield* rooms.claim(scope);
      yield* fill(scope.roomId, data);
    },
  };
}
