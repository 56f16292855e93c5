// Webhook retry timing as properties over every attempt number, random draw and policy: the delay stays in its band
// ([half, full] of the capped exponential), never shrinks as failures add up, and the retry window's edge is exact.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BACKOFF,
  isPastRetryWindow,
  retryDelayMs,
  WEBHOOK_RETRY_WINDOW_MS,
  type BackoffPolicy,
} from '../../../src/service/webhooks/webhook-backoff.js';

const attempts = fc.oneof(
  fc.integer({ min: 1, max: 80 }),
  fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  fc.constantFrom(1, 2, 1023, 1024, 1025, 2 ** 31, Number.MAX_VALUE, Infinity),
);
const randoms = fc.oneof(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.constantFrom(0, 0.5, 1 - Number.EPSILON));
const policies: fc.Arbitrary<BackoffPolicy> = fc.oneof(
  fc.constant(DEFAULT_BACKOFF),
  fc
    .integer({ min: 1, max: 60_000 })
    .chain((baseMs) => fc.integer({ min: baseMs, max: 48 * 3_600_000 }).map((capMs) => ({ baseMs, capMs }))),
  fc
    .double({ min: 1, max: 1e6, noNaN: true })
    .chain((baseMs) => fc.double({ min: baseMs, max: 1e9, noNaN: true }).map((capMs) => ({ baseMs, capMs }))),
);

/** The band the delay must fall in: the capped exponential is its top, half of it its bottom. */
const full = (attempt: number, p: BackoffPolicy) => Math.min(p.capMs, p.baseMs * 2 ** Math.min(attempt - 1, 1000));

describe('retryDelayMs', () => {
  it.each([
    [1, 0, 500],
    [1, 0.999999, 1000],
    [2, 0, 1000],
    [2, 0.5, 1500],
    [3, 0.5, 3000],
    [10, 0, 256_000],
    [11, 0, 450_000], // 1024 s is past the 15 min cap
    [11, 0.999999, 900_000],
    [1_000_000, 0.25, 562_500],
  ])('attempt %i with random %f waits %i ms under the default policy', (attempt, random, ms) => {
    expect(retryDelayMs(attempt, random)).toBe(ms);
  });

  it('stays a whole number of ms within [half, full] of the capped exponential, between baseMs/2 and capMs', () => {
    fc.assert(
      fc.property(attempts, randoms, policies, (attempt, random, policy) => {
        const ms = retryDelayMs(attempt, random, policy);
        expect(Number.isInteger(ms)).toBe(true);
        expect(ms).toBeGreaterThanOrEqual(full(attempt, policy) / 2);
        expect(ms).toBeLessThanOrEqual(full(attempt, policy));
        expect(ms).toBeGreaterThanOrEqual(policy.baseMs / 2);
        expect(ms).toBeLessThanOrEqual(policy.capMs);
      }),
      { numRuns: 5_000 },
    );
  });

  it('never shrinks as attempts grow, for the same draw, and its top never does either', () => {
    fc.assert(
      fc.property(attempts, attempts, randoms, policies, (a, b, random, policy) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(retryDelayMs(lo, random, policy)).toBeLessThanOrEqual(retryDelayMs(hi, random, policy));
        expect(retryDelayMs(lo, 1 - Number.EPSILON, policy)).toBeLessThanOrEqual(retryDelayMs(hi, 1 - Number.EPSILON, policy));
      }),
      { numRuns: 5_000 },
    );
  });

  it('spreads the draw over the whole band: the lowest draw gives the bottom, a draw near 1 the top', () => {
    fc.assert(
      fc.property(attempts, policies, (attempt, policy) => {
        const top = full(attempt, policy);
        expect(retryDelayMs(attempt, 0, policy)).toBe(Math.ceil(top / 2));
        expect(Math.abs(retryDelayMs(attempt, 1 - Number.EPSILON, policy) - top)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('reaches the cap and stays there, with no Infinity or NaN for any attempt number', () => {
    for (const attempt of [20, 64, 1_000, 2 ** 53, Number.MAX_VALUE, Infinity]) {
      expect(retryDelayMs(attempt, 0.999999)).toBe(DEFAULT_BACKOFF.capMs);
      expect(retryDelayMs(attempt, 0)).toBe(DEFAULT_BACKOFF.capMs / 2);
    }
  });

  it('treats attempts below 1 (and NaN) as the first, and draws outside [0, 1) as the nearest end', () => {
    for (const attempt of [0, -5, 0.5, Number.NaN, -Infinity]) expect(retryDelayMs(attempt, 0.5)).toBe(retryDelayMs(1, 0.5));
    expect(retryDelayMs(3, Number.NaN)).toBe(retryDelayMs(3, 0));
    expect(retryDelayMs(3, -1)).toBe(retryDelayMs(3, 0));
    expect(retryDelayMs(3, 7)).toBe(4_000);
  });

  it.each<[string, BackoffPolicy]>([
    ['baseMs 0', { baseMs: 0, capMs: 1000 }],
    ['capMs below baseMs', { baseMs: 1000, capMs: 999 }],
    ['a NaN cap', { baseMs: 1000, capMs: Number.NaN }],
    ['an infinite cap', { baseMs: 1000, capMs: Infinity }],
  ])('throws on a policy with %s', (_what, policy) => {
    expect(() => retryDelayMs(1, 0.5, policy)).toThrow(RangeError);
  });
});

describe('isPastRetryWindow', () => {
  const first = 1_760_000_000_000;

  it.each([
    [0, false],
    [WEBHOOK_RETRY_WINDOW_MS - 1, false],
    [WEBHOOK_RETRY_WINDOW_MS, false],
    [WEBHOOK_RETRY_WINDOW_MS + 1, true],
    [7 * WEBHOOK_RETRY_WINDOW_MS, true],
    [-60_000, false], // a clock stepped back
  ])('%i ms after the first failure: past the default 24 h window is %s', (after, past) => {
    expect(isPastRetryWindow(first, first + after)).toBe(past);
  });

  it('is 24 hours by default, and takes another window', () => {
    expect(WEBHOOK_RETRY_WINDOW_MS).toBe(86_400_000);
    expect(isPastRetryWindow(first, first + 5_001, 5_000)).toBe(true);
    expect(isPastRetryWindow(first, first + 5_000, 5_000)).toBe(false);
  });

  it('is false up to the edge and true after it, for any first failure and window', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 45 }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.integer({ min: 0, max: 2 ** 41 }),
        (firstMs, windowMs, elapsed) => {
          expect(isPastRetryWindow(firstMs, firstMs + elapsed, windowMs)).toBe(elapsed > windowMs);
        },
      ),
    );
  });
});
