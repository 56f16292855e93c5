// Per-key token buckets (per clientId for listings): each key may burst up to one minute's allowance, refilled evenly.
import { RateLimitedError } from './http-kit.js';

export interface RateLimiter {
  /** Takes one token for `key` at `nowMs`; throws a RateLimitedError (429 + Retry-After) when the bucket is empty. */
  take(key: string, nowMs: number): void;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * `perMinute` <= 0 or Infinity turns limiting off (benchmarks). `describe` words the 429 for keys that are not
 * clientIds; by default the message speaks of the clientId.
 */
export function createRateLimiter(perMinute: number, describe?: (retryAfterSeconds: number) => string, maxKeys = 100_000): RateLimiter {
  if (!(perMinute > 0) || perMinute === Infinity) return { take() {} };
  const perMs = perMinute / 60_000;
  const buckets = new Map<string, Bucket>();
  return {
    take(key, nowMs) {
      let b = buckets.get(key);
      if (!b) {
        // Forgetting the oldest key only ever hands its caller a fresh full bucket, so the cap can never lock anyone out.
        if (buckets.size >= maxKeys) buckets.delete(buckets.keys().next().value!);
        b = { tokens: perMinute, at: nowMs };
        buckets.set(key, b);
      } else {
        b.tokens = Math.min(perMinute, b.tokens + (nowMs - b.at) * perMs);
        b.at = nowMs;
      }
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return;
      }
      const retry = Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000));
      throw describe ? new RateLimitedError(retry, describe(retry)) : new RateLimitedError(retry);
    },
  };
}
