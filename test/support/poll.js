// Polling with a deadline that does not count time the machine stood still. A frozen VM or a starved CI runner stops
// every process at once (the node, the app, the test); the time it stood still is added to the deadline instead of
// failing a wait that never had the time it was given. Plain ESM (with poll.d.ts): benchmarks and test helpers share it.

/** A gap this much longer than the ticker's period means the process did not run; smaller ones are scheduling. */
const STALL_MS = 5_000;
const TICK_MS = 1_000;

/**
 * A deadline `timeoutMs` from now, moved later by every stall: a ticker notes the time every second, and a gap
 * between two notes (or between the last note and a check) more than STALL_MS longer than that is time the process
 * stood still, whatever it was waiting on then. Each stall is reported to `onStall` with its length in ms (by default
 * one line on stderr, so a run that needed it says so). `stop()` ends the ticker; it never keeps a process alive.
 */
export function stallAwareDeadline(timeoutMs, onStall = reportStall) {
  let until = Date.now() + timeoutMs;
  let noted = Date.now();
  const note = () => {
    const now = Date.now();
    const stood = now - noted - TICK_MS;
    noted = now;
    if (stood > STALL_MS) {
      until += stood;
      onStall(stood);
    }
  };
  const ticker = setInterval(note, TICK_MS);
  ticker.unref();
  return {
    passed() {
      note();
      return Date.now() > until;
    },
    stop: () => clearInterval(ticker),
  };
}

function reportStall(ms) {
  process.stderr.write(
    `[poll] this process stood still for ${Math.round(ms / 1000)} s (machine frozen or starved); the wait's deadline moves by as much\n`,
  );
}

/**
 * The tests' one wait: calls `check` every `everyMs` until it returns something other than undefined, null or false,
 * and resolves with that; fails with "timed out waiting for <what>" after `timeoutMs` of time the machine actually
 * ran. A check that throws fails the wait at once, unless `retryErrors` (a node still starting): then it counts as
 * "not yet" and the last error is named when the wait times out.
 */
export async function waitFor(what, check, { timeoutMs = 60_000, everyMs = 200, retryErrors = false } = {}) {
  const deadline = stallAwareDeadline(timeoutMs);
  let lastError;
  try {
    for (;;) {
      let v;
      try {
        v = await check();
      } catch (e) {
        if (!retryErrors) throw e;
        lastError = e;
      }
      if (v !== undefined && v !== null && v !== false) return v;
      if (deadline.passed()) {
        const cause = lastError === undefined ? '' : ` (last error: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
        throw new Error(`timed out waiting for ${what}${cause}`);
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  } finally {
    deadline.stop();
  }
}
