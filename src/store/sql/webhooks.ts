/**
 * Webhooks of a room, their delivery log and their outbox (store/types.ts WebhookStore). The outbox is filled by
 * events.append; here deliveries are claimed with a lease and their attempts recorded, by the rule every store
 * applies (protocol/webhooks.ts afterDelivery). A claim's token is the lease's end, kept in due_at: every operation
 * here runs alone on its room in every process (the file's write lock, or the room's advisory lock), and a later
 * claim always sets a later lease, so a stale claim never matches.
 */
import { errors } from "../../protocol/errors.ts";
import {
  afterDelivery,
  attemptJson,
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
import type { SqlParts } from "./rooms.ts";
import {
  EVENT_COLUMNS,
  type EventRow,
  perDialect,
  toEvent,
  toMs,
  toWebhook,
  WEBHOOK_COLUMNS,
  type WebhookRow,
} from "./rows.ts";
import type { Op } from "./run.ts";

type RoomTeam = { roomId: string; teamId: string };
type Key = [string, number, string];

export function createWebhooks({ sql, now, rooms }: SqlParts, events: Events) {
  const count = sql.query<{ c: number }, [string]>("SELECT count(*) AS c FROM webhooks WHERE room_id = ?");
  // Two statements: PostgreSQL cannot type a parameter that is both a room_id value and compared in a subquery.
  const nextN = sql.query<{ n: number }, [string]>(
    "SELECT coalesce(max(n), 0) + 1 AS n FROM webhooks WHERE room_id = ?",
  );
  const insert = sql.query<WebhookRow, [string, string, number, string, string, string | null, number]>(
    `INSERT INTO webhooks (room_id, webhook_id, n, url, types, description, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${WEBHOOK_COLUMNS}`,
  );
  const one = sql.query<WebhookRow, [string, string]>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE room_id = ? AND webhook_id = ?`,
  );
  const all = sql.query<WebhookRow, [string]>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE room_id = ? ORDER BY n`,
  );
  const remove = sql.query<unknown, [string, string]>(
    "DELETE FROM webhooks WHERE room_id = ? AND webhook_id = ?",
  );
  const dropQueued = sql.query<unknown, [string, string]>(
    "DELETE FROM webhook_outbox WHERE room_id = ? AND webhook_id = ?",
  );
  const dropLog = sql.query<unknown, [string, string]>(
    "DELETE FROM webhook_log WHERE room_id = ? AND webhook_id = ?",
  );
  const nextLogN = sql.query<{ n: number }, [string, string]>(
    "UPDATE webhooks SET log_n = log_n + 1 WHERE room_id = ? AND webhook_id = ? RETURNING log_n AS n",
  );
  const logInsert = sql.query<unknown, [string, string, number, string]>(
    "INSERT INTO webhook_log (room_id, webhook_id, n, json) VALUES (?, ?, ?, ?)",
  );
  const logTrim = sql.query<unknown, [string, string, number]>(
    "DELETE FROM webhook_log WHERE room_id = ? AND webhook_id = ? AND n <= ?",
  );
  const logRead = sql.query<{ json: string }, [string, string, number]>(
    "SELECT json FROM webhook_log WHERE room_id = ? AND webhook_id = ? ORDER BY n DESC LIMIT ?",
  );
  const withHooks = sql.query<{ room_id: string }, [number]>(
    `SELECT DISTINCT w.room_id FROM webhooks w JOIN rooms r ON r.room_id = w.room_id
     WHERE r.last_activity > ? ORDER BY w.room_id`,
  );
  const due = sql.query<{ seq: number; webhook_id: string; attempt: number }, [string, number, number]>(
    `SELECT seq, webhook_id, attempt FROM webhook_outbox WHERE room_id = ? AND due_at <= ?
     ORDER BY due_at, seq LIMIT ?`,
  );
  const eventRow = sql.query<EventRow, [string, number]>(
    perDialect((d) => `SELECT ${EVENT_COLUMNS[d]} FROM events e WHERE e.room_id = ? AND e.seq = ?`),
  );
  const queued = sql.query<{ attempt: number; due_at: number }, Key>(
    "SELECT attempt, due_at FROM webhook_outbox WHERE room_id = ? AND seq = ? AND webhook_id = ?",
  );
  const setDue = sql.query<unknown, [number, number, ...Key]>(
    "UPDATE webhook_outbox SET due_at = ?, attempt = ? WHERE room_id = ? AND seq = ? AND webhook_id = ?",
  );
  const unqueue = sql.query<unknown, Key>(
    "DELETE FROM webhook_outbox WHERE room_id = ? AND seq = ? AND webhook_id = ?",
  );
  const nextDue = sql.query<{ t: number | null }, [string]>(
    "SELECT min(due_at) AS t FROM webhook_outbox WHERE room_id = ?",
  );
  const delivered = sql.query<unknown, [number, string, string]>(
    "UPDATE webhooks SET drops = 0, last_delivery_at = ? WHERE room_id = ? AND webhook_id = ?",
  );
  const setDrops = sql.query<unknown, [number, string, string]>(
    "UPDATE webhooks SET drops = ? WHERE room_id = ? AND webhook_id = ?",
  );
  const disable = sql.query<unknown, [string, string]>(
    "UPDATE webhooks SET active = 0 WHERE room_id = ? AND webhook_id = ?",
  );

  /** Appends an attempt to the webhook's log, keeping the newest WEBHOOK_LIMITS.logSize. */
  function* log(roomId: string, webhookId: string, attempt: WebhookAttempt): Op<void> {
    const n = (yield* nextLogN.get(roomId, webhookId))?.n;
    if (n === undefined) throw new Error(`webhooks: ${webhookId} vanished while logging`);
    yield* logInsert.run(roomId, webhookId, n, attemptJson(attempt));
    yield* logTrim.run(roomId, webhookId, n - WEBHOOK_LIMITS.logSize);
  }

  /** The team's webhook, or null; denied unless the team owns the (live) room. */
  function* ownedHook(scope: RoomTeam, webhookId: string): Op<WebhookRow | null> {
    yield* rooms.owned(scope);
    return yield* one.get(scope.roomId, webhookId);
  }

  const noWebhooks: ClaimBatch = { deliveries: [], nextDueMs: null, hasWebhooks: false };

  return {
    *createWebhook(scope: RoomTeam, webhook: NewWebhook, maxPerRoom: number): Op<WebhookRecord> {
      yield* rooms.owned(scope);
      if (((yield* count.get(scope.roomId))?.c ?? 0) >= maxPerRoom) throw errors.webhookLimit(maxPerRoom);
      const row = yield* insert.get(
        scope.roomId,
        webhook.webhookId,
        (yield* nextN.get(scope.roomId))?.n ?? 1,
        webhook.url,
        JSON.stringify(webhook.types),
        webhook.description ?? null,
        toMs(webhook.createdAt, "createdAt"),
      );
      if (!row) throw new Error("webhooks: insert returned no row");
      return toWebhook(row);
    },
    *listWebhooks(scope: RoomTeam): Op<WebhookRecord[]> {
      yield* rooms.owned(scope);
      return (yield* all.all(scope.roomId)).map(toWebhook);
    },
    *deleteWebhook(scope: RoomTeam, webhookId: string): Op<boolean> {
      if (!(yield* ownedHook(scope, webhookId))) return false;
      yield* remove.run(scope.roomId, webhookId);
      yield* dropQueued.run(scope.roomId, webhookId);
      yield* dropLog.run(scope.roomId, webhookId);
      return true;
    },
    *webhookDeliveries(scope: RoomTeam, webhookId: string): Op<WebhookAttempt[] | null> {
      if (!(yield* ownedHook(scope, webhookId))) return null;
      return (yield* logRead.all(scope.roomId, webhookId, WEBHOOK_LIMITS.logSize)).map((r) =>
        JSON.parse(r.json),
      );
    },
    *logTestDelivery(scope: RoomTeam, webhookId: string, attempt: WebhookAttempt): Op<boolean> {
      if (!(yield* ownedHook(scope, webhookId))) return false;
      yield* log(scope.roomId, webhookId, attempt);
      return true;
    },
    *webhookRooms(): Op<string[]> {
      return (yield* withHooks.all(rooms.liveAfter(now()))).map((r) => r.room_id);
    },
    *claimDeliveries(roomId: string, request: { limit: number; leaseMs: number }): Op<ClaimBatch> {
      if (!(yield* rooms.live(roomId)) || (yield* count.get(roomId))?.c === 0) return noWebhooks;
      const t = now();
      const lease = t + request.leaseMs;
      const deliveries: ClaimedDelivery[] = [];
      for (const row of yield* due.all(roomId, t, request.limit)) {
        const key: Key = [roomId, row.seq, row.webhook_id];
        const hook = yield* one.get(roomId, row.webhook_id);
        const event = yield* eventRow.get(roomId, row.seq);
        if (hook?.active !== 1 || !event) {
          yield* unqueue.run(...key);
          continue;
        }
        yield* setDue.run(lease, row.attempt, ...key);
        deliveries.push({
          roomId,
          webhookId: row.webhook_id,
          url: hook.url,
          event: toEvent(event),
          attempt: row.attempt,
          lease,
        });
      }
      return { deliveries, nextDueMs: (yield* nextDue.get(roomId))?.t ?? null, hasWebhooks: true };
    },
    *recordDelivery(claim: ClaimedDelivery, report: DeliveryReport): Op<RecordedDelivery> {
      const { roomId, webhookId } = claim;
      const key: Key = [roomId, claim.event.seq, webhookId];
      const row = yield* queued.get(...key);
      if (!row || row.due_at !== claim.lease || row.attempt !== claim.attempt) return { recorded: false };
      const hook = yield* one.get(roomId, webhookId);
      if (!hook || !(yield* rooms.live(roomId))) {
        yield* unqueue.run(...key);
        return { recorded: false };
      }
      const step = afterDelivery(report.outcome, report.retryInMs, hook.drops);
      if (step.retryInMs !== undefined) yield* setDue.run(now() + step.retryInMs, claim.attempt + 1, ...key);
      else yield* unqueue.run(...key);
      if (report.outcome === "delivered") yield* delivered.run(toMs(report.at, "at"), roomId, webhookId);
      else if (step.dropped !== hook.drops) yield* setDrops.run(step.dropped, roomId, webhookId);
      yield* log(roomId, webhookId, {
        eventSeq: claim.event.seq,
        attempt: claim.attempt,
        outcome: step.logged,
        ...(report.httpStatus !== undefined ? { httpStatus: report.httpStatus } : {}),
        ...(report.error !== undefined ? { error: report.error } : {}),
        durationMs: report.durationMs,
        at: report.at,
      });
      const disabled = step.disable !== undefined && hook.active === 1;
      if (disabled) {
        // Its queued deliveries stay until a claim drops them, so attempts in flight can still be recorded.
        yield* disable.run(roomId, webhookId);
        yield* events.append(roomId, {
          type: WEBHOOK_DISABLED_EVENT,
          from: "system",
          to: "all",
          payload: { webhookId, reason: step.disable, consecutiveFailures: step.dropped },
        });
      }
      return { recorded: true, logged: step.logged, disabled };
    },
  };
}
