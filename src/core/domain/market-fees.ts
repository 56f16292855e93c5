// The market fee policy: a first attempt priced from what recent blocks included (eth_feeHistory's tips and base fees,
// with headroom for the base fee rising), and "stuck" as a market fact: blocks went by without the transaction while
// they included higher tips, or the base fee passed its max fee. Pure: the fee history comes in, fees and codes go out.
import type { Speed } from '../../shared/tx-request.js';
import { bumpWei, type FeeFields, type NetworkFees } from './fees.js';

/**
 * The reward percentiles asked of eth_feeHistory: about the least a block included (1st), the cheaper (10th), the
 * middle (50th) and the dearer (90th). Indexes below are into this list.
 */
export const REWARD_PERCENTILES = [1, 10, 50, 90] as const;
/**
 * Percentile per speed when recent blocks were full: slow the 1st, normal the 10th, fast the 50th (measured on the
 * market dev chain, bench/fees: the 10th got a normal request into the next block at p95, as the 50th did, for less).
 */
const PERCENTILE_OF: Record<Speed, number> = { slow: 0, normal: 1, fast: 2 };
/** Blocks of history a first attempt is priced from. */
export const HISTORY_BLOCKS = 10;
/**
 * Blocks of base-fee rise a max fee leaves room for (EIP-1559: at most +12.5 % a block). Room costs nothing (a block
 * charges its base fee, not the max), and a max fee the base fee passes can only wait.
 */
export const HEADROOM_BLOCKS: Record<Speed, number> = { slow: 3, normal: 6, fast: 8 };
/** Blocks that must go by without a transaction before it can be called stuck (one block is chance). */
export const STUCK_AFTER_BLOCKS = 2;
/** A legacy chain (no base fee) prices from eth_gasPrice: this much above it per speed, in percent. */
const LEGACY_PREMIUM_PERCENT: Record<Speed, bigint> = { slow: 0n, normal: 10n, fast: 25n };

/** Recent blocks, oldest first, as eth_feeHistory reports them with REWARD_PERCENTILES. */
export interface FeeHistory {
  oldestBlock: number;
  /** Base fee of each block and then of the next block (one more entry than blocks); null on a chain without one. */
  baseFees: bigint[] | null;
  /** Gas used over the gas limit, per block. */
  gasUsedRatio: number[];
  /** Per block, the tips at REWARD_PERCENTILES; an empty block reports zeros. */
  rewards: bigint[][];
}

/** What a speed pays now: the next block's base fee and the tip recent blocks included at that speed's percentile. */
export interface MarketQuote {
  speed: Speed;
  /** The next block's base fee; null on a chain without one. */
  baseFeeWei: bigint | null;
  tipWei: bigint;
}

const big = (v: unknown): bigint => (typeof v === 'string' || typeof v === 'number' ? BigInt(v) : 0n);

/** eth_feeHistory's JSON answer as a FeeHistory (a node that knows no base fee answers zeros or nothing for it). */
export function parseFeeHistory(json: unknown): FeeHistory {
  const o = (json ?? {}) as { oldestBlock?: string; baseFeePerGas?: string[]; gasUsedRatio?: number[]; reward?: string[][] };
  const baseFees = (o.baseFeePerGas ?? []).map(big);
  return {
    oldestBlock: Number(big(o.oldestBlock)),
    baseFees: baseFees.length > 0 && baseFees.some((b) => b > 0n) ? baseFees : null,
    gasUsedRatio: o.gasUsedRatio ?? [],
    rewards: (o.reward ?? []).map((r) => r.map(big)),
  };
}

function median(xs: readonly bigint[]): bigint {
  const s = [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return s[Math.floor((s.length - 1) / 2)]!;
}

/** Blocks that carried transactions: an empty block's zero tips say nothing of the price. */
const busyBlocks = (h: FeeHistory): number[] => h.gasUsedRatio.map((r, i) => (r > 0 && h.rewards[i] ? i : -1)).filter((i) => i >= 0);

/** Blocks that carried transactions the quote looks at, newest last: few, so a market that moved is followed soon. */
export const RECENT_BUSY_BLOCKS = 4;
/** A block this full had no room for more: its tips were a contest, not a formality. */
export const FULL_RATIO = 0.9;
/** Percentile per speed when recent blocks had room: any tip they included was enough, so slow and normal bid the least. */
const ROOMY_PERCENTILE_OF: Record<Speed, number> = { slow: 0, normal: 0, fast: 1 };

/**
 * The market for `speed`, from the last RECENT_BUSY_BLOCKS blocks that carried transactions: the median of the tip
 * each included at the speed's percentile when most of them were full (a contest: slow the 1st, normal the 10th, fast
 * the 50th), or at a lower one when they had room (slow and normal the 1st, fast the 10th: the low end got in). After a full block the tip is at least what
 * that newest block included at the percentile, so a rising market is followed at once. With no busy block, the
 * node's suggested tip. The base fee is the next block's.
 */
export function marketQuote(h: FeeHistory, net: NetworkFees, speed: Speed): MarketQuote {
  const baseFeeWei = h.baseFees ? h.baseFees.at(-1)! : net.baseFeeWei;
  const recent = busyBlocks(h).slice(-RECENT_BUSY_BLOCKS);
  if (recent.length === 0) return { speed, baseFeeWei, tipWei: net.priorityFeeWei };
  const full = (i: number) => h.gasUsedRatio[i]! >= FULL_RATIO;
  const column = recent.filter(full).length * 2 > recent.length ? PERCENTILE_OF[speed] : ROOMY_PERCENTILE_OF[speed];
  const at = (i: number) => h.rewards[i]![column] ?? 0n;
  const newest = recent.at(-1)!;
  const tip = median(recent.map(at));
  return { speed, baseFeeWei, tipWei: full(newest) && at(newest) > tip ? at(newest) : tip };
}

/** `base` after `blocks` blocks of the steepest rise EIP-1559 allows (+12.5 % each), rounded up. */
export function baseFeeAfter(base: bigint, blocks: number): bigint {
  let b = base;
  for (let i = 0; i < blocks; i++) b = (b * 1125n + 999n) / 1000n;
  return b;
}

/**
 * Fees that pay the market for the quote's speed: EIP-1559 where the chain has a base fee (the tip, and a max fee with
 * the speed's headroom over the next base fee), legacy where it has none (eth_gasPrice plus the speed's premium).
 */
export function marketFees(q: MarketQuote, net: NetworkFees): FeeFields {
  if (q.baseFeeWei === null) {
    const price = (net.gasPriceWei * (100n + LEGACY_PREMIUM_PERCENT[q.speed]) + 99n) / 100n;
    return { txType: 'legacy', gasPrice: price > q.tipWei ? price : q.tipWei };
  }
  return {
    txType: 'eip1559',
    maxFeePerGas: baseFeeAfter(q.baseFeeWei, HEADROOM_BLOCKS[q.speed]) + q.tipWei,
    maxPriorityFeePerGas: q.tipWei,
  };
}

/** The tip `fees` pays in a block with base fee `base` (legacy: the price above the base fee); null if it cannot enter. */
export function effectiveTip(fees: FeeFields, base: bigint): bigint | null {
  const max = fees.txType === 'legacy' ? fees.gasPrice : fees.maxFeePerGas;
  if (max < base) return null;
  const room = max - base;
  return fees.txType === 'legacy' ? room : fees.maxPriorityFeePerGas < room ? fees.maxPriorityFeePerGas : room;
}

export type StuckVerdict =
  | { stuck: false; blocks: number }
  /** The base fee passed the max fee: no block can include it until it falls. */
  | { stuck: true; reason: 'base-fee-above-max'; blocks: number; baseFeeWei: bigint; maxFeeWei: bigint }
  /** Blocks went by that included only tips above what it offers. */
  | { stuck: true; reason: 'outbid'; blocks: number; includedTipWei: bigint; offeredTipWei: bigint };

/**
 * Whether a transaction with `fees` is stuck, judged over `h`: the blocks mined since it was sent (none of which
 * included it). Stuck when the next base fee is above its max fee, or when at least STUCK_AFTER_BLOCKS full blocks
 * (FULL_RATIO) went by and the least tip each of them included (their 1st percentile) is, at its lowest, above
 * what it offers at the next base fee. A block with room for it would have taken it at any tip, so only full blocks'
 * tips count; blocks with room and no sign of it leave it to the node check (dropped or not propagated).
 */
export function marketStuck(fees: FeeFields, h: FeeHistory): StuckVerdict {
  const blocks = h.gasUsedRatio.length;
  const next = h.baseFees ? h.baseFees.at(-1)! : 0n;
  const offered = effectiveTip(fees, next);
  if (offered === null)
    return {
      stuck: true,
      reason: 'base-fee-above-max',
      blocks,
      baseFeeWei: next,
      maxFeeWei: fees.txType === 'legacy' ? fees.gasPrice : fees.maxFeePerGas,
    };
  if (blocks < STUCK_AFTER_BLOCKS) return { stuck: false, blocks };
  const full = busyBlocks(h).filter((i) => h.gasUsedRatio[i]! >= FULL_RATIO);
  if (full.length < STUCK_AFTER_BLOCKS) return { stuck: false, blocks };
  const included = full.map((i) => h.rewards[i]![0] ?? 0n).reduce((a, b) => (b < a ? b : a));
  return offered < included
    ? { stuck: true, reason: 'outbid', blocks, includedTipWei: included, offeredTipWei: offered }
    : { stuck: false, blocks };
}

/**
 * The fees of a replacement under the market policy: the market's price for the quote's speed now, and never less than
 * the node's minimum bump over the attempt it replaces (each field), so the node takes it as a replacement. It keeps
 * the replaced attempt's type; a legacy one on a chain with a base fee pays the next base fee (one block of room) plus
 * the tip, not the max fee's headroom, since a legacy price is what it pays.
 */
export function marketReplacementFees(prev: FeeFields, q: MarketQuote, net: NetworkFees, bumpPercent: number): FeeFields {
  const max = (a: bigint, b: bigint) => (a > b ? a : b);
  const market = marketFees(q, net);
  if (prev.txType === 'legacy') {
    const price = q.baseFeeWei === null ? headline(market) : baseFeeAfter(q.baseFeeWei, 1) + q.tipWei;
    return { txType: 'legacy', gasPrice: max(bumpWei(prev.gasPrice, bumpPercent), price) };
  }
  const marketTip = market.txType === 'legacy' ? market.gasPrice : market.maxPriorityFeePerGas;
  const tip = max(bumpWei(prev.maxPriorityFeePerGas, bumpPercent), marketTip);
  const maxFee = max(max(bumpWei(prev.maxFeePerGas, bumpPercent), headline(market)), tip);
  return { txType: 'eip1559', maxFeePerGas: maxFee, maxPriorityFeePerGas: tip };
}

const headline = (f: FeeFields): bigint => (f.txType === 'legacy' ? f.gasPrice : f.maxFeePerGas);
