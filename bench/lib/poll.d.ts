// Types for poll.js (polling with a deadline that does not count time the machine stood still).

export const STALL_MS: number;

export interface StallAwareDeadline {
  passed(): boolean;
  /** Waits `ms`; a wait that came back more than STALL_MS late moves the deadline by the excess. */
  pause(ms: number): Promise<void>;
}

export function stallAwareDeadline(timeoutMs: number, onStall?: (ms: number) => void): StallAwareDeadline;

export function pollUntil<T>(check: () => T | undefined | null | false | Promise<T | undefined | null | false>, what: string, timeoutMs?: number, everyMs?: number): Promise<T>;
