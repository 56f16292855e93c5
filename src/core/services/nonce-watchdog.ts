// Schedules the engine's nonce watchdog rounds (TxEngine.sweep, tx-engine-sweep.ts) on every new block and on demand,
// one round at a time, logging a failing node once per distinct message instead of every poll.
import type { Logger } from '../../lib/log.js';
import type { TxEngine } from './tx-engine.js';

/** How often the head block is polled; a round runs only when it moved (the sweep itself compares). */
export const WATCHDOG_POLL_MS = 1_000;

export interface NonceWatchdog {
  /** Runs a full round now (after a settings change); resolves when a round that started after this call has finished. */
  kick(): Promise<void>;
  stop(): void;
}

/**
 * Polls `sweep` every `everyMs` (unref'd; the sweep returns at once when no block came) and runs a forced round on
 * `kick()`. One round at a time; a kick during a round (which may have read the old policy) runs once more after
 * it. A failure (node down) is logged once per distinct message, not every poll, and the next poll tries again.
 */
export function startNonceWatchdog(engine: Pick<TxEngine, 'sweep'>, log: Logger, everyMs = WATCHDOG_POLL_MS): NonceWatchdog {
  let stopped = false;
  let current: Promise<void> | null = null;
  let queued: Promise<void> | null = null;
  let lastError: string | null = null;

  const once = (force: boolean) =>
    engine.sweep({ force }).then(
      (s) => {
        if (lastError !== null) log.info('the nonce watchdog reaches the node again');
        lastError = null;
        if (!s) return;
        const did = [
          s.replaced && `${s.replaced} skipped replacement(s) sent`,
          s.resent && `${s.resent} refused transaction(s) tried again`,
          s.repriced && `${s.repriced} outbid transaction(s) repriced to the market`,
          s.rebroadcast && `${s.rebroadcast} dropped transaction(s) sent again`,
          s.reorged && `${s.reorged} reorganised receipt(s) undone`,
        ].filter(Boolean);
        if (did.length) log.info(`block ${s.block}: ${did.join(', ')}`);
      },
      (e: unknown) => {
        const message = e instanceof Error ? e.message : String(e);
        if (message !== lastError) log.warn(`the nonce watchdog failed (${message}); trying again every ${everyMs / 1000} s`);
        lastError = message;
      },
    );

  function run(force: boolean): Promise<void> {
    if (stopped) return Promise.resolve();
    if (!current) {
      current = once(force).finally(() => {
        current = null;
      });
      return current;
    }
    if (!force) return current;
    queued ??= current.then(() => {
      queued = null;
      return run(true);
    });
    return queued;
  }

  const timer = setInterval(() => void run(false), everyMs);
  timer.unref();
  return {
    kick: () => run(true),
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
