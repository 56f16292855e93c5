// The approval time-out as people type it (seconds) and as the core keeps it (whole milliseconds, 5 s to 1 h). Pure.

export const TIMEOUT_RULE = 'The approval time is a number of seconds from 5 to 3600, e.g. 120.';

/** "90" -> 90000 ms, "7.5" -> 7500 ms; anything else (out of range, a fraction of a millisecond, not a number) is the rule. */
export function parseTimeoutSeconds(text: string): { ok: true; ms: number } | { ok: false; error: string } {
  const m = /^(\d{1,4})(?:\.(\d{1,3}))?$/.exec(text.trim());
  if (!m) return { ok: false, error: TIMEOUT_RULE };
  // Digits, not floats: 0.001 s is exactly 1 ms.
  const ms = Number(m[1]) * 1000 + Number((m[2] ?? '').padEnd(3, '0'));
  return ms < 5_000 || ms > 3_600_000 ? { ok: false, error: TIMEOUT_RULE } : { ok: true, ms };
}

/** 120000 -> "120", 7500 -> "7.5": what the field shows for a saved value. */
export const timeoutSecondsText = (ms: number): string => String(ms / 1000);
