/**
 * One attempt of one event to one webhook, as the worker and the admin test route make it: the body serialised
 * once, the webhook-id, the signature with the webhook's derived secret, and the send through the SSRF guard.
 */
import type { RoomEvent } from "../../protocol/records.ts";
import type { Clock } from "../../protocol/time.ts";
import { webhookBody, webhookMessageId } from "./message.ts";
import type { Resolver } from "./pin.ts";
import { type SendResult, sendWebhook } from "./send.ts";
import { unixSeconds, webhookHeaders } from "./signature.ts";
import { webhookSecret } from "./signing-key.ts";
import type { UrlFlags } from "./url-rules.ts";

/** How attempts are made: the master key, the guard's flags, and what tests replace. */
export interface DeliverySettings extends UrlFlags {
  /** WEBHOOK_SIGNING_KEY (or the embedded store's generated key). */
  signingKey: string;
  /** Resolves webhook hosts; the system resolver by default. */
  resolve?: Resolver;
  /** Bound on one attempt; 5 s by default. */
  timeoutMs?: number;
  /** Certificates to trust instead of the system store (on-premises CAs, tests). */
  ca?: string | string[];
}

export interface Target {
  roomId: string;
  webhookId: string;
  url: string;
  event: RoomEvent;
  /** The webhook-id header; `<roomId>.<seq>.<webhookId>` unless given (test deliveries carry their own). */
  messageId?: string;
}

/**
 * Sends one attempt. `now` is the clock of webhook-timestamp (the store's clock, which tests move); the attempt's
 * duration is measured on the monotonic clock. Never throws for a receiver or network failure.
 */
export function deliverOnce(target: Target, settings: DeliverySettings, now: Clock): Promise<SendResult> {
  const body = webhookBody(target.roomId, target.event);
  const id = target.messageId ?? webhookMessageId(target.roomId, target.event.seq, target.webhookId);
  const headers = webhookHeaders({
    secret: webhookSecret(settings.signingKey, target.webhookId),
    id,
    timestamp: unixSeconds(now()),
    body,
  });
  return sendWebhook({
    url: target.url,
    headers,
    body,
    allowHttp: settings.allowHttp,
    allowPrivate: settings.allowPrivate,
    now: () => performance.now(),
    ...(settings.resolve ? { resolve: settings.resolve } : {}),
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    ...(settings.ca !== undefined ? { ca: settings.ca } : {}),
  });
}
