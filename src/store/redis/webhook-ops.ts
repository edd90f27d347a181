/**
 * Webhooks of the Redis store (types.ts WebhookStore). A room's webhooks, state, log and outbox are keys of the
 * room (one slot), so each operation on them is one script; the outbox is filled by append_event itself.
 *
 * Finding rooms with due deliveries: a worker cannot scan every room, and the rooms of a cluster are spread over
 * every shard, so the rooms that have webhooks are listed in one zset of their own (keys.ts WEBHOOK_INDEX_KEY),
 * which registration updates (one extra round trip, before the webhook is written) and workers read. A room listed
 * without webhooks (its last one deleted, the room deleted or expired) is unlisted by the first claim that finds
 * it empty, when its latest registration is older than INDEX_GRACE_MS.
 */
import { errors } from "../../protocol/errors.ts";
import type { Clock } from "../../protocol/time.ts";
import { attemptJson, loggedOutcome } from "../../protocol/webhooks.ts";
import type { ClaimedDelivery, NewWebhook, WebhookRecord, WebhookStore } from "../types.ts";
import type { Bridge } from "./call.ts";
import { WEBHOOK_INDEX_KEY } from "./keys.ts";
import { type ListedWebhook, typeMatch } from "./lua-webhooks.ts";
import { toEvent } from "./records.ts";
import { type RunOptions, runClocked } from "./run.ts";
import { WEBHOOK_INDEX_SCRIPTS } from "./scripts.ts";

/**
 * A listed room is unlisted only when its latest registration is at least this old, so a claim that ran while a
 * registration was between its two steps never unlists the room: the steps are bounded by the store timeout, and
 * this leaves room for clock differences between processes.
 */
const INDEX_GRACE_MS = 60_000;

/** The JSON kept per webhook: its registration, fields in a fixed order. */
function storedWebhook(webhook: NewWebhook): string {
  return JSON.stringify({
    webhookId: webhook.webhookId,
    url: webhook.url,
    types: webhook.types,
    ...(webhook.description !== undefined ? { description: webhook.description } : {}),
    createdAt: webhook.createdAt,
  });
}

function toRecord(roomId: string, { w, active, drops, last }: ListedWebhook): WebhookRecord {
  const record: WebhookRecord = {
    webhookId: w.webhookId,
    roomId,
    url: w.url,
    types: w.types,
    createdAt: w.createdAt,
    status: active ? "active" : "disabled",
    consecutiveFailures: drops,
  };
  if (w.description !== undefined) record.description = w.description;
  if (last > 0) record.lastDeliveryAt = new Date(last).toISOString();
  return record;
}

/** The outbox member of a claimed delivery: "<seq> <webhook id> <attempt>". */
const memberOf = (claim: ClaimedDelivery) => `${claim.event.seq} ${claim.webhookId} ${claim.attempt}`;

export function webhookOps({ call, open }: Bridge, run: RunOptions, clock: Clock): WebhookStore {
  const { WEBHOOK_INDEX_ADD, WEBHOOK_ROOMS, WEBHOOK_INDEX_FORGET } = WEBHOOK_INDEX_SCRIPTS;
  const keys = [WEBHOOK_INDEX_KEY];
  const owner = (scope: { roomId: string; teamId: string }) => ({ ...scope, mayClaim: false });

  return {
    async createWebhook(scope, webhook, maxPerRoom) {
      // Listed first: once the webhook exists, every worker already finds its room.
      await runClocked(run, WEBHOOK_INDEX_ADD, keys, clock(), { roomId: scope.roomId });
      const args = {
        id: webhook.webhookId,
        hook: storedWebhook(webhook),
        match: typeMatch(webhook.types),
        max: maxPerRoom,
      };
      const { value } = await call(owner(scope), "CREATE_WEBHOOK", args);
      if (value === "limit") throw errors.webhookLimit(maxPerRoom);
      return toRecord(scope.roomId, { w: { ...webhook, n: 0 }, active: true, drops: 0, last: 0 });
    },

    async listWebhooks(scope) {
      const { value } = await call(owner(scope), "LIST_WEBHOOKS", {});
      return value.sort((a, b) => a.w.n - b.w.n).map((listed) => toRecord(scope.roomId, listed));
    },

    async deleteWebhook(scope, webhookId) {
      return (await call(owner(scope), "DELETE_WEBHOOK", { id: webhookId })).value;
    },

    async webhookDeliveries(scope, webhookId) {
      return (await call(owner(scope), "WEBHOOK_DELIVERIES", { id: webhookId })).value;
    },

    async logTestDelivery(scope, webhookId, attempt) {
      const args = { id: webhookId, entry: attemptJson(attempt) };
      return (await call(owner(scope), "LOG_TEST_DELIVERY", args)).value;
    },

    webhookRooms: () => runClocked(run, WEBHOOK_ROOMS, keys, clock(), {}),

    async claimDeliveries(roomId, request) {
      const args = { limit: request.limit, lease: request.leaseMs };
      const { value, now } = await open(roomId, "", "CLAIM_DELIVERIES", args);
      if (!value.hooks) {
        await runClocked(run, WEBHOOK_INDEX_FORGET, keys, clock(), { roomId, before: now - INDEX_GRACE_MS });
        return { deliveries: [], nextDueMs: null, hasWebhooks: false };
      }
      const deliveries = value.claimed.map(
        (c): ClaimedDelivery => ({
          roomId,
          webhookId: c.hook.webhookId,
          url: c.hook.url,
          event: toEvent({ e: c.e, r: c.r }),
          attempt: c.attempt,
          lease: c.lease,
        }),
      );
      return { deliveries, nextDueMs: value.next, hasWebhooks: true };
    },

    async recordDelivery(claim, report) {
      const outcome = loggedOutcome(report.outcome, report.retryInMs);
      const entry = attemptJson({
        eventSeq: claim.event.seq,
        attempt: claim.attempt,
        outcome,
        ...(report.httpStatus !== undefined ? { httpStatus: report.httpStatus } : {}),
        ...(report.error !== undefined ? { error: report.error } : {}),
        durationMs: report.durationMs,
        at: report.at,
      });
      const args = {
        m: memberOf(claim),
        token: claim.lease,
        outcome: report.outcome,
        retry: outcome === "failed" ? report.retryInMs : undefined,
        entry,
        at: Date.parse(report.at),
      };
      const { value } = await open(claim.roomId, "", "RECORD_DELIVERY", args);
      return value;
    },
  };
}
