// The market fee policy's reads and its stuck check: the market's price for a speed (eth_feeHistory of recent blocks),
// the speed a request asked for, and, on each new block, the replacement of an open nonce's newest attempt once blocks
// went by that included higher tips than it offers (or the base fee passed its max fee).
import { RpcError } from '../../lib/json-rpc.js';
import type { TxRecord } from '../../shared/tx-record.js';
import type { Speed } from '../../shared/tx-request.js';
import { describeStuck } from '../domain/describe.js';
import type { NetworkFees } from '../domain/fees.js';
import {
  HISTORY_BLOCKS,
  marketQuote,
  marketStuck,
  parseFeeHistory,
  REWARD_PERCENTILES,
  type FeeHistory,
  type MarketQuote,
} from '../domain/market-fees.js';
import { feesOf, isMined } from '../domain/replacement.js';
import { newestAttempt } from '../domain/replacement-retry.js';
import type { TxEngineContext, TxEngineDeps } from './tx-engine-context.js';

/** A window wider than this is read as its newest blocks: older blocks say little of the price now. */
const MAX_WINDOW_BLOCKS = 20;

/** No blocks to judge by: the quote falls back to the node's suggested tip and the stuck check finds nothing. */
const NO_HISTORY: FeeHistory = { oldestBlock: 0, baseFees: null, gasUsedRatio: [], rewards: [] };

/**
 * The node's fee history of the `blocks` newest blocks (eth_feeHistory with the speeds' percentiles). A node that
 * refuses the method (some older or light nodes do not serve it) gives no history rather than failing every send; a
 * node that does not answer at all still fails, as every other read does.
 */
export async function readFeeHistory(d: Pick<TxEngineDeps, 'chain'>, blocks: number): Promise<FeeHistory> {
  try {
    return parseFeeHistory(await d.chain.request('eth_feeHistory', [`0x${blocks.toString(16)}`, 'latest', [...REWARD_PERCENTILES]]));
  } catch (e) {
    if (e instanceof RpcError && e.code !== 'unreachable') return NO_HISTORY;
    throw e;
  }
}

/** The market's price for `speed` now. */
export async function readMarket(d: Pick<TxEngineDeps, 'chain'>, speed: Speed, net: NetworkFees): Promise<MarketQuote> {
  return marketQuote(await readFeeHistory(d, HISTORY_BLOCKS), net, speed);
}

/** The speed the request of `rec`'s nonce was priced at (its first attempt's `pricedBy`), else the policy's. */
export function speedOf(d: Pick<TxEngineDeps, 'store' | 'policy'>, rec: TxRecord): Speed {
  const first = d.store.byNonce(rec.from, rec.nonce).find((r) => r.attempt === 0) ?? rec;
  return first.pricedBy?.by === 'market' ? first.pricedBy.speed : d.policy().speed;
}

/** What the watch asks of the replacement side (tx-engine-replacement.ts, which reads the market from here). */
export interface MarketReplacer {
  replaceAndSend(prev: TxRecord, others: TxRecord[], why: string): Promise<boolean>;
}

export function createMarketWatch(ctx: TxEngineContext, replacing: MarketReplacer) {
  const { d } = ctx;
  /** The head block when each attempt was last seen waiting, from its broadcast (memory: a restart starts counting again). */
  const since = new Map<string, number>();

  /**
   * One look at every open nonce under the market policy: the newest attempt of each is judged over the blocks mined
   * since it was sent, and replaced at the market's price for its speed when it is stuck. Returns how many went out.
   */
  async function checkStuck(head: number): Promise<number> {
    if (d.policy().pricing !== 'market') return 0;
    const windows = new Map<number, Promise<FeeHistory>>();
    let replaced = 0;
    for (const sender of d.store.senders()) {
      for (const nonce of d.store.openNonces(sender)) {
        const records = d.store.byNonce(sender, nonce);
        const newest = newestAttempt(records);
        if (!newest || records.some(isMined) || d.store.broadcastOf(newest.transactionHash) !== 'sent') continue;
        const from = since.get(newest.transactionHash);
        if (from === undefined || from > head) {
          since.set(newest.transactionHash, head);
          continue;
        }
        const blocks = Math.min(head - from, MAX_WINDOW_BLOCKS);
        if (blocks < 1) continue;
        let window = windows.get(blocks);
        if (!window) windows.set(blocks, (window = readFeeHistory(d, blocks)));
        const verdict = marketStuck(feesOf(newest), await window);
        if (!verdict.stuck) continue;
        const went = await ctx.serial(async () => {
          // Judged outside the queue: the nonce may have moved on meanwhile.
          const now = d.store.byNonce(sender, nonce);
          const still = newestAttempt(now);
          if (!still || still.transactionHash !== newest.transactionHash || now.some(isMined)) return false;
          return replacing.replaceAndSend(
            still,
            now.filter((r) => r !== still),
            describeStuck(verdict),
          );
        });
        if (went) replaced += 1;
      }
    }
    for (const hash of since.keys()) {
      const r = d.store.get(hash);
      if (!r || r.replacedBy || isMined(r)) since.delete(hash);
    }
    return replaced;
  }

  return { checkStuck };
}

export type MarketWatch = ReturnType<typeof createMarketWatch>;
