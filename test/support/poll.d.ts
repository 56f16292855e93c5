// Types for poll.js (polling with a deadline that does not count time the machine stood still).

export interface StallAwareDeadline {
  /** Whether the deadline, moved by every stall seen so far, has passed. */
  passed(): boolean;
  /** Ends the ticker that watches for stalls. */
  stop(): void;
}

export function stallAwareDeadline(timeoutMs: number, onStall?: (ms: number) => void): StallAwareDeadline;

export interface WaitOptions {
  /** Default 60 s of time the machine actually ran. */
  timeoutMs?: number;
  /** Default 200 ms. */
  everyMs?: number;
  /** A check that throws counts as "not yet" instead of failing the wait (default false). */
  retryErrors?: boolean;
}

export function waitFor<T>(
  what: string,
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  opts?: WaitOptions,
): Promise<T>;
