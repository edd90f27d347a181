/**
 * The retry and disabling policy a store applies when it records one delivery attempt: a delivery resets the
 * webhook's dropped-in-a-row count and records when it last delivered; a failure with a retry due queues the next
 * try; 410 Gone ends the event's delivery and disables the webhook; a last failure drops the event and counts it,
 * and WEBHOOK_LIMITS.disableAfterDropped dropped in a row disable the webhook. A disabled webhook is not disabled
 * again. Whether a webhook takes an event at all is its type filter (webhookTakes). The Redis scripts carry both
 * in Lua (store/redis/lua-webhooks.ts WEBHOOK_POLICY, WH.takes), and store/redis/lua-webhooks.test.ts runs each
 * beside its TypeScript on the same generated cases and requires the same answers.
 */
import { WEBHOOK_LIMITS, type WebhookAttempt, type WebhookDisabledReason } from "./webhooks.ts";

/** Whether a webhook filtering on `types` (none: every type) takes an event of `type`. */
export const webhookTakes = (types: readonly string[], type: string): boolean =>
  types.length === 0 || types.includes(type);

/** A webhook's delivery state: active or disabled, dropped events in a row, its last delivery (ms, 0 for never). */
export interface DeliveryState {
  active: boolean;
  drops: number;
  lastMs: number;
}

/** What one attempt does to a webhook. */
export interface AfterDelivery {
  /** The outcome the delivery log records. */
  logged: WebhookAttempt["outcome"];
  /** Whether the event is tried again (after the retry delay). */
  retry: boolean;
  state: DeliveryState;
  /** Why the webhook is disabled by this attempt; null when it is not. */
  disabled: WebhookDisabledReason | null;
}

/**
 * The policy applied to one attempt that started at `atMs`: `outcome` as the worker saw it, `retryInMs` the delay
 * before the next try of a failure (null: it was the last one).
 */
export function afterDelivery(
  state: DeliveryState,
  outcome: "delivered" | "failed" | "gone",
  retryInMs: number | null,
  atMs: number,
): AfterDelivery {
  if (outcome === "delivered") {
    return { logged: "delivered", retry: false, state: { ...state, drops: 0, lastMs: atMs }, disabled: null };
  }
  if (outcome === "gone")
    return { logged: "dropped", retry: false, state, disabled: state.active ? "gone" : null };
  if (retryInMs !== null) return { logged: "failed", retry: true, state, disabled: null };
  const drops = state.drops + 1;
  const failing = state.active && drops >= WEBHOOK_LIMITS.disableAfterDropped;
  return {
    logged: "dropped",
    retry: false,
    state: { ...state, drops },
    disabled: failing ? "failing" : null,
  };
}
