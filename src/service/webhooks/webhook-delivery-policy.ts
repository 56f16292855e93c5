// Which of a webhook's waiting deliveries go out now, and what a failed try changes: plain functions over plain data
// (no I/O, no clock), so the rules are tested as tables and properties.
//
// Ordering rule: per transaction only the oldest un-sent delivery may be tried, so a transaction's messages reach the
// receiver in order; different transactions go out side by side, up to the webhook's slots.
import { isPastRetryWindow, retryDelayMs, type BackoffPolicy } from './webhook-backoff.js';
import type { PendingDelivery, WebhookRow } from './webhook-store.js';

/** Requests in flight at once to one webhook while it answers, across all instances of a fleet. */
export const WEBHOOK_CONCURRENCY = 8;

/** Requests the webhook may have in flight at once (across a fleet): one (a probe) after a failure until a try succeeds. */
export const webhookConcurrency = (w: Pick<WebhookRow, 'failures'>): number => (w.failures > 0 ? 1 : WEBHOOK_CONCURRENCY);

/**
 * How many more requests the webhook may have in flight from here: none while paused, failing or backing off; else its
 * concurrency less those in flight here (the claim holds the limit across instances: WebhookStore.claim).
 */
export function webhookSlots(w: Pick<WebhookRow, 'state' | 'retryAtMs' | 'failures'>, nowMs: number, inFlight: number): number {
  if (w.state !== 'active') return 0;
  if (w.retryAtMs !== null && w.retryAtMs > nowMs) return 0;
  return Math.max(0, webhookConcurrency(w) - inFlight);
}

/**
 * The deliveries to try now, at most `slots`, from a page in store order: each transaction's oldest, when it is not
 * in flight here, not claimed by another instance and due.
 */
export function chooseDeliveries(
  page: readonly PendingDelivery[],
  nowMs: number,
  inFlight: ReadonlySet<string>,
  slots: number,
): PendingDelivery[] {
  const chosen: PendingDelivery[] = [];
  const seen = new Set<string>();
  for (const d of page) {
    if (chosen.length >= slots) break;
    if (seen.has(d.txHash)) continue;
    seen.add(d.txHash);
    if (inFlight.has(d.deliveryId)) continue;
    if (d.leaseUntilMs !== null && d.leaseUntilMs > nowMs) continue;
    if (d.nextAtMs !== null && d.nextAtMs > nowMs) continue;
    chosen.push(d);
  }
  return chosen;
}

export interface FailureOutcome {
  /** When this delivery is tried again. */
  nextAtMs: number;
  /** No try of the webhook's before this. */
  retryAtMs: number;
  /** The receiver has failed for the whole retry window: the webhook turns failing and its deliveries wait. */
  failing: boolean;
}

/** What a failed try (`attempts` tries of this delivery so far, this one included) changes. `random` in [0, 1). */
export function afterFailure(
  w: Pick<WebhookRow, 'failures' | 'failingSinceMs'>,
  attempts: number,
  nowMs: number,
  random: number,
  policy?: BackoffPolicy,
  windowMs?: number,
): FailureOutcome {
  return {
    nextAtMs: nowMs + retryDelayMs(attempts, random, policy),
    retryAtMs: nowMs + retryDelayMs(w.failures + 1, random, policy),
    failing: isPastRetryWindow(w.failingSinceMs ?? nowMs, nowMs, windowMs),
  };
}

/** The secrets a delivery is signed with: the current one, and the previous one during its overlap. */
export function signingSecrets(w: Pick<WebhookRow, 'secret' | 'previousSecret' | 'previousSecretUntilMs'>, nowMs: number): string[] {
  return w.previousSecret !== null && (w.previousSecretUntilMs ?? 0) > nowMs ? [w.secret, w.previousSecret] : [w.secret];
}
