/**
 * What one webhook delivery says: its stable id, its JSON body, and the record the delivery log keeps per attempt.
 * The body is serialised once per event and the same string is signed and sent, so the signature always covers
 * the exact bytes on the wire.
 */
import { isRoomId } from "../../protocol/ids.ts";
import type { RoomEvent } from "../../protocol/records.ts";
import type { WebhookAttempt } from "../../protocol/webhooks.ts";

/** Webhook ids (made at registration) carry no dot, so `<roomId>.<seq>.<webhookId>` splits one way only. */
const WEBHOOK_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The JSON body of a delivery. */
export interface WebhookPayload {
  type: string;
  roomId: string;
  event: RoomEvent;
}

/**
 * `webhook-id`: `<roomId>.<seq>.<webhookId>`. The same on every retry of one event to one webhook, so a receiver
 * can use it as an idempotency key; different per webhook, so two endpoints of one receiver do not collide.
 */
export function webhookMessageId(roomId: string, seq: number, webhookId: string): string {
  if (!isRoomId(roomId)) throw new TypeError("invalid room id");
  if (!Number.isSafeInteger(seq) || seq < 1) throw new TypeError("event seq must be a positive integer");
  if (!WEBHOOK_ID.test(webhookId)) throw new TypeError("webhook id must be 1-64 chars of A-Z a-z 0-9 _ -");
  return `${roomId}.${seq}.${webhookId}`;
}

/** The delivery body `{"type", "roomId", "event"}` as the one string that is signed and sent. */
export function webhookBody(roomId: string, event: RoomEvent): string {
  const payload: WebhookPayload = { type: event.type, roomId, event };
  return JSON.stringify(payload);
}

/** What one attempt came to: a 2xx, anything else, or 410 Gone (the receiver wants no more). */
export type SendOutcome = "delivered" | "failed" | "gone";

/** The delivery log's record of one attempt (the stores keep it; see protocol/webhooks.ts). */
export type DeliveryAttempt = WebhookAttempt;
