/**
 * Webhooks in the domain: the shape of a webhook id, the limits every store and the worker share, which events a
 * webhook takes, what one delivery attempt does to it, and the event a room gets when one of its webhooks is
 * disabled. Delivery itself (signing, sending, the SSRF guard) lives in live/webhooks/; the records are in
 * store/types.ts.
 */

/** `wh_` + 16 chars of [0-9a-z]: no dot, so `<roomId>.<seq>.<webhookId>` (the webhook-id header) splits one way. */
export const WEBHOOK_ID = /^wh_[0-9a-z]{16}$/;

export const WEBHOOK_LIMITS = {
  /** Webhooks one room may have (active and disabled), unless WEBHOOKS_PER_ROOM says otherwise. */
  perRoomDefault: 10,
  /** Attempts kept per webhook in its delivery log (the newest). */
  logSize: 100,
  /** Events dropped in a row after which a webhook is disabled. */
  disableAfterDropped: 20,
  /** Event types one webhook may filter on. */
  typesMax: 20,
  /** Characters of a webhook's description. */
  descriptionMax: 200,
  /**
   * How long a claimed delivery stays with the process that claimed it. Longer than one attempt (5 s) plus the
   * store call that records it; when it runs out (the process died), another process may claim the attempt again.
   */
  leaseMs: 30_000,
} as const;

/**
 * Whether a webhook filtering on `types` (none: every type) takes an event of `type`. The SQL stores apply it in
 * the statement that fills the outbox (store/sql/events.ts); the Redis scripts in Lua (store/redis/lua-webhooks.ts
 * WH.takes, which lua-webhooks.test.ts runs beside it on generated cases).
 */
export const webhookTakes = (types: readonly string[], type: string): boolean =>
  types.length === 0 || types.includes(type);

/** The event appended to a room when one of its webhooks is disabled (410 Gone, or too many dropped events). */
export const WEBHOOK_DISABLED_EVENT = "webhook_disabled";

/** Why a webhook was disabled, as the webhook_disabled event's payload says. */
export type WebhookDisabledReason = "gone" | "failing";

/** One attempt as a webhook's delivery log keeps it. eventSeq 0 is a test delivery (POST …/test). */
export interface WebhookAttempt {
  eventSeq: number;
  /** 1 for the first try of an event. */
  attempt: number;
  /** `dropped`: this was the event's last try for this webhook (or it answered 410 Gone) and it did not succeed. */
  outcome: "delivered" | "failed" | "dropped";
  httpStatus?: number;
  /** A short fixed phrase (live/webhooks/failure.ts), never a response body or a secret. */
  error?: string;
  durationMs: number;
  /** ISO time the attempt started. */
  at: string;
}

/** The log's JSON of one attempt, with its fields in the documented order and absent ones left out. */
export function attemptJson(a: WebhookAttempt): string {
  return JSON.stringify({
    eventSeq: a.eventSeq,
    attempt: a.attempt,
    outcome: a.outcome,
    ...(a.httpStatus !== undefined ? { httpStatus: a.httpStatus } : {}),
    ...(a.error !== undefined ? { error: a.error } : {}),
    durationMs: a.durationMs,
    at: a.at,
  });
}

/**
 * What the delivery log records for one attempt: a failure that will be tried again is `failed`; the last failure
 * of an event, and a 410 Gone (which ends delivery at once), are `dropped`.
 */
export function loggedOutcome(
  outcome: "delivered" | "failed" | "gone",
  retryInMs: number | null,
): "delivered" | "failed" | "dropped" {
  if (outcome === "delivered") return "delivered";
  return outcome === "failed" && retryInMs !== null ? "failed" : "dropped";
}

/** What a store does with one reported attempt of a queued delivery (afterDelivery). */
export interface DeliveryStep {
  /** What the webhook's delivery log records for the attempt (loggedOutcome). */
  logged: WebhookAttempt["outcome"];
  /** For a failure with a try left: queue the event's next try this long from now. Absent: the delivery is over. */
  retryInMs?: number;
  /** The webhook's count of events dropped in a row after this attempt: 0 after a delivery, +1 for a drop. */
  dropped: number;
  /**
   * Disable the webhook now, and why: it answered 410 Gone (which ends delivery at once and is not counted as a
   * drop), or this drop is the WEBHOOK_LIMITS.disableAfterDropped-th in a row. A store applies it only to an
   * active webhook.
   */
  disable?: WebhookDisabledReason;
}

/**
 * The retry and disabling rule for one attempt: a delivery resets the dropped-in-a-row count; a failure with a
 * try left (`retryInMs`, from the worker's schedule) is tried again; the last failure drops the event and counts
 * it, and the disableAfterDropped-th drop in a row disables the webhook; 410 Gone drops the event and disables the
 * webhook at once. Every store applies this rule: the SQL stores call it; the Redis RECORD_DELIVERY script repeats it
 * in Lua (store/redis/lua-webhooks.ts WH.after), and store/redis/lua-webhooks.test.ts runs both on the same
 * generated attempts and requires the same answers.
 */
export function afterDelivery(
  outcome: "delivered" | "failed" | "gone",
  retryInMs: number | null,
  droppedInARow: number,
): DeliveryStep {
  const logged = loggedOutcome(outcome, retryInMs);
  if (outcome === "delivered") return { logged, dropped: 0 };
  if (outcome === "gone") return { logged, dropped: droppedInARow, disable: "gone" };
  if (logged === "failed") return { logged, retryInMs: retryInMs as number, dropped: droppedInARow };
  const dropped = droppedInARow + 1;
  return dropped >= WEBHOOK_LIMITS.disableAfterDropped
    ? { logged, dropped, disable: "failing" }
    : { logged, dropped };
}
