/**
 * The retry schedule and the rules that end delivery: one try, then retries after ~5 s, 30 s, 2 min, 10 min,
 * 30 min and 1 h, each ±20% at random so that receivers recovering from an outage are not hit in lockstep.
 * After the last failure the event is dropped for that webhook; 410 Gone disables the webhook at once, and so
 * do 20 dropped events in a row. Randomness is injected so tests pin the jitter.
 */
import { WEBHOOK_LIMITS } from "../../protocol/webhooks.ts";
import type { DeliveryAttempt, SendOutcome } from "./message.ts";

/** Base delays before retries 1…6, in ms. */
export const RETRY_DELAYS_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000];
/** Tries per event and webhook: the first one and six retries. */
export const MAX_ATTEMPTS = 1 + RETRY_DELAYS_MS.length;
/** Dropped events in a row after which a webhook is disabled (the stores apply the same limit). */
export const DISABLE_AFTER_DROPPED: number = WEBHOOK_LIMITS.disableAfterDropped;
/** Each delay is scaled by a factor in [1 - JITTER, 1 + JITTER). */
export const JITTER = 0.2;

/** A source of numbers in [0, 1), like Math.random. */
export type Random = () => number;

/**
 * Delay in ms before the next try after try number `attempt` (1-based) failed, jittered ±20%; null when
 * `attempt` was the last one (the event is then dropped).
 */
export function nextAttemptDelay(attempt: number, random: Random = Math.random): number | null {
  if (!Number.isSafeInteger(attempt) || attempt < 1) throw new RangeError("attempt must be an integer >= 1");
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return null;
  const r = random();
  // A broken source must not turn a 1 h backoff into a hot loop or an endless wait.
  if (!(r >= 0 && r < 1)) throw new RangeError("random() must return a number in [0, 1)");
  return Math.round(base * (1 + JITTER * (2 * r - 1)));
}

/** What the worker does after one try. */
export interface AfterAttempt {
  /** The outcome the delivery log records for this try. */
  logged: DeliveryAttempt["outcome"];
  /** Delay before the next try of this event, when there is one. */
  retryInMs?: number;
  /** The webhook's dropped-in-a-row count after this try (reset by a delivery, unchanged by a retry). */
  consecutiveDropped: number;
  /** Disable the webhook now: it answered 410 Gone, or it has dropped DISABLE_AFTER_DROPPED events in a row. */
  disable: boolean;
}

/**
 * The rules of docs/http.md#delivery applied to one try's outcome. A 410 ends the event's delivery at once (logged
 * `dropped`, with its httpStatus) and disables the webhook; it does not count toward the dropped-in-a-row limit,
 * which it already overrides.
 */
export function afterAttempt(
  outcome: SendOutcome,
  attempt: number,
  consecutiveDropped: number,
  random: Random = Math.random,
): AfterAttempt {
  if (outcome === "delivered") return { logged: "delivered", consecutiveDropped: 0, disable: false };
  if (outcome === "gone") return { logged: "dropped", consecutiveDropped, disable: true };
  const delay = nextAttemptDelay(attempt, random);
  if (delay !== null) return { logged: "failed", retryInMs: delay, consecutiveDropped, disable: false };
  const dropped = consecutiveDropped + 1;
  return { logged: "dropped", consecutiveDropped: dropped, disable: dropped >= DISABLE_AFTER_DROPPED };
}
