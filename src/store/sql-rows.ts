/**
 * Rows of the SQL drivers (SQLite, PostgreSQL) and the records they become: the same columns on both, so one
 * conversion serves both. Each driver keeps its own SQL (EVENT_COLUMNS) next to its statements.
 */
import { type LockInfo, type Presence, presenceOf, type RoomEvent } from "../protocol/records.ts";
import { iso } from "../protocol/time.ts";

/** An events row joined with its read_by list (a JSON array, in insertion order). */
export interface EventRow {
  seq: number;
  type: string;
  from_agent: string;
  to_agent: string;
  ts: number;
  payload: string;
  reply_to: string | null;
  read_by: string;
  /** Set on a tombstone (delete_event). */
  deleted_by?: string | null;
  deleted_at?: number | null;
}

export const eventId = (seq: number): string => `evt-${seq}`;

/** The seq named by an event id, or null for anything that is not "evt-<positive integer>". */
export function eventSeq(id: string): number | null {
  const match = /^evt-([1-9][0-9]{0,15})$/.exec(id);
  return match?.[1] ? Number(match[1]) : null;
}

export function toEvent(row: EventRow): RoomEvent {
  const event: RoomEvent = {
    id: eventId(row.seq),
    seq: row.seq,
    type: row.type,
    from: row.from_agent,
    to: row.to_agent,
    payload: JSON.parse(row.payload),
    timestamp: iso(row.ts),
    read_by: JSON.parse(row.read_by),
  };
  if (row.reply_to !== null) event.reply_to_id = row.reply_to;
  if (row.deleted_by != null && row.deleted_at != null) {
    event.deleted = { by: row.deleted_by, at: iso(row.deleted_at) };
  }
  return event;
}

export interface PresenceRow {
  agent_id: string;
  last_seen: number;
  status_text: string | null;
  /** Set by leave_room until the agent's next call. */
  left_at?: number | null;
}

/** Left after leave_room, else online while seen within LIMITS.presenceOnlineMs; an empty status text reads as none. */
export const toPresence = (row: PresenceRow, now: number): Presence =>
  presenceOf(row.agent_id, row.last_seen, row.status_text, now, row.left_at != null);

export interface LockRow {
  resource: string;
  holder: string | null;
  expires_at: number;
  fence: number;
}

/** A lock row whose holder is set and whose expiry is still ahead. */
export function isLive(row: LockRow | null, now: number): row is LockRow & { holder: string } {
  return row !== null && row.holder !== null && row.expires_at > now;
}

export function toLockInfo(row: LockRow & { holder: string }): LockInfo {
  return { resource: row.resource, owner: row.holder, expiresAt: iso(row.expires_at), fence: row.fence };
}

/** An ISO timestamp handed to the store (createdAt, expiresAt) as ms; anything unparsable is a caller bug. */
export function toMs(value: string, field: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new Error(`store: ${field} is not an ISO timestamp: ${value}`);
  return ms;
}
