/**
 * Rows of the SQL drivers and the records they become: the same columns on both dialects, so one conversion serves
 * both. Only row shapes, column lists and row → record conversions live here; the rules read off rows are
 * protocol/'s, and what a statement says differently per dialect is written beside it (perDialect).
 */
import type { FileClaim } from "../../protocol/claims.ts";
import { eventId } from "../../protocol/event-rules.ts";
import type { KeyScope } from "../../protocol/key-life.ts";
import { type DriverState, type ForkedFrom, NO_DRIVER } from "../../protocol/people.ts";
import { type LockInfo, type Presence, presenceOf, type RoomEvent } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import type { InviteRecord, KeyRecord } from "../access-types.ts";
import type { SessionRecord, StoredSession } from "../session-types.ts";
import type { WebhookRecord } from "../types.ts";
import type { DialectName } from "./run.ts";

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

export function toLockInfo(row: LockRow & { holder: string }): LockInfo {
  return { resource: row.resource, owner: row.holder, expiresAt: iso(row.expires_at), fence: row.fence };
}

/** An ISO timestamp handed to the store (createdAt, expiresAt) as ms; anything unparsable is a caller bug. */
export function toMs(value: string, field: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new Error(`store: ${field} is not an ISO timestamp: ${value}`);
  return ms;
}

export interface ClaimRow {
  path: string;
  agent_id: string;
  expires_at: number;
  claimed_at: number;
  reason: string | null;
}

export function toClaim(row: ClaimRow): FileClaim {
  const claim: FileClaim = {
    path: row.path,
    heldBy: row.agent_id,
    expiresAt: iso(row.expires_at),
    claimedAt: iso(row.claimed_at),
  };
  if (row.reason !== null) claim.reason = row.reason;
  return claim;
}

export interface InviteRow {
  room_id: string;
  token_id: string;
  team_id: string;
  created_at: number;
  expires_at: number;
  agent_id: string | null;
  human_id: string | null;
  hint: string;
}

export const INVITE_COLUMNS = "room_id, token_id, team_id, created_at, expires_at, agent_id, hint, human_id";

export function toInvite(row: InviteRow): InviteRecord {
  const invite: InviteRecord = {
    tokenId: row.token_id,
    roomId: row.room_id,
    teamId: row.team_id,
    createdAt: iso(row.created_at),
    expiresAt: iso(row.expires_at),
    hint: row.hint,
  };
  if (row.agent_id !== null) invite.agentId = row.agent_id;
  if (row.human_id !== null) invite.humanId = row.human_id;
  return invite;
}

export interface WebhookRow {
  room_id: string;
  webhook_id: string;
  url: string;
  types: string;
  description: string | null;
  created_at: number;
  active: number;
  drops: number;
  last_delivery_at: number | null;
}

export const WEBHOOK_COLUMNS =
  "room_id, webhook_id, url, types, description, created_at, active, drops, last_delivery_at";

export function toWebhook(row: WebhookRow): WebhookRecord {
  const webhook: WebhookRecord = {
    webhookId: row.webhook_id,
    roomId: row.room_id,
    url: row.url,
    types: JSON.parse(row.types),
    createdAt: iso(row.created_at),
    status: row.active === 1 ? "active" : "disabled",
    consecutiveFailures: row.drops,
  };
  if (row.description !== null) webhook.description = row.description;
  if (row.last_delivery_at !== null) webhook.lastDeliveryAt = iso(row.last_delivery_at);
  return webhook;
}

export interface SessionRow {
  json: string;
  expires_at: number;
  renewed_at: number;
}

export const storedSession = (row: Pick<SessionRow, "json">, expiresAt: number): StoredSession => ({
  ...(JSON.parse(row.json) as SessionRecord),
  expiresAt: iso(expiresAt),
});

export interface DriverRow {
  holder: string | null;
  holder_kind: string | null;
  epoch: number;
  since: number;
}

/** A room's driver from its row (NO_DRIVER before anyone drove it). */
export function toDriverState(row: DriverRow | null | undefined): DriverState {
  if (!row) return NO_DRIVER;
  return {
    holder: row.holder,
    holderKind: row.holder === null ? null : row.holder_kind === "agent" ? "agent" : "human",
    epoch: row.epoch,
    since: iso(row.since),
  };
}

/** A message, steer or interrupt as the mailbox reads it from the log. */
export interface MailRow {
  seq: number;
  from_agent: string;
  to_agent: string;
  ts: number;
  payload: string;
}

export type MailKind = "human_message" | "steer" | "interrupt";

/** A rooms row (every read of one is `SELECT *` or `RETURNING *`). */
export interface RoomRow {
  room_id: string;
  owner: string;
  created_at: number;
  last_activity: number;
  plan_created_at: number | null;
  plan_updated_at: number | null;
  task_n: number;
  ctx_n: number;
  ctx_seq: number;
  event_seq: number;
  n_pending: number;
  n_in_progress: number;
  n_done: number;
  n_blocked: number;
  n_contexts: number;
  /** A fork's origin as JSON (ForkedFrom); null for a room that is not a fork. */
  forked_from: string | null;
  /** The last seq retention trimmed (0: none; every event up to it is gone). */
  trimmed_seq: number;
  /** The plan's run of revisions and its revision (task-cache.ts; kept by the schema's triggers on tasks). */
  plan_base: string;
  plan_rev: number;
}

/** Where a fork came from, from its rooms.forked_from (null for a room that is not one). */
export const forkedFromOf = (raw: string | null | undefined): ForkedFrom | null =>
  raw ? (JSON.parse(raw) as ForkedFrom) : null;

/** An agent's cursor row, and its addressed-event counts (all, and those retention trimmed). */
export interface CursorRow {
  seq: number | null;
  delivered: number;
}
export interface AddressedCounts {
  n: number;
  trimmed: number;
}

/** A context entry as a fork reads it from the source room. */
export interface ContextRow {
  id: string;
  n: number;
  type: string;
  json: string;
  at_seq: number | null;
}

/** A keys row; `note` as the key's text (PostgreSQL keeps it JSON-encoded and decodes it before toKey). */
export interface KeyRow {
  key_id: string;
  team_id: string;
  kind: string;
  created_at: number;
  note: string | null;
  bound_agent_id: string | null;
  human_id: string | null;
  hint: string;
  expires_at: number | null;
  last_used_at: number | null;
  /** JSON {rooms?, readOnly?, agentRateLimitPerMinute?} (protocol/key-life.ts KeyScope); NULL: none of them. */
  scope: string | null;
  rotated_to: string | null;
}

export const KEY_COLUMNS =
  "key_id, team_id, kind, created_at, note, bound_agent_id, hint, human_id, expires_at, last_used_at, scope, rotated_to";

export function toKey(row: KeyRow): KeyRecord {
  const key: KeyRecord = {
    keyId: row.key_id,
    teamId: row.team_id,
    kind: row.kind === "operator" ? "operator" : "dynamic",
    createdAt: iso(row.created_at),
    hint: row.hint,
  };
  if (row.note !== null) key.note = row.note;
  if (row.bound_agent_id !== null) key.boundAgentId = row.bound_agent_id;
  if (row.human_id !== null) key.humanId = row.human_id;
  // BIGINT columns may come back as strings from PostgreSQL's driver; Number() takes both.
  if (row.expires_at !== null) key.expiresAt = iso(Number(row.expires_at));
  if (row.last_used_at !== null) key.lastUsedAt = iso(Number(row.last_used_at));
  if (row.scope !== null) {
    const scope = JSON.parse(row.scope) as KeyScope;
    if (scope.rooms !== undefined) key.rooms = scope.rooms;
    if (scope.readOnly === true) key.readOnly = true;
    if (scope.agentRateLimitPerMinute !== undefined)
      key.agentRateLimitPerMinute = scope.agentRateLimitPerMinute;
  }
  if (row.rotated_to !== null) key.rotatedTo = row.rotated_to;
  return key;
}

/**
 * A key's scope column: JSON {rooms?, readOnly?, agentRateLimitPerMinute?}, or NULL when the key has none of them.
 * PostgreSQL's charged lookup reads agentRateLimitPerMinute from it (postgres/charged.ts).
 */
export function scopeColumn(key: KeyScope): string | null {
  if (key.rooms === undefined && key.readOnly !== true && key.agentRateLimitPerMinute === undefined)
    return null;
  return JSON.stringify({
    ...(key.rooms !== undefined ? { rooms: key.rooms } : {}),
    ...(key.readOnly === true ? { readOnly: true } : {}),
    ...(key.agentRateLimitPerMinute !== undefined
      ? { agentRateLimitPerMinute: key.agentRateLimitPerMinute }
      : {}),
  });
}

/**
 * Column list that yields an EventRow from `events e`, per dialect: read_by is a correlated subquery listing the
 * readers in the order they read. SQLite's runs the ordered subquery only for events someone marked read (one
 * index probe otherwise: the ordered subquery cost ~1.5 µs per event); PostgreSQL's aggregates with json_agg.
 */
export const EVENT_COLUMNS: Readonly<Record<DialectName, string>> = {
  sqlite: `e.seq, e.type, e.from_agent, e.to_agent, e.ts, e.payload, e.reply_to, e.deleted_by, e.deleted_at,
  CASE WHEN EXISTS (SELECT 1 FROM event_reads r WHERE r.room_id = e.room_id AND r.seq = e.seq)
    THEN (SELECT json_group_array(agent_id) FROM
            (SELECT agent_id FROM event_reads r WHERE r.room_id = e.room_id AND r.seq = e.seq ORDER BY r.rowid))
    ELSE '[]' END AS read_by`,
  postgres: `e.seq, e.type, e.from_agent, e.to_agent, e.ts, e.payload, e.reply_to, e.deleted_by, e.deleted_at,
  coalesce((SELECT json_agg(r.agent_id ORDER BY r.rowid) FROM event_reads r
            WHERE r.room_id = e.room_id AND r.seq = e.seq)::text, '[]') AS read_by`,
};

/** A statement's text for each dialect, built from that dialect's fragments (e.g. EVENT_COLUMNS). */
export const perDialect = (
  text: (dialect: DialectName) => string,
): Readonly<Record<DialectName, string>> => ({
  sqlite: text("sqlite"),
  postgres: text("postgres"),
});
