/**
 * Moving rooms on SQLite (store/move-types.ts): a room's snapshot in one read transaction, its log in pages, and an
 * import as one IMMEDIATE transaction — the whole room or nothing, whatever its size (events stream from the
 * caller's file inside it) — plus the team and access records a migration copies.
 */
import type { SQLQueryBindings } from "bun:sqlite";
import { forkFloors, noFloors, raiseFloor } from "../../protocol/fork-rebuild.ts";
import { movingErrors } from "../../protocol/moving.ts";
import type { Approval, DriverState, Handoff, MailboxType, Verdict } from "../../protocol/people.ts";
import type { ContextEntry, Review, Task } from "../../protocol/records.ts";
import { contextFields, eventFields, taskFields } from "../../protocol/search.ts";
import { iso } from "../../protocol/time.ts";
import type { NewInvite, NewKey } from "../access-types.ts";
import type { LoggedEvent, RoomImport, RoomSnapshot } from "../move-types.ts";
import type { RoomScope } from "../types.ts";
import type { DriverOps } from "./driver.ts";
import type { RoomRow, StoreParts } from "./rooms.ts";
import {
  EVENT_COLUMNS,
  type EventRow,
  forkedFromOf,
  idSerial,
  msOrNull,
  parsedRows,
  TIMED_DELIVERIES,
  toEvent,
  toMs,
} from "./rows.ts";
import type { Search } from "./search.ts";

export function createMoving({ db, now, rooms, changes }: StoreParts, driver: DriverOps, search: Search) {
  const q = <R, P extends SQLQueryBindings[] = [string]>(sql: string) => db.query<R, P>(sql);
  const read = {
    tasks: q<{ json: string; lease_ms: number | null }>(
      "SELECT json, lease_ms FROM tasks WHERE room_id = ? ORDER BY n",
    ),
    contexts: q<{ id: string; json: string; at_seq: number | null; changed_seq: number }>(
      "SELECT id, json, at_seq, changed_seq FROM contexts WHERE room_id = ? ORDER BY n",
    ),
    history: q<{ id: string; json: string; at_seq: number | null }>(
      "SELECT id, json, at_seq FROM context_history WHERE room_id = ? ORDER BY rowid",
    ),
    vars: q<{ key: string; value: string }>("SELECT key, value FROM vars WHERE room_id = ? ORDER BY key"),
    reviews: q<{ json: string }>("SELECT json FROM reviews WHERE room_id = ? ORDER BY n"),
    approvals: q<{ json: string }>("SELECT json FROM approvals WHERE room_id = ? ORDER BY n"),
    handoffs: q<{ json: string }>("SELECT json FROM handoffs WHERE room_id = ? ORDER BY n"),
    verdicts: q<{ json: string }>("SELECT json FROM verdicts WHERE room_id = ? ORDER BY n"),
    cursors: q<{ agent_id: string; seq: number | null; ctx_mark: number }>(
      "SELECT agent_id, seq, ctx_mark FROM cursors WHERE room_id = ? ORDER BY agent_id",
    ),
    marks: q<{ agent_id: string; kind: string; seq: number }>(
      "SELECT agent_id, kind, seq FROM agent_marks WHERE room_id = ? ORDER BY agent_id, kind",
    ),
    fences: q<{ resource: string; fence: number }>(
      "SELECT resource, fence FROM locks WHERE room_id = ? ORDER BY resource",
    ),
    claims: q<{
      path: string;
      agent_id: string;
      expires_at: number;
      ttl_ms: number;
      claimed_at: number;
      reason: string | null;
    }>(
      "SELECT path, agent_id, expires_at, ttl_ms, claimed_at, reason FROM claims WHERE room_id = ? ORDER BY path",
    ),
    log: q<EventRow & { posted: number }, [string, number, number]>(
      `SELECT ${EVENT_COLUMNS}, e.posted FROM events e WHERE e.room_id = ? AND e.seq > ? ORDER BY e.seq LIMIT ?`,
    ),
    deliveries: q<{ seq: number; agent_id: string; at: number }, [string, number, number]>(
      "SELECT seq, agent_id, at FROM context_reads WHERE room_id = ? AND seq > ? AND seq <= ? ORDER BY seq, agent_id",
    ),
    teams: q<{ team: string }, [number]>(
      "SELECT owner AS team FROM rooms WHERE last_activity > ? UNION SELECT team_id FROM keys ORDER BY 1",
    ),
    keys: q<{
      key_id: string;
      team_id: string;
      kind: string;
      digest: string;
      created_at: number;
      note: string | null;
      bound_agent_id: string | null;
      human_id: string | null;
      hint: string;
    }>(
      `SELECT key_id, team_id, kind, digest, created_at, note, bound_agent_id, human_id, hint FROM keys
       WHERE team_id = ? ORDER BY created_at, rowid`,
    ),
    invites: q<
      {
        token_id: string;
        team_id: string;
        digest: string;
        created_at: number;
        expires_at: number;
        agent_id: string | null;
        human_id: string | null;
        hint: string;
      },
      [string, number]
    >(
      `SELECT token_id, team_id, digest, created_at, expires_at, agent_id, human_id, hint FROM invites
       WHERE room_id = ? AND expires_at > ? ORDER BY created_at, rowid`,
    ),
  };

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
       AND e.seq <= coalesce(cursors.seq, 0) AND e.to_agent IN ('all', cursors.agent_id)) WHERE room_id = ?`,
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
    event: q<
      unknown,
      [
        string,
        number,
        string,
        string,
        string,
        number,
        string,
        string | null,
        number,
        string | null,
        number | null,
      ]
    >(
      `INSERT INTO events (room_id, seq, type, from_agent, to_agent, ts, payload, reply_to, posted, deleted_by, deleted_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    read: q<unknown, [string, number, string]>(
      "INSERT INTO event_reads (room_id, seq, agent_id) VALUES (?, ?, ?)",
    ),
    deliveredAt: q<unknown, [string, number, string, number]>(
      "INSERT INTO context_reads (room_id, seq, agent_id, at) VALUES (?, ?, ?, ?)",
    ),
    addressed: q<unknown, [string, string, number]>(
      "INSERT INTO addr_counts (room_id, to_agent, n) VALUES (?, ?, ?)",
    ),
  };

  /** The snapshot of a live room of the scope's team. */
  function snapshotOf(room: RoomRow): RoomSnapshot {
    const id = room.room_id;
    const history = new Map<string, RoomSnapshot["contexts"][number]["history"]>();
    for (const row of read.history.all(id)) {
      const list = history.get(row.id) ?? [];
      list.push({ version: JSON.parse(row.json), atSeq: row.at_seq });
      history.set(row.id, list);
    }
    const driverState: DriverState = driver.state(id);
    return {
      createdAt: iso(room.created_at),
      forkedFrom: forkedFromOf(room.forked_from),
      head: room.event_seq,
      trimmedBefore: room.trimmed_seq > 0 ? room.trimmed_seq + 1 : null,
      plan: {
        createdAt: room.plan_created_at === null ? null : iso(room.plan_created_at),
        updatedAt: room.plan_updated_at === null ? null : iso(room.plan_updated_at),
      },
      counters: { tasks: room.task_n, contexts: room.ctx_n, contextChanges: room.ctx_seq },
      driver: driverState,
      tasks: read.tasks.all(id).map((row) => ({ task: JSON.parse(row.json) as Task, leaseMs: row.lease_ms })),
      contexts: read.contexts.all(id).map((row) => ({
        entry: JSON.parse(row.json) as ContextEntry,
        atSeq: row.at_seq,
        changedSeq: row.changed_seq,
        history: history.get(row.id) ?? [],
      })),
      vars: read.vars.all(id),
      reviews: parsedRows<Review>(read.reviews.all(id)),
      approvals: parsedRows<Approval>(read.approvals.all(id)),
      handoffs: parsedRows<Handoff>(read.handoffs.all(id)),
      verdicts: parsedRows<Verdict>(read.verdicts.all(id)),
      cursors: read.cursors
        .all(id)
        .map((row) => ({ agentId: row.agent_id, seq: row.seq, contextMark: row.ctx_mark })),
      marks: read.marks
        .all(id)
        .map((row) => ({ agentId: row.agent_id, type: row.kind as MailboxType, seq: row.seq })),
      fences: read.fences.all(id),
      claims: read.claims.all(id).map((row) => ({
        path: row.path,
        agentId: row.agent_id,
        expiresAt: iso(row.expires_at),
        ttlMs: row.ttl_ms,
        claimedAt: iso(row.claimed_at),
        ...(row.reason === null ? {} : { reason: row.reason }),
      })),
    };
  }

  /** Writes the room's rows (the room row is claimed already); events come from the caller's iterable. */
  function fill(roomId: string, { snapshot: s, events }: RoomImport): void {
    const byStatus = { pending: 0, in_progress: 0, done: 0, blocked: 0 };
    for (const [i, { task, leaseMs }] of s.tasks.entries()) {
      byStatus[task.status] += 1;
      const leased = task.lease_expires_at !== undefined && leaseMs !== null;
      write.task.run(
        roomId,
        task.id,
        i + 1,
        task.owner,
        JSON.stringify(task),
        leased ? msOrNull(task.lease_expires_at ?? null) : null,
        leased ? leaseMs : null,
      );
      search.put(roomId, task.id, taskFields(task));
    }
    for (const [i, c] of s.contexts.entries()) {
      for (const old of c.history)
        write.history.run(roomId, c.entry.id, JSON.stringify(old.version), old.atSeq);
      write.context.run(
        roomId,
        c.entry.id,
        i + 1,
        c.entry.type,
        c.entry.author,
        c.changedSeq,
        JSON.stringify(c.entry),
        c.atSeq,
      );
      search.put(roomId, c.entry.id, contextFields(c.entry));
    }
    for (const v of s.vars) write.variable.run(roomId, v.key, v.value);
    const records = {
      reviews: s.reviews,
      approvals: s.approvals,
      handoffs: s.handoffs,
      verdicts: s.verdicts,
    };
    for (const [table, list] of Object.entries(records) as [keyof typeof records, { id: string }[]][]) {
      for (const r of list) write.record[table].run(roomId, r.id, idSerial(r.id), JSON.stringify(r));
    }
    for (const c of s.cursors) write.cursor.run(roomId, c.agentId, c.seq, c.contextMark);
    for (const m of s.marks) write.mark.run(roomId, m.agentId, m.type, m.seq);
    for (const f of s.fences) write.fence.run(roomId, f.resource, f.fence);
    for (const c of s.claims) {
      write.claim.run(
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
    const floors = noFloors();
    for (const { event: e, posted, deliveredAt } of events()) {
      raiseFloor(floors, { ...e, posted });
      write.event.run(
        roomId,
        e.seq,
        e.type,
        e.from,
        e.to,
        toMs(e.timestamp, "timestamp"),
        JSON.stringify(e.payload),
        e.reply_to_id ?? null,
        posted ? 1 : 0,
        e.deleted?.by ?? null,
        e.deleted ? toMs(e.deleted.at, "deleted.at") : null,
      );
      for (const agent of e.read_by) write.read.run(roomId, e.seq, agent);
      for (const [agent, at] of Object.entries(deliveredAt)) {
        write.deliveredAt.run(roomId, e.seq, agent, toMs(at, "deliveredAt"));
      }
      addressed.set(e.to, (addressed.get(e.to) ?? 0) + 1);
      if (posted && !e.deleted) search.put(roomId, e.id, eventFields(e));
    }
    for (const [to, n] of addressed) write.addressed.run(roomId, to, n);
    write.delivered.run(roomId);
    const d = s.driver;
    if (d.epoch > 0 || d.holder !== null) {
      driver.seedState(roomId, d);
    }
    write.room.run(
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
    exportRoom(scope: RoomScope): RoomSnapshot | null {
      // An export is a look at the room, not a use: it records nothing (last activity and expiry stay).
      const room = rooms.read({ ...scope, observe: true });
      return room ? snapshotOf(room) : null;
    },
    exportLog(scope: RoomScope, after: number, limit: number): LoggedEvent[] {
      const room = rooms.read({ ...scope, observe: true });
      if (!room) return [];
      const rows = read.log.all(room.room_id, after, limit);
      const last = rows.at(-1);
      const times = new Map<number, Record<string, string>>();
      if (last) {
        for (const row of read.deliveries.all(room.room_id, after, last.seq)) {
          const at = times.get(row.seq) ?? {};
          at[row.agent_id] = iso(row.at);
          times.set(row.seq, at);
        }
      }
      return rows.map((row) => ({
        event: toEvent(row),
        posted: row.posted === 1,
        deliveredAt: TIMED_DELIVERIES.has(row.type) ? (times.get(row.seq) ?? {}) : {},
      }));
    },
    importRoom(scope: RoomScope, data: RoomImport): void {
      if (rooms.check(scope)) throw movingErrors.importTargetExists(scope.roomId);
      rooms.claim(scope);
      fill(scope.roomId, data);
    },
    teamsToMove(): string[] {
      return read.teams.all(rooms.liveAfter(now())).map((row) => row.team);
    },
    keyDigests(teamId: string): NewKey[] {
      return read.keys.all(teamId).map((row) => ({
        keyId: row.key_id,
        teamId: row.team_id,
        kind: row.kind === "operator" ? "operator" : "dynamic",
        createdAt: iso(row.created_at),
        hint: row.hint,
        digest: row.digest,
        ...(row.note === null ? {} : { note: row.note }),
        ...(row.bound_agent_id === null ? {} : { boundAgentId: row.bound_agent_id }),
        ...(row.human_id === null ? {} : { humanId: row.human_id }),
      }));
    },
    inviteDigests(scope: { roomId: string; teamId: string }): NewInvite[] {
      const room = rooms.owned(scope);
      return read.invites.all(room.room_id, now()).map((row) => ({
        tokenId: row.token_id,
        roomId: room.room_id,
        teamId: row.team_id,
        createdAt: iso(row.created_at),
        expiresAt: iso(row.expires_at),
        hint: row.hint,
        digest: row.digest,
        ...(row.agent_id === null ? {} : { agentId: row.agent_id }),
        ...(row.human_id === null ? {} : { humanId: row.human_id }),
      }));
    },
  };
}
