// Fee arithmetic for first attempts and same-nonce replacements, in bigint wei, with no I/O.
import { MIN_BUMP_PERCENT } from '../../shared/defaults.js';

export { MIN_BUMP_PERCENT };

export type FeeFields = { txType: 'legacy'; gasPrice: bigint } | { txType: 'eip1559'; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };

/** What the network charges right now, read by the chain adapter just before a decision. */
export interface NetworkFees {
  /** Base fee of the latest block; null on chains without EIP-1559. */
  baseFeeWei: bigint | null;
  /** `eth_gasPrice`: the node's suggested legacy price. */
  gasPriceWei: bigint;
  /** `eth_maxPriorityFeePerGas`: the node's suggested tip. */
  priorityFeeWei: bigint;
}

/** `value * (1 + percent/100)`, rounded up, and at least `value + 1` so a zero or tiny fee still rises. */
export function bumpWei(value: bigint, percent: number): bigint {
  const bps = BigInt(Math.ceil(Math.max(percent, MIN_BUMP_PERCENT) * 100));
  const bumped = (value * (10_000n + bps) + 9_999n) / 10_000n;
  return bumped > value ? bumped : value + 1n;
}

/** The one number a cap applies to and people compare: gas price (legacy) or max fee per gas (EIP-1559). */
export function headlineFee(f: FeeFields): bigint {
  return f.txType === 'legacy' ? f.gasPrice : f.maxFeePerGas;
}

const maxOf = (...xs: bigint[]): bigint => xs.reduce((a, b) => (b > a ? b : a));

/**
 * Fees of a first attempt: the configured fee (the seed's 1 gwei), raised only as far as a node requires
 * to accept the transaction at all (the base fee), so it may wait but is never refused.
 */
export function initialFees(
  txType: FeeFields['txType'],
  initialFeeWei: bigint,
  net: NetworkFees,
): { fees: FeeFields; raisedToBaseFee: boolean } {
  const base = net.baseFeeWei ?? 0n;
  const fee = maxOf(initialFeeWei, base);
  const raisedToBaseFee = fee > initialFeeWei;
  if (txType === 'legacy') return { fees: { txType, gasPrice: fee }, raisedToBaseFee };
  // Tip equal to the max fee: with a low base fee the effective price is the configured fee, like legacy.
  return { fees: { txType, maxFeePerGas: fee, maxPriorityFeePerGas: initialFeeWei < fee ? initialFeeWei : fee }, raisedToBaseFee };
}

/** Fees a tool gave with its request (eth_sendTransaction): a gas price, or EIP-1559's max fee, tip, or both. */
export type GivenFees = { gasPrice: bigint } | { maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint };

/**
 * A first attempt at the fees a tool gave, raised only as far as a node requires to accept it (the base fee), as the
 * policy's own first fee is. A missing EIP-1559 field is filled as ethers and viem fill it: the tip from the node's
 * suggestion (never above the max fee), the max fee as twice the base fee plus the tip.
 */
export function givenFees(given: GivenFees, net: NetworkFees): { fees: FeeFields; raisedToBaseFee: boolean } {
  const base = net.baseFeeWei ?? 0n;
  if ('gasPrice' in given) {
    return { fees: { txType: 'legacy', gasPrice: maxOf(given.gasPrice, base) }, raisedToBaseFee: given.gasPrice < base };
  }
  const askedMax = given.maxFeePerGas;
  const tipAsked = given.maxPriorityFeePerGas ?? (askedMax !== undefined && askedMax < net.priorityFeeWei ? askedMax : net.priorityFeeWei);
  const maxFee = askedMax ?? 2n * base + tipAsked;
  const raised = maxOf(maxFee, base);
  return {
    fees: { txType: 'eip1559', maxFeePerGas: raised, maxPriorityFeePerGas: tipAsked < raised ? tipAsked : raised },
    raisedToBaseFee: raised > maxFee,
  };
}

/**
 * The smallest replacement fee a node accepts and the network would actually pay: every fee field bumped by
 * `bumpPercent` (>= MIN_BUMP_PERCENT, >= +1 wei), and never below the network's current price (legacy: `eth_gasPrice`;
 * EIP-1559: tip >= suggested tip, max fee >= base fee + tip). The price floor is the suggestion + 1 wei: in a
 * full, fee-ordered pool equal bids go first-come first-served, and a replacement that only matches the market
 * waits behind everything already queued at that price (measured: ~2.4 blocks instead of ~0.6 on the dev chain).
 */
export function replacementFees(prev: FeeFields, net: NetworkFees, bumpPercent: number): FeeFields {
  if (prev.txType === 'legacy') {
    return { txType: 'legacy', gasPrice: maxOf(bumpWei(prev.gasPrice, bumpPercent), net.gasPriceWei + 1n, net.baseFeeWei ?? 0n) };
  }
  const tip = maxOf(bumpWei(prev.maxPriorityFeePerGas, bumpPercent), net.priorityFeeWei + 1n);
  const maxFee = maxOf(bumpWei(prev.maxFeePerGas, bumpPercent), (net.baseFeeWei ?? 0n) + tip, tip);
  return { txType: 'eip1559', maxFeePerGas: maxFee, maxPriorityFeePerGas: tip };
}

/** Percent increase from `a` to `b`, one decimal, for summaries. */
export function percentIncrease(a: bigint, b: bigint): string {
  if (a === 0n) return '+inf%';
  const tenths = ((b - a) * 1000n) / a;
  return `+${Number(tenths) / 10}%`;
}
