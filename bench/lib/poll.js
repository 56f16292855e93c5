// Polling with a deadline that does not count time the machine stood still. A frozen VM or a starved CI runner stops
// every process at once (the node, the app, the test); when one pause between polls comes back far later than asked,
// the excess is added to the deadline instead of failing a wait that never had the time it was given. Plain ESM
// (with poll.d.ts): benchmarks and the test helpers share it.

/** A pause this much later than asked means the process did not run; smaller delays are ordinary scheduling. */
export const STALL_MS = 5_000;

/**
 * A deadline `timeoutMs` from now, moved later by every stall seen in `pause` (reported to `onStall` with its length
 * in ms; by default one line on stderr, so a run that needed it says so).
 */
export function stallAwareDeadline(timeoutMs, onStall = reportStall) {
  let until = Date.now() + timeoutMs;
  return {
    passed: () => Date.now() > until,
    async pause(ms) {
      const start = Date.now();
      await new Promise((r) => setTimeout(r, ms));
      const late = Date.now() - start - ms;
      if (late > STALL_MS) {
        until += late;
        onStall(late);
      }
    },
  };
}

function reportStall(ms) {
  process.stderr.write(`[poll] this process stood still for ${Math.round(ms / 1000)} s (machine frozen or starved); the wait's deadline moves by as much\n`);
}

/**
 * Calls `check` every `everyMs` until it returns something other than undefined, null or false, and resolves with
 * that; fails with "timed out waiting for <what>" after `timeoutMs` of time the machine actually ran.
 */
export async function pollUntil(check, what, timeoutMs = 60_000, everyMs = 100) {
  const deadline = stallAwareDeadline(timeoutMs);
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== null && v !== false) return v;
    if (deadline.passed()) throw new Error(`timed out waiting for ${what}`);
    await deadline.pause(everyMs);
  }
}
