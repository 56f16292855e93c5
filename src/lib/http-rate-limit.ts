// Per-key token buckets (per clientId for listings): each key may burst up to one minute's allowance (or a given burst),
// refilled evenly.
// A fleet shares them by trading what each instance took (service/db/pg-rate-limits.ts); the buckets stay local.
import { RateLimitedError } from './http-kit.js';

export interface RateLimiter {
  /** Takes one token for `key` at `nowMs`; throws a RateLimitedError (429 + Retry-After) when the bucket is empty. */
  take(key: string, nowMs: number): void;
}

/** A limiter whose buckets also count what other instances of a fleet took. */
export interface SharedRateLimiter extends RateLimiter {
  /** Tokens taken here per key since the last call (what to tell the other instances); resets the counts. */
  drainTaken(): Map<string, number>;
  /** Takes `count` tokens that another instance took for `key`; the bucket may go below zero (then 429 until refilled). */
  charge(key: string, count: number, nowMs: number): void;
}

/** A shared limiter for work taken in batches (webhook deliveries): look how much the bucket allows, then spend it. */
export interface BatchRateLimiter extends SharedRateLimiter {
  /** Whole tokens `key` may take now (0 while the bucket is empty or in debt); takes none. */
  available(key: string, nowMs: number): number;
  /** Takes `count` tokens for `key` (the bucket may go below zero, as with charge) and counts them as taken here. */
  spend(key: string, count: number, nowMs: number): void;
}

interface Bucket {
  tokens: number;
  at: number;
}

const unlimited: BatchRateLimiter = { take() {}, drainTaken: () => new Map(), charge() {}, available: () => Infinity, spend() {} };

/**
 * `perMinute` <= 0 or Infinity turns limiting off (benchmarks). `describe` words the 429 for keys that are not
 * clientIds; by default the message speaks of the clientId. `burst`: the bucket's size (one minute's allowance unless set).
 */
export function createRateLimiter(
  perMinute: number,
  describe?: (retryAfterSeconds: number) => string,
  maxKeys = 100_000,
  burst = perMinute,
): BatchRateLimiter {
  if (!(perMinute > 0) || perMinute === Infinity) return unlimited;
  const perMs = perMinute / 60_000;
  const buckets = new Map<string, Bucket>();
  let taken = new Map<string, number>();

  /** The key's bucket refilled up to `nowMs`. */
  const bucket = (key: string, nowMs: number): Bucket => {
    let b = buckets.get(key);
    if (!b) {
      // Forgetting the oldest key only ever hands its caller a fresh full bucket, so the cap can never lock anyone out.
      if (buckets.size >= maxKeys) buckets.delete(buckets.keys().next().value!);
      b = { tokens: burst, at: nowMs };
      buckets.set(key, b);
    } else {
      b.tokens = Math.min(burst, b.tokens + Math.max(0, nowMs - b.at) * perMs);
      b.at = Math.max(b.at, nowMs);
    }
    return b;
  };

  return {
    take(key, nowMs) {
      const b = bucket(key, nowMs);
      if (b.tokens >= 1) {
        b.tokens -= 1;
        taken.set(key, (taken.get(key) ?? 0) + 1);
        return;
      }
      const retry = Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000));
      throw describe ? new RateLimitedError(retry, describe(retry)) : new RateLimitedError(retry);
    },
    drainTaken() {
      const out = taken;
      taken = new Map();
      return out;
    },
    charge(key, count, nowMs) {
      // Never below one minute's debt: however much the fleet took, a key is free again about a minute after it stops.
      const b = bucket(key, nowMs);
      b.tokens = Math.max(-perMinute, b.tokens - count);
    },
    available: (key, nowMs) => Math.max(0, Math.floor(bucket(key, nowMs).tokens)),
    spend(key, count, nowMs) {
      if (count <= 0) return;
      const b = bucket(key, nowMs);
      b.tokens = Math.max(-perMinute, b.tokens - count);
      taken.set(key, (taken.get(key) ?? 0) + count);
    },
  };
}
