// Types for poll.js (polling with a deadline that does not count time the machine stood still).

export interface StallAwareDeadline {
  /** Whether the deadline, moved by every stall seen so far, has passed. */
  passed(): boolean;
  /** Ends the ticker that watches for stalls. */
  stop(): void;
}

export function stallAwareDeadline(timeoutMs: number, onStall?: (ms: number) => void): StallAwareDeadline;

export function pollUntil<T>(check: () => T | undefined | null | false | Promise<T | undefined | null | false>, what: string, timeoutMs?: number, everyMs?: number): Promise<T>;
