/**
 * Webhooks of a room, their delivery log and their outbox (store/types.ts WebhookStore). The outbox is filled by
 * events.append (webhook-outbox.ts); here deliveries are claimed with a lease and their attempts recorded. A claim's
 * token is the lease's end, kept in due_at: BEGIN IMMEDIATE serialises every claimer of the file, and a later
 * claim always sets a later lease, so a stale claim never matches.
 */
import { errors } from "../../protocol/errors.ts";
import {
  attemptJson,
  loggedOutcome,
  WEBHOOK_DISABLED_EVENT,
  WEBHOOK_LIMITS,
} from "../../protocol/webhooks.ts";
import type {
  ClaimBatch,
  ClaimedDelivery,
  DeliveryReport,
  NewWebhook,
  RecordedDelivery,
  WebhookAttempt,
  WebhookRecord,
} from "../types.ts";
import type { Events } from "./events.ts";
import type { StoreParts } from "./rooms.ts";
import {
  EVENT_COLUMNS,
  type EventRow,
  toEvent,
  toMs,
  toWebhook,
  WEBHOOK_COLUMNS,
  type WebhookRow,
} from "./rows.ts";

type RoomTeam = { roomId: string; teamId: string };
type Key = [string, number, string];

export function createWebhooks({ db, now, rooms }: StoreParts, events: Events) {
  const count = db.query<{ c: number }, [string]>("SELECT count(*) AS c FROM webhooks WHERE room_id = ?");
  const insert = db.query<WebhookRow, [string, string, string, string, string | null, number]>(
    `INSERT INTO webhooks (room_id, webhook_id, n, url, types, description, created_at)
     VALUES (?1, ?2, (SELECT coalesce(max(n), 0) + 1 FROM webhooks WHERE room_id = ?1), ?3, ?4, ?5, ?6)
     RETURNING ${WEBHOOK_COLUMNS}`,
  );
  const one = db.query<WebhookRow, [string, string]>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE room_id = ? AND webhook_id = ?`,
  );
  const all = db.query<WebhookRow, [string]>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE room_id = ? ORDER BY n`,
  );
  const remove = db.query<unknown, [string, string]>(
    "DELETE FROM webhooks WHERE room_id = ? AND webhook_id = ?",
  );
  const dropQueued = db.query<unknown, [string, string]>(
    "DELETE FROM webhook_outbox WHERE room_id = ? AND webhook_id = ?",
  );
  const dropLog = db.query<unknown, [string, string]>(
    "DELETE FROM webhook_log WHERE room_id = ? AND webhook_id = ?",
  );
  const nextLogN = db.query<{ n: number }, [string, string]>(
    "UPDATE webhooks SET log_n = log_n + 1 WHERE room_id = ? AND webhook_id = ? RETURNING log_n AS n",
  );
  const logInsert = db.query<unknown, [string, string, number, string]>(
    "INSERT INTO webhook_log (room_id, webhook_id, n, json) VALUES (?, ?, ?, ?)",
  );
  const logTrim = db.query<unknown, [string, string, number]>(
    "DELETE FROM webhook_log WHERE room_id = ? AND webhook_id = ? AND n <= ?",
  );
  const logRead = db.query<{ json: string }, [string, string, number]>(
    "SELECT json FROM webhook_log WHERE room_id = ? AND webhook_id = ? ORDER BY n DESC LIMIT ?",
  );
  const withHooks = db.query<{ room_id: string }, [number]>(
    `SELECT DISTINCT w.room_id FROM webhooks w JOIN rooms r ON r.room_id = w.room_id
     WHERE r.last_activity > ? ORDER BY w.room_id`,
  );
  const due = db.query<{ seq: number; webhook_id: string; attempt: number }, [string, number, number]>(
    `SELECT seq, webhook_id, attempt FROM webhook_outbox WHERE room_id = ? AND due_at <= ?
     ORDER BY due_at, seq LIMIT ?`,
  );
  const eventRow = db.query<EventRow, [string, number]>(
    `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.room_id = ? AND e.seq = ?`,
  );
  const queued = db.query<{ attempt: number; due_at: number }, Key>(
    "SELECT attempt, due_at FROM webhook_outbox WHERE room_id = ? AND seq = ? AND webhook_id = ?",
  );
  const setDue = db.query<unknown, [number, number, ...Key]>(
    "UPDATE webhook_outbox SET due_at = ?, attempt = ? WHERE room_id = ? AND seq = ? AND webhook_id = ?",
  );
  const unqueue = db.query<unknown, Key>(
    "DELETE FROM webhook_outbox WHERE room_id = ? AND seq = ? AND webhook_id = ?",
  );
  const nextDue = db.query<{ t: number | null }, [string]>(
    "SELECT min(due_at) AS t FROM webhook_outbox WHERE room_id = ?",
  );
  const delivered = db.query<unknown, [number, string, string]>(
    "UPDATE webhooks SET drops = 0, last_delivery_at = ? WHERE room_id = ? AND webhook_id = ?",
  );
  const droppedOne = db.query<{ drops: number }, [string, string]>(
    "UPDATE webhooks SET drops = drops + 1 WHERE room_id = ? AND webhook_id = ? RETURNING drops",
  );
  const disable = db.query<unknown, [string, string]>(
    "UPDATE webhooks SET active = 0 WHERE room_id = ? AND webhook_id = ?",
  );

  /** Appends an attempt to the webhook's log, keeping the newest WEBHOOK_LIMITS.logSize. */
  function log(roomId: string, webhookId: string, attempt: WebhookAttempt): void {
    const n = nextLogN.get(roomId, webhookId)?.n;
    if (n === undefined) throw new Error(`webhooks: ${webhookId} vanished while logging`);
    logInsert.run(roomId, webhookId, n, attemptJson(attempt));
    logTrim.run(roomId, webhookId, n - WEBHOOK_LIMITS.logSize);
  }

  /** The team's webhook, or null; denied unless the team owns the (live) room. */
  function ownedHook(scope: RoomTeam, webhookId: string): WebhookRow | null {
    rooms.owned(scope);
    return one.get(scope.roomId, webhookId);
  }

  const noWebhooks: ClaimBatch = { deliveries: [], nextDueMs: null, hasWebhooks: false };

  return {
    createWebhook(scope: RoomTeam, webhook: NewWebhook, maxPerRoom: number): WebhookRecord {
      rooms.owned(scope);
      if ((count.get(scope.roomId)?.c ?? 0) >= maxPerRoom) throw errors.webhookLimit(maxPerRoom);
      const row = insert.get(
        scope.roomId,
        webhook.webhookId,
        webhook.url,
        JSON.stringify(webhook.types),
        webhook.description ?? null,
        toMs(webhook.createdAt, "createdAt"),
      );
      if (!row) throw new Error("webhooks: insert returned no row");
      return toWebhook(row);
    },
    listWebhooks(scope: RoomTeam): WebhookRecord[] {
      rooms.owned(scope);
      return all.all(scope.roomId).map(toWebhook);
    },
    deleteWebhook(scope: RoomTeam, webhookId: string): boolean {
      if (!ownedHook(scope, webhookId)) return false;
      remove.run(scope.roomId, webhookId);
      dropQueued.run(scope.roomId, webhookId);
      dropLog.run(scope.roomId, webhookId);
      return true;
    },
    webhookDeliveries(scope: RoomTeam, webhookId: string): WebhookAttempt[] | null {
      if (!ownedHook(scope, webhookId)) return null;
      return logRead.all(scope.roomId, webhookId, WEBHOOK_LIMITS.logSize).map((r) => JSON.parse(r.json));
    },
    logTestDelivery(scope: RoomTeam, webhookId: string, attempt: WebhookAttempt): boolean {
      if (!ownedHook(scope, webhookId)) return false;
      log(scope.roomId, webhookId, attempt);
      return true;
    },
    webhookRooms(): string[] {
      return withHooks.all(rooms.liveAfter(now())).map((r) => r.room_id);
    },
    claimDeliveries(roomId: string, request: { limit: number; leaseMs: number }): ClaimBatch {
      if (!rooms.live(roomId) || count.get(roomId)?.c === 0) return noWebhooks;
      const t = now();
      const lease = t + request.leaseMs;
      const deliveries: ClaimedDelivery[] = [];
      for (const row of due.all(roomId, t, request.limit)) {
        const key: Key = [roomId, row.seq, row.webhook_id];
        const hook = one.get(roomId, row.webhook_id);
        const event = eventRow.get(roomId, row.seq);
        if (hook?.active !== 1 || !event) {
          unqueue.run(...key);
          continue;
        }
        setDue.run(lease, row.attempt, ...key);
        deliveries.push({
          roomId,
          webhookId: row.webhook_id,
          url: hook.url,
          event: toEvent(event),
          attempt: row.attempt,
          lease,
        });
      }
      return { deliveries, nextDueMs: nextDue.get(roomId)?.t ?? null, hasWebhooks: true };
    },
    recordDelivery(claim: ClaimedDelivery, report: DeliveryReport): RecordedDelivery {
      const { roomId, webhookId } = claim;
      const key: Key = [roomId, claim.event.seq, webhookId];
      const row = queued.get(...key);
      if (!row || row.due_at !== claim.lease || row.attempt !== claim.attempt) return { recorded: false };
      const hook = one.get(roomId, webhookId);
      if (!hook || !rooms.live(roomId)) {
        unqueue.run(...key);
        return { recorded: false };
      }
      const outcome = loggedOutcome(report.outcome, report.retryInMs);
      let reason: "gone" | "failing" | undefined;
      let drops = hook.drops;
      if (report.outcome === "delivered") {
        unqueue.run(...key);
        delivered.run(toMs(report.at, "at"), roomId, webhookId);
      } else if (outcome === "failed") {
        setDue.run(now() + (report.retryInMs as number), claim.attempt + 1, ...key);
      } else {
        unqueue.run(...key);
        if (report.outcome === "gone") reason = "gone";
        else {
          drops = droppedOne.get(roomId, webhookId)?.drops ?? drops + 1;
          if (drops >= WEBHOOK_LIMITS.disableAfterDropped) reason = "failing";
        }
      }
      log(roomId, webhookId, {
        eventSeq: claim.event.seq,
        attempt: claim.attempt,
        outcome,
        ...(report.httpStatus !== undefined ? { httpStatus: report.httpStatus } : {}),
        ...(report.error !== undefined ? { error: report.error } : {}),
        durationMs: report.durationMs,
        at: report.at,
      });
      const disabled = reason !== undefined && hook.active === 1;
      if (disabled) {
        // Its queued deliveries stay until a claim drops them, so attempts in flight can still be recorded.
        disable.run(roomId, webhookId);
        events.append(roomId, {
          type: WEBHOOK_DISABLED_EVENT,
          from: "system",
          to: "all",
          payload: { webhookId, reason, consecutiveFailures: drops },
        });
      }
      return { recorded: true, logged: outcome, disabled };
    },
  };
}
