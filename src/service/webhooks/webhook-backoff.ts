// When a failed webhook delivery is tried again: exponential backoff with equal jitter, and the window after which a
// failing webhook stops being retried. Pure: the attempt number, the random draw and the clock readings are arguments.

/** How long a webhook keeps failing before its deliveries stop being retried on their own. */
export const WEBHOOK_RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface BackoffPolicy {
  /** The delay's upper bound after the first failed try; it doubles with every further failure. */
  baseMs: number;
  /** The largest delay ever. */
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1_000, capMs: 15 * 60_000 };

// base * 2^52 passes any sensible cap; stopping the exponent there keeps huge attempt numbers from making Infinity.
const MAX_EXPONENT = 52;

/**
 * The delay in whole ms before trying again after failed try number `attempt` (1 for the first), for a uniform
 * `random` in [0, 1): base * 2^(attempt-1), capped at capMs, and then a uniform point in its upper half ("equal
 * jitter": the half keeps a floor under the delay, the jitter keeps many failing deliveries from retrying in step).
 * Never below baseMs/2 nor above capMs; for the same `random` it never shrinks as `attempt` grows. Throws a RangeError
 * on a policy that cannot keep those promises (baseMs under 1, capMs under baseMs).
 */
export function retryDelayMs(attempt: number, random: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  const { baseMs, capMs } = policy;
  if (!Number.isFinite(baseMs) || !Number.isFinite(capMs) || baseMs < 1 || capMs < baseMs) {
    throw new RangeError(`A backoff policy needs 1 <= baseMs <= capMs, finite; got baseMs ${baseMs}, capMs ${capMs}.`);
  }
  // Anything below 1 (and NaN) is the first attempt; +Infinity is the last.
  const exponent = attempt >= 1 ? Math.min(Math.floor(attempt) - 1, MAX_EXPONENT) : 0;
  const upper = Math.min(capMs, baseMs * 2 ** exponent);
  const r = random > 0 ? Math.min(random, 1) : 0; // NaN and negatives count as 0
  // Rounded to whole ms (the delay ends up in integer columns), then held inside [upper/2, upper] again.
  return Math.min(Math.floor(upper), Math.max(Math.ceil(upper / 2), Math.round((upper / 2) * (1 + r))));
}

/** Whether more than `windowMs` have passed since a webhook's first failure in a row (exactly `windowMs` is still inside). */
export function isPastRetryWindow(firstFailureMs: number, nowMs: number, windowMs: number = WEBHOOK_RETRY_WINDOW_MS): boolean {
  return nowMs - firstFailureMs > windowMs;
}
