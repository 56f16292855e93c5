// The deliverer's rules as plain data: one delivery per transaction at a time and in store order, claims and backoff
// respected, a probe after a failure, what a failure schedules, and the per-client bucket a fleet shares.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../../src/lib/http-rate-limit.js';
import {
  afterFailure,
  chooseDeliveries,
  signingSecrets,
  WEBHOOK_CONCURRENCY,
  webhookConcurrency,
  webhookSlots,
} from '../../../src/service/webhooks/webhook-delivery-policy.js';
import type { PendingDelivery } from '../../../src/service/webhooks/webhook-store.js';

const d = (seq: number, tx: string, over: Partial<PendingDelivery> = {}): PendingDelivery => ({
  deliveryId: `d${seq}`,
  messageId: `m${seq}`,
  seq,
  txHash: tx,
  payload: '{}',
  createdAtMs: 0,
  attempts: 0,
  nextAtMs: null,
  leaseUntilMs: null,
  replay: false,
  ...over,
});

describe('chooseDeliveries', () => {
  it('takes the oldest delivery of each transaction, and nothing of a transaction whose oldest cannot go', () => {
    const page = [d(1, 'a'), d(2, 'b', { leaseUntilMs: 200 }), d(3, 'a'), d(4, 'c', { nextAtMs: 150 }), d(5, 'b'), d(6, 'c'), d(7, 'e')];
    expect(chooseDeliveries(page, 100, new Set(), 10).map((x) => x.seq)).toEqual([1, 7]);
    expect(chooseDeliveries(page, 160, new Set(['d1']), 10).map((x) => x.seq)).toEqual([4, 7]);
    expect(chooseDeliveries(page, 300, new Set(), 2).map((x) => x.seq)).toEqual([1, 2]);
  });

  it('never picks two of one transaction, never one behind an older of its transaction, never more than the slots', () => {
    const arb = fc.array(
      fc.record({
        tx: fc.constantFrom('a', 'b', 'c', 'd'),
        lease: fc.option(fc.integer({ min: 0, max: 200 })),
        next: fc.option(fc.integer({ min: 0, max: 200 })),
      }),
      { maxLength: 40 },
    );
    fc.assert(
      fc.property(arb, fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 10 }), (rows, now, slots) => {
        const page = rows.map((r, i) => d(i + 1, r.tx, { leaseUntilMs: r.lease, nextAtMs: r.next }));
        const chosen = chooseDeliveries(page, now, new Set(), slots);
        expect(chosen.length).toBeLessThanOrEqual(slots);
        expect(new Set(chosen.map((c) => c.txHash)).size).toBe(chosen.length);
        for (const c of chosen) {
          expect(page.find((p) => p.txHash === c.txHash)).toBe(c);
          expect(c.leaseUntilMs === null || c.leaseUntilMs <= now).toBe(true);
          expect(c.nextAtMs === null || c.nextAtMs <= now).toBe(true);
        }
      }),
    );
  });
});

describe('webhookSlots', () => {
  it('none while paused, failing or backing off; one probe after a failure; the full concurrency otherwise', () => {
    expect(webhookSlots({ state: 'paused', retryAtMs: null, failures: 0 }, 0, 0)).toBe(0);
    expect(webhookSlots({ state: 'failing', retryAtMs: null, failures: 9 }, 0, 0)).toBe(0);
    expect(webhookSlots({ state: 'active', retryAtMs: 100, failures: 1 }, 50, 0)).toBe(0);
    expect(webhookSlots({ state: 'active', retryAtMs: 100, failures: 1 }, 100, 0)).toBe(1);
    expect(webhookSlots({ state: 'active', retryAtMs: 100, failures: 1 }, 100, 1)).toBe(0);
    expect(webhookSlots({ state: 'active', retryAtMs: null, failures: 0 }, 0, 3)).toBe(WEBHOOK_CONCURRENCY - 3);
  });
});

describe('webhookConcurrency (the limit a claim keeps across the fleet)', () => {
  it('is the full concurrency while the webhook answers, one probe after a failure', () => {
    expect(webhookConcurrency({ failures: 0 })).toBe(WEBHOOK_CONCURRENCY);
    expect(webhookConcurrency({ failures: 3 })).toBe(1);
  });
});

describe('the per-client delivery bucket (createRateLimiter with a one-second burst, as the deliverer makes it)', () => {
  it('allows one second of burst, spends only what was claimed, and reports it for the other instances', () => {
    const rate = createRateLimiter(50 * 60, undefined, undefined, 50);
    expect(rate.available('c1', 0)).toBe(50);
    rate.spend('c1', 30, 0);
    expect(rate.available('c1', 0)).toBe(20);
    expect(rate.available('c1', 200)).toBe(30); // refilled at 50 a second, never past the burst
    expect(rate.available('c1', 10_000)).toBe(50);
    expect(rate.drainTaken()).toEqual(new Map([['c1', 30]]));
    expect(rate.drainTaken()).toEqual(new Map());
  });

  it('goes into debt when other instances spent, and comes back at the rate', () => {
    const rate = createRateLimiter(50 * 60, undefined, undefined, 50);
    rate.spend('c1', 50, 0);
    rate.charge('c1', 100, 0); // what two other instances spent in the same second
    expect(rate.available('c1', 1_000)).toBe(0);
    expect(rate.available('c1', 2_000)).toBe(0);
    expect(rate.available('c1', 2_100)).toBe(5);
    // The debt is bounded (a minute's allowance): a client the fleet over-served is served again a minute later.
    rate.charge('c1', 1_000_000, 4_000);
    expect(rate.available('c1', 4_000 + 61_000)).toBe(50);
  });
});

describe('afterFailure', () => {
  it('backs the delivery off by its own tries and the webhook by its failures; failing only past the window', () => {
    const policy = { baseMs: 1_000, capMs: 60_000 };
    const first = afterFailure({ failures: 0, failingSinceMs: null }, 1, 10_000, 0.999, policy, 86_400_000);
    expect(first.failing).toBe(false);
    expect(first.nextAtMs - 10_000).toBeGreaterThanOrEqual(500);
    expect(first.nextAtMs - 10_000).toBeLessThanOrEqual(1_000);
    const later = afterFailure({ failures: 5, failingSinceMs: 0 }, 6, 50_000, 0.999, policy, 86_400_000);
    expect(later.retryAtMs - 50_000).toBeGreaterThan(first.retryAtMs - 10_000);
    expect(afterFailure({ failures: 5, failingSinceMs: 0 }, 6, 86_400_001, 0.5, policy, 86_400_000).failing).toBe(true);
  });

  it('signs with the previous secret too until its overlap ends', () => {
    const w = { secret: 'new', previousSecret: 'old', previousSecretUntilMs: 1_000 };
    expect(signingSecrets(w, 999)).toEqual(['new', 'old']);
    expect(signingSecrets(w, 1_000)).toEqual(['new']);
    expect(signingSecrets({ ...w, previousSecret: null }, 0)).toEqual(['new']);
  });
});
