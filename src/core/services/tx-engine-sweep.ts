// One round of the nonce watchdog (nonce-watchdog.ts schedules the rounds): the retries and the market policy's stuck
// check on every new block, and the nonce check every NONCE_CHECK_EVERY_BLOCKS blocks.
import type { TxEngineContext } from './tx-engine-context.js';
import type { MarketWatch } from './tx-engine-market.js';
import type { NonceCheck, NonceCheckSummary } from './tx-engine-nonce-check.js';
import type { RetrySummary, TxRetries } from './tx-engine-retries.js';

/** Every this many blocks each open nonce is checked against the node (dropped, mined, reorganised). */
export const NONCE_CHECK_EVERY_BLOCKS = 3;

export interface SweepSummary extends RetrySummary, NonceCheckSummary {
  /** The head block the sweep looked at. */
  block: number;
  /** Refused transactions sent again (same bytes), signed again, or filled by a cancel. */
  resent: number;
  /** Transactions the market policy found outbid and replaced. */
  repriced: number;
}

export function createSweep(
  ctx: TxEngineContext,
  retries: Pick<TxRetries, 'retrySkipped' | 'retryRefused'>,
  nonceCheck: Pick<NonceCheck, 'checkNonces'>,
  market: Pick<MarketWatch, 'checkStuck'>,
) {
  let lastSweptBlock = -1;
  let lastNonceCheck = -1;

  /**
   * One round, on each new block (or at once with `force`, after a settings change): retries skipped replacements
   * and refused broadcasts, and every NONCE_CHECK_EVERY_BLOCKS blocks (or when the head went back) checks each open
   * nonce against the node. A node failure propagates; the next round tries again. Null when no block came.
   */
  return async function sweep(opts: { force?: boolean } = {}): Promise<SweepSummary | null> {
    const head = (await ctx.d.chain.latestBlock()).number;
    if (!opts.force && head === lastSweptBlock) return null;
    lastSweptBlock = head;
    const skipped = await retries.retrySkipped();
    const resent = await retries.retryRefused();
    const repriced = await market.checkStuck(head);
    let checked: NonceCheckSummary = { rebroadcast: 0, reorged: 0, settled: 0 };
    if (opts.force || head < lastNonceCheck || head - lastNonceCheck >= NONCE_CHECK_EVERY_BLOCKS) {
      lastNonceCheck = head;
      checked = await nonceCheck.checkNonces(head);
    }
    return { block: head, ...skipped, resent, repriced, ...checked };
  };
}
