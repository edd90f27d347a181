/**
 * Webhooks of a room, their delivery log and their outbox (store/types.ts WebhookStore), as the SQLite driver's
 * (src/store/sqlite/webhooks.ts). The outbox is filled by events.append; here deliveries are claimed with a lease
 * and their attempts recorded. A claim's token is the lease's end, kept in due_at: every operation here runs
 * under the room's lock (index.ts), so claimers of a room's outbox take turns across processes, and a later
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

export function createWebhooks({ pg, now, rooms }: StoreParts, events: Events) {
  const count = pg.query<{ c: number }, [string]>("SELECT count(*) AS c FROM webhooks WHERE room_id = ?");
  const nextN = pg.query<{ n: number }, [string]>(
    "SELECT coalesce(max(n), 0) + 1 AS n FROM webhooks WHERE room_id = ?",
  );
  const insert = pg.query<WebhookRow, [string, string, number, string, string, string | null, number]>(
    `INSERT INTO webhooks (room_id, webhook_id, n, url, types, description, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${WEBHOOK_COLUMNS}`,
  );
  const one = pg.query<WebhookRow, [string, string]>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE room_id = ? AND webhook_id = ?`,
  );
  const all = pg.query<WebhookRow, [string]>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE room_id = ? ORDER BY n`,
  );
  const remove = pg.query<unknown, [string, string]>(
    "DELETE FROM webhooks WHERE room_id = ? AND webhook_id = ?",
  );
  const dropQueued = pg.query<unknown, [string, string]>(
    "DELETE FROM webhook_outbox WHERE room_id = ? AND webhook_id = ?",
  );
  const dropLog = pg.query<unknown, [string, string]>(
    "DELETE FROM webhook_log WHERE room_id = ? AND webhook_id = ?",
  );
  const nextLogN = pg.query<{ n: number }, [string, string]>(
    "UPDATE webhooks SET log_n = log_n + 1 WHERE room_id = ? AND webhook_id = ? RETURNING log_n AS n",
  );
  const logInsert = pg.query<unknown, [string, string, number, string]>(
    "INSERT INTO webhook_log (room_id, webhook_id, n, json) VALUES (?, ?, ?, ?)",
  );
  const logTrim = pg.query<unknown, [string, string, number]>(
    "DELETE FROM webhook_log WHERE room_id = ? AND webhook_id = ? AND n <= ?",
  );
  const logRead = pg.query<{ json: string }, [string, string, number]>(
    "SELECT json FROM webhook_log WHERE room_id = ? AND webhook_id = ? ORDER BY n DESC LIMIT ?",
  );
  const withHooks = pg.query<{ room_id: string }, [number]>(
    `SELECT DISTINCT w.room_id FROM webhooks w JOIN rooms r ON r.room_id = w.room_id
     WHERE r.last_activity > ? ORDER BY w.room_id`,
  );
  const due = pg.query<{ seq: number; webhook_id: string; attempt: number }, [string, number, number]>(
    `SELECT seq, webhook_id, attempt FROM webhook_outbox WHERE room_id = ? AND due_at <= ?
     ORDER BY due_at, seq LIMIT ?`,
  );
  const eventRow = pg.query<EventRow, [string, number]>(
    `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.room_id = ? AND e.seq = ?`,
  );
  const queued = pg.query<{ attempt: number; due_at: number }, Key>(
    "SELECT attempt, due_at FROM webhook_outbox WHERE room_id = ? AND seq = ? AND webhook_id = ?",
  );
  const setDue = pg.query<unknown, [number, number, ...Key]>(
    "UPDATE webhook_outbox SET due_at = ?, attempt = ? WHERE room_id = ? AND seq = ? AND webhook_id = ?",
  );
  const unqueue = pg.query<unknown, Key>(
    "DELETE FROM webhook_outbox WHERE room_id = ? AND seq = ? AND webhook_id = ?",
  );
  const nextDue = pg.query<{ t: number | null }, [string]>(
    "SELECT min(due_at) AS t FROM webhook_outbox WHERE room_id = ?",
  );
  const delivered = pg.query<unknown, [number, string, string]>(
    "UPDATE webhooks SET drops = 0, last_delivery_at = ? WHERE room_id = ? AND webhook_id = ?",
  );
  const droppedOne = pg.query<{ drops: number }, [string, string]>(
    "UPDATE webhooks SET drops = drops + 1 WHERE room_id = ? AND webhook_id = ? RETURNING drops",
  );
  const disable = pg.query<unknown, [string, string]>(
    "UPDATE webhooks SET active = 0 WHERE room_id = ? AND webhook_id = ?",
  );

  /** Appends an attempt to the webhook's log, keeping the newest WEBHOOK_LIMITS.logSize. */
  async function log(roomId: string, webhookId: string, attempt: WebhookAttempt): Promise<void> {
    const n = (await nextLogN.get(roomId, webhookId))?.n;
    if (n === undefined) throw new Error(`webhooks: ${webhookId} vanished while logging`);
    await logInsert.run(roomId, webhookId, n, attemptJson(attempt));
    await logTrim.run(roomId, webhookId, n - WEBHOOK_LIMITS.logSize);
  }

  /** The team's webhook, or null; denied unless the team owns the (live) room. */
  async function ownedHook(scope: RoomTeam, webhookId: string): Promise<WebhookRow | null> {
    await rooms.owned(scope);
    return one.get(scope.roomId, webhookId);
  }

  const noWebhooks: ClaimBatch = { deliveries: [], nextDueMs: null, hasWebhooks: false };

  return {
    async createWebhook(scope: RoomTeam, webhook: NewWebhook, maxPerRoom: number): Promise<WebhookRecord> {
      await rooms.owned(scope);
      if (((await count.get(scope.roomId))?.c ?? 0) >= maxPerRoom) throw errors.webhookLimit(maxPerRoom);
      const row = await insert.get(
        scope.roomId,
        webhook.webhookId,
        (await nextN.get(scope.roomId))?.n ?? 1,
        webhook.url,
        JSON.stringify(webhook.types),
        webhook.description ?? null,
        toMs(webhook.createdAt, "createdAt"),
      );
      if (!row) throw new Error("webhooks: insert returned no row");
      return toWebhook(row);
    },
    async listWebhooks(scope: RoomTeam): Promise<WebhookRecord[]> {
      await rooms.owned(scope);
      return (await all.all(scope.roomId)).map(toWebhook);
    },
    async deleteWebhook(scope: RoomTeam, webhookId: string): Promise<boolean> {
      if (!(await ownedHook(scope, webhookId))) return false;
      await remove.run(scope.roomId, webhookId);
      await dropQueued.run(scope.roomId, webhookId);
      await dropLog.run(scope.roomId, webhookId);
      return true;
    },
    async webhookDeliveries(scope: RoomTeam, webhookId: string): Promise<WebhookAttempt[] | null> {
      if (!(await ownedHook(scope, webhookId))) return null;
      return (await logRead.all(scope.roomId, webhookId, WEBHOOK_LIMITS.logSize)).map((r) =>
        JSON.parse(r.json),
      );
    },
    async logTestDelivery(scope: RoomTeam, webhookId: string, attempt: WebhookAttempt): Promise<boolean> {
      if (!(await ownedHook(scope, webhookId))) return false;
      await log(scope.roomId, webhookId, attempt);
      return true;
    },
    async webhookRooms(): Promise<string[]> {
      return (await withHooks.all(rooms.liveAfter(now()))).map((r) => r.room_id);
    },
    async claimDeliveries(roomId: string, request: { limit: number; leaseMs: number }): Promise<ClaimBatch> {
      if (!(await rooms.live(roomId)) || (await count.get(roomId))?.c === 0) return noWebhooks;
      const t = now();
      const lease = t + request.leaseMs;
      const deliveries: ClaimedDelivery[] = [];
      for (const row of await due.all(roomId, t, request.limit)) {
        const key: Key = [roomId, row.seq, row.webhook_id];
        const hook = await one.get(roomId, row.webhook_id);
        const event = await eventRow.get(roomId, row.seq);
        if (hook?.active !== 1 || !event) {
          await unqueue.run(...key);
          continue;
        }
        await setDue.run(lease, row.attempt, ...key);
        deliveries.push({
          roomId,
          webhookId: row.webhook_id,
          url: hook.url,
          event: toEvent(event),
          attempt: row.attempt,
          lease,
        });
      }
      return { deliveries, nextDueMs: (await nextDue.get(roomId))?.t ?? null, hasWebhooks: true };
    },
    async recordDelivery(claim: ClaimedDelivery, report: DeliveryReport): Promise<RecordedDelivery> {
      const { roomId, webhookId } = claim;
      const key: Key = [roomId, claim.event.seq, webhookId];
      const row = await queued.get(...key);
      if (!row || row.due_at !== claim.lease || row.attempt !== claim.attempt) return { recorded: false };
      const hook = await one.get(roomId, webhookId);
      if (!hook || !(await rooms.live(roomId))) {
        await unqueue.run(...key);
        return { recorded: false };
      }
      const outcome = loggedOutcome(report.outcome, report.retryInMs);
      let reason: "gone" | "failing" | undefined;
      let drops = hook.drops;
      if (report.outcome === "delivered") {
        await unqueue.run(...key);
        await delivered.run(toMs(report.at, "at"), roomId, webhookId);
      } else if (outcome === "failed") {
        await setDue.run(now() + (report.retryInMs as number), claim.attempt + 1, ...key);
      } else {
        await unqueue.run(...key);
        if (report.outcome === "gone") reason = "gone";
        else {
          drops = (await droppedOne.get(roomId, webhookId))?.drops ?? drops + 1;
          if (drops >= WEBHOOK_LIMITS.disableAfterDropped) reason = "failing";
        }
      }
      await log(roomId, webhookId, {
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
        await disable.run(roomId, webhookId);
        await events.append(roomId, {
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
