// Runs the engine's retry of skipped replacements (cap, replacement limit) on a timer and on demand, one run at a time,
// logging a failing node once per distinct message instead of every tick.
import type { Logger } from '../../lib/log.js';
import type { TxEngine } from './tx-engine.js';

/** How often the core looks again at replacements skipped for the cap or the replacement limit. */
export const SKIPPED_RETRY_MS = 15_000;

export interface SkippedRetries {
  /** Runs a retry now (after a policy change); resolves when a run that started after this call has finished. */
  kick(): Promise<void>;
  stop(): void;
}

/**
 * Runs `retrySkipped` every `everyMs` (unref'd) and on `kick()`. One run at a time; a kick during a run (which may
 * have read the old policy) runs once more after it. A failure (node down) is logged once per distinct message,
 * not every tick, and the next tick tries again.
 */
export function scheduleSkippedRetries(engine: Pick<TxEngine, 'retrySkipped'>, log: Logger, everyMs = SKIPPED_RETRY_MS): SkippedRetries {
  let stopped = false;
  let current: Promise<void> | null = null;
  let queued: Promise<void> | null = null;
  let lastError: string | null = null;

  const once = () =>
    engine.retrySkipped().then(
      (s) => {
        if (lastError !== null) log.info('retrying skipped replacements works again');
        lastError = null;
        if (s.replaced) log.info(`sent ${s.replaced} replacement(s) that had been skipped for the fee cap or the replacement limit`);
      },
      (e: unknown) => {
        const message = e instanceof Error ? e.message : String(e);
        if (message !== lastError) log.warn(`retrying skipped replacements failed (${message}); trying again every ${everyMs / 1000} s`);
        lastError = message;
      },
    );

  function run(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (!current) {
      current = once().finally(() => {
        current = null;
      });
      return current;
    }
    queued ??= current.then(() => {
      queued = null;
      return run();
    });
    return queued;
  }

  const timer = setInterval(() => void run(), everyMs);
  timer.unref();
  return {
    kick: run,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
