// The checks a request passes before anything is signed, as data: is there a key for it, does the fee cap allow the
// network's price, does the balance cover the most the policy may make it cost, and is a node's answer to the
// simulation a revert. Pure; the engine reads the node and the policy, and describe.ts words the refusals.
import type { ReplacementPolicy } from '../../shared/desktop-api.js';
import { givenFees, headlineFee, initialFees, type FeeFields, type GivenFees, type NetworkFees } from './fees.js';
import { marketFees, type MarketQuote } from './market-fees.js';

/** `fees` with the max fee held to the cap (a market max fee's headroom may pass it; the tip never above the max). */
function capFees(fees: FeeFields, capWei: bigint): FeeFields {
  if (fees.txType === 'legacy') return fees.gasPrice > capWei ? { txType: 'legacy', gasPrice: capWei } : fees;
  const maxFee = fees.maxFeePerGas > capWei ? capWei : fees.maxFeePerGas;
  return {
    txType: 'eip1559',
    maxFeePerGas: maxFee,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas < maxFee ? fees.maxPriorityFeePerGas : maxFee,
  };
}

export type UserReplacementKind = 'cancel' | 'speed-up';

/** Why a person's send, cancel or speed-up is refused with nothing signed: a code and the numbers of its sentence. */
export type RequestRefusal =
  | { code: 'no-key' }
  | { code: 'price-above-cap' | 'initial-fee-above-cap' | 'given-fee-above-cap'; feeWei: bigint; capWei: bigint }
  | ({ code: 'funds'; missingWei: bigint } & FundsFacts)
  // A cancel or speed-up.
  | { code: 'unknown-tx'; hash: string }
  | { code: 'key-not-loaded'; kind: UserReplacementKind; from: string }
  | { code: 'nonce-used-elsewhere'; kind: UserReplacementKind; nonce: number }
  | { code: 'nonce-mined'; kind: UserReplacementKind; nonce: number; minedBy: string }
  | { code: 'bump-above-cap'; kind: UserReplacementKind; nonce: number; feeWei: bigint; capWei: bigint };

/**
 * A new transaction's fees under `policy` (or at the fees a tool gave, which replacements then start from), or the
 * refusal when they are above the fee cap.
 */
export function firstAttemptFees(
  policy: ReplacementPolicy,
  net: NetworkFees,
  given?: GivenFees | null,
  market?: MarketQuote | null,
): { fees: FeeFields; raisedFromWei: bigint | null } | RequestRefusal {
  const capWei = BigInt(policy.maxFeeWei);
  if (!given && market && policy.pricing === 'market') {
    const fees = marketFees(market, net);
    // The max fee's headroom is room, not price: only what a block would charge (base fee + tip) must fit the cap.
    const price = market.baseFeeWei === null ? headlineFee(fees) : market.baseFeeWei + market.tipWei;
    if (price > capWei) return { code: 'price-above-cap', feeWei: price, capWei };
    return { fees: capFees(fees, capWei), raisedFromWei: null };
  }
  if (given) {
    const { fees, raisedToBaseFee } = givenFees(given, net);
    const asked = 'gasPrice' in given ? given.gasPrice : given.maxFeePerGas;
    if (headlineFee(fees) > capWei)
      return { code: raisedToBaseFee ? 'price-above-cap' : 'given-fee-above-cap', feeWei: headlineFee(fees), capWei };
    return { fees, raisedFromWei: raisedToBaseFee && asked !== undefined ? asked : null };
  }
  const { fees, raisedToBaseFee } = initialFees(policy.txType, BigInt(policy.initialFeeWei), net);
  if (headlineFee(fees) > capWei)
    return { code: raisedToBaseFee ? 'price-above-cap' : 'initial-fee-above-cap', feeWei: headlineFee(fees), capWei };
  return { fees, raisedFromWei: raisedToBaseFee ? BigInt(policy.initialFeeWei) : null };
}

export interface FundsFacts {
  from: string;
  balanceWei: bigint;
  valueWei: bigint;
  gasLimit: bigint;
  /** The fee cap: replacements never go above it, and below it they follow the network's price, which nothing bounds. */
  capWei: bigint;
}

/** What is missing for the worst case (value + gas limit x cap), or null when the balance covers it. */
export function fundsShortfall(f: FundsFacts): bigint | null {
  const need = f.valueWei + f.gasLimit * f.capWei;
  return f.balanceWei >= need ? null : need - f.balanceWei;
}
