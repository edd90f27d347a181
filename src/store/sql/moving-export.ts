/**
 * Moving rooms out (store/move-types.ts): a room's snapshot in one read (one snapshot of the database), its log in
 * pages, and the team and access records a migration copies. Free text the dialect encodes (Dialect.text: a
 * variable's value, a key's note) is decoded here.
 */

import { TIMED_DELIVERIES } from "../../protocol/event-rules.ts";
import type { Approval, DriverState, Handoff, MailboxType, Verdict } from "../../protocol/people.ts";
import type { ContextEntry, Review, Task } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import type { NewInvite, NewKey } from "../access-types.ts";
import type { LoggedEvent, RoomSnapshot } from "../move-types.ts";
import type { RoomScope } from "../types.ts";
import type { DriverOps } from "./driver.ts";
import type { Values } from "./room-values.ts";
import type { RoomRow, SqlParts } from "./rooms.ts";
import {
  EVENT_COLUMNS,
  type EventRow,
  forkedFromOf,
  KEY_COLUMNS,
  type KeyRow,
  perDialect,
  toEvent,
  toKey,
} from "./rows.ts";
import type { Op } from "./run.ts";

const parsedRows = <T>(rows: { json: string }[]): T[] => rows.map((row) => JSON.parse(row.json) as T);

interface ClaimRow {
  path: string;
  agent_id: string;
  expires_at: number;
  ttl_ms: number;
  claimed_at: number;
  reason: string | null;
}

/** A key's row with its digest: everything migrate copies (expiry, last use, scope, rotation included). */
type KeyDigestRow = KeyRow & { digest: string };

interface InviteDigestRow {
  token_id: string;
  team_id: string;
  digest: string;
  created_at: number;
  expires_at: number;
  agent_id: string | null;
  human_id: string | null;
  hint: string;
}

export function createExport({ sql, now, rooms, dialect }: SqlParts, driver: DriverOps, values: Values) {
  const q = <R, P extends unknown[] = [string]>(text: Parameters<typeof sql.query>[0]) =>
    sql.query<R, P>(text);
  const { load } = dialect.text;
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
    claims: q<ClaimRow>(
      "SELECT path, agent_id, expires_at, ttl_ms, claimed_at, reason FROM claims WHERE room_id = ? ORDER BY path",
    ),
    log: q<EventRow & { posted: number }, [string, number, number]>(
      perDialect(
        (d) =>
          `SELECT ${EVENT_COLUMNS[d]}, e.posted FROM events e WHERE e.room_id = ? AND e.seq > ? ORDER BY e.seq LIMIT ?`,
      ),
    ),
    deliveries: q<{ seq: number; agent_id: string; at: number }, [string, number, number]>(
      "SELECT seq, agent_id, at FROM context_reads WHERE room_id = ? AND seq > ? AND seq <= ? ORDER BY seq, agent_id",
    ),
    teams: q<{ team: string }, [number]>(
      "SELECT owner AS team FROM rooms WHERE last_activity > ? UNION SELECT team_id FROM keys ORDER BY 1",
    ),
    keys: q<KeyDigestRow>(
      `SELECT ${KEY_COLUMNS}, digest FROM keys WHERE team_id = ? ORDER BY created_at, rowid`,
    ),
    invites: q<InviteDigestRow, [string, number]>(
      `SELECT token_id, team_id, digest, created_at, expires_at, agent_id, human_id, hint FROM invites
       WHERE room_id = ? AND expires_at > ? ORDER BY created_at, rowid`,
    ),
  };

  /** The snapshot of a live room of the scope's team. */
  function* snapshotOf(room: RoomRow): Op<RoomSnapshot> {
    const id = room.room_id;
    const history = new Map<string, RoomSnapshot["contexts"][number]["history"]>();
    for (const row of yield* read.history.all(id)) {
      const list = history.get(row.id) ?? [];
      list.push({ version: JSON.parse(row.json), atSeq: row.at_seq });
      history.set(row.id, list);
    }
    const driverState: DriverState = yield* driver.state(id);
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
      tasks: (yield* read.tasks.all(id)).map((row) => ({
        task: JSON.parse(row.json) as Task,
        leaseMs: row.lease_ms,
      })),
      contexts: (yield* read.contexts.all(id)).map((row) => ({
        entry: JSON.parse(row.json) as ContextEntry,
        atSeq: row.at_seq,
        changedSeq: row.changed_seq,
        history: history.get(row.id) ?? [],
      })),
      vars: (yield* read.vars.all(id)).map((row) => ({ key: row.key, value: load(row.value) })),
      reviews: parsedRows<Review>(yield* read.reviews.all(id)),
      approvals: parsedRows<Approval>(yield* read.approvals.all(id)),
      handoffs: parsedRows<Handoff>(yield* read.handoffs.all(id)),
      verdicts: parsedRows<Verdict>(yield* read.verdicts.all(id)),
      cursors: (yield* read.cursors.all(id)).map((row) => ({
        agentId: row.agent_id,
        seq: row.seq,
        contextMark: row.ctx_mark,
      })),
      marks: (yield* read.marks.all(id)).map((row) => ({
        agentId: row.agent_id,
        type: row.kind as MailboxType,
        seq: row.seq,
      })),
      fences: yield* read.fences.all(id),
      claims: (yield* read.claims.all(id)).map((row) => ({
        path: row.path,
        agentId: row.agent_id,
        expiresAt: iso(row.expires_at),
        ttlMs: row.ttl_ms,
        claimedAt: iso(row.claimed_at),
        ...(row.reason === null ? {} : { reason: row.reason }),
      })),
      values: yield* values.exported(id),
    };
  }

  return {
    *exportRoom(scope: RoomScope): Op<RoomSnapshot | null> {
      // An export is a look at the room, not a use: it records nothing (last activity and expiry stay).
      const room = yield* rooms.read({ ...scope, observe: true });
      return room ? yield* snapshotOf(room) : null;
    },
    *exportLog(scope: RoomScope, after: number, limit: number): Op<LoggedEvent[]> {
      const room = yield* rooms.read({ ...scope, observe: true });
      if (!room) return [];
      const rows = yield* read.log.all(room.room_id, after, limit);
      const last = rows.at(-1);
      const times = new Map<number, Record<string, string>>();
      if (last) {
        for (const row of yield* read.deliveries.all(room.room_id, after, last.seq)) {
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
    *teamsToMove(): Op<string[]> {
      return (yield* read.teams.all(rooms.liveAfter(now()))).map((row) => row.team);
    },
    *keyDigests(teamId: string): Op<NewKey[]> {
      return (yield* read.keys.all(teamId)).map((row) => ({
        ...toKey(row.note === null ? row : { ...row, note: load(row.note) }),
        digest: row.digest,
      }));
    },
    *inviteDigests(scope: { roomId: string; teamId: string }): Op<NewInvite[]> {
      const room = yield* rooms.owned(scope);
      return (yield* read.invites.all(room.room_id, now())).map((row) => ({
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
