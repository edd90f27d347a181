/**
 * The retry schedule: one try, then retries after ~5 s, 30 s, 2 min, 10 min, 30 min and 1 h, each ±20% at random
 * so that receivers recovering from an outage are not hit in lockstep. After the last failure the event is dropped
 * for that webhook; what a store does with each outcome (dropping, counting drops, disabling) is
 * protocol/webhooks.ts afterDelivery. Randomness is injected so tests pin the jitter.
 */

/** Base delays before retries 1…6, in ms. */
export const RETRY_DELAYS_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000];
/** Tries per event and webhook: the first one and six retries. */
export const MAX_ATTEMPTS = 1 + RETRY_DELAYS_MS.length;
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
