// The replacement policy: whether a stuck transaction gets a same-nonce replacement, and at which fee; and whether a
// person's cancel or speed-up may go out. Pure: the caller passes the records, the network's fees, the policy and the
// loaded key; the answers are codes and numbers (describe.ts words them), so a table of cases tests it completely.
import type { ReplacementPolicy } from '../../shared/desktop-api.js';
import type { NonceProblemReason, PricedBy, TxRecord, TxStatus } from '../../shared/tx-record.js';
import type { TxPayload } from '../../shared/tx-request.js';
import { headlineFee, initialFees, replacementFees, type FeeFields, type NetworkFees } from './fees.js';
import { marketReplacementFees, type MarketQuote } from './market-fees.js';
import type { RequestRefusal, UserReplacementKind } from './send-check.js';

/**
 * A replacement to sign: its fees and attempt, the replaced fee (for the percent), and who asked: the policy (within
 * `maxReplacements`, or beyond it for a transaction no pool took) or a person.
 */
export type ReplaceDecision = {
  action: 'replace';
  fees: FeeFields;
  attempt: number;
  prevFeeWei: bigint;
  by: 'policy' | 'beyond-limit' | UserReplacementKind;
  maxReplacements: number;
  market?: MarketQuote;
};

/** What a `replacement-skipped` event stores beside each reason a stuck transaction is not replaced for. */
type SkipDetails = {
  'not-stuck': { status: TxStatus };
  'nonce-mined': { minedBy: string };
  superseded: { newer: string };
  'max-replacements': { attempt: number; maxReplacements: number };
  cap: { neededWei: string; capWei: string };
  'no-key': { from: string };
};
export type SkipReason = keyof SkipDetails;
export type SkipDecision = { [R in SkipReason]: { action: 'skip'; nonce: number; reason: R; detail: SkipDetails[R] } }[SkipReason];
export type ReplacementDecision = ReplaceDecision | SkipDecision;

/** What the policy is asked with besides the records: the loaded key's address, and whether to ignore the limit. */
export type ReplacementAsk = { signer: string | null; beyondLimit?: boolean };

/** A plain transfer's gas: the limit of a cancel (a 0-value transfer to yourself) and of the no-body demo send. */
export const SELF_TRANSFER_GAS = 21_000n;

/** A 0-value transfer to `from` with 21,000 gas: what a cancel signs (and what viem and ethers call "cancelled"). */
export function selfTransfer(from: string): TxPayload {
  return { to: from, value: '0', input: '0x', gasLimit: SELF_TRANSFER_GAS.toString() };
}

/** The payload a record was signed with: every automatic replacement and speed-up signs the same one at a new fee. */
export function payloadOf(r: Pick<TxRecord, 'to' | 'value' | 'input' | 'gasLimit'>): TxPayload {
  return { to: r.to, value: r.value, input: r.input, gasLimit: r.gasLimit };
}

/** The most a record may cost its sender at `feeWei` per gas: value plus the whole gas limit at that fee. */
export function worstCost(p: Pick<TxPayload, 'value' | 'gasLimit'>, feeWei: bigint): bigint {
  return BigInt(p.value) + BigInt(p.gasLimit) * feeWei;
}

/** How a replacement's fee was chosen: the market's quote it went to, a person's bump, or the seed preset's step. */
export function replacementPricedBy(d: ReplaceDecision): PricedBy {
  if (d.market) return marketPricedBy(d.market);
  return d.by === 'cancel' || d.by === 'speed-up' ? { by: 'bump' } : { by: 'seed' };
}

/** A market quote as a record keeps it. */
export function marketPricedBy(q: MarketQuote): PricedBy {
  return { by: 'market', speed: q.speed, baseFeeWei: q.baseFeeWei?.toString() ?? null, tipWei: q.tipWei.toString() };
}

export function feesOf(r: Pick<TxRecord, 'txType' | 'gasPrice' | 'maxPriorityFeePerGas'>): FeeFields {
  if (r.txType === 'legacy') return { txType: 'legacy', gasPrice: BigInt(r.gasPrice) };
  return { txType: 'eip1559', maxFeePerGas: BigInt(r.gasPrice), maxPriorityFeePerGas: BigInt(r.maxPriorityFeePerGas ?? r.gasPrice) };
}

/** The record's fee fields as stored: `gasPrice` is the headline fee (maxFeePerGas for EIP-1559). The inverse of feesOf. */
export function recordFees(fees: FeeFields): Pick<TxRecord, 'gasPrice' | 'txType'> & { maxPriorityFeePerGas?: string } {
  return fees.txType === 'legacy'
    ? { txType: 'legacy', gasPrice: fees.gasPrice.toString() }
    : { txType: 'eip1559', gasPrice: fees.maxFeePerGas.toString(), maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString() };
}

const MINED = new Set(['receipt', 'confirmation']);
/** Whether the record holds a receipt (confirmed or not): its nonce is used by it. */
export const isMined = (r: Pick<TxRecord, 'status'>): boolean => r.status !== undefined && MINED.has(r.status);

/**
 * Checks that need no network data. `tx` is the record that just went `pending`; `sameNonce` is every other
 * record of its sender and nonce. Returns null when a replacement may be sent.
 */
export function replacementBlocker(
  tx: TxRecord,
  sameNonce: readonly TxRecord[],
  policy: ReplacementPolicy,
  ask: ReplacementAsk,
): SkipDecision | null {
  if (tx.status !== undefined && tx.status !== 'pending')
    return { action: 'skip', nonce: tx.nonce, reason: 'not-stuck', detail: { status: tx.status } };
  const mined = sameNonce.find(isMined);
  if (mined) return { action: 'skip', nonce: tx.nonce, reason: 'nonce-mined', detail: { minedBy: mined.transactionHash } };
  if (tx.replacedBy !== null || sameNonce.some((r) => r.attempt > tx.attempt)) {
    return {
      action: 'skip',
      nonce: tx.nonce,
      reason: 'superseded',
      detail: { newer: tx.replacedBy ?? sameNonce.reduce((a, b) => (b.attempt > a.attempt ? b : a)).transactionHash },
    };
  }
  if (!ask.beyondLimit && tx.attempt >= policy.maxReplacements)
    return {
      action: 'skip',
      nonce: tx.nonce,
      reason: 'max-replacements',
      detail: { attempt: tx.attempt, maxReplacements: policy.maxReplacements },
    };
  if (ask.signer !== tx.from) return { action: 'skip', nonce: tx.nonce, reason: 'no-key', detail: { from: tx.from } };
  return null;
}

/** The full decision for a record that is stuck (by default with its key loaded); `market` under the market policy. */
export function decideReplacement(
  tx: TxRecord,
  sameNonce: readonly TxRecord[],
  net: NetworkFees,
  policy: ReplacementPolicy,
  ask: ReplacementAsk = { signer: tx.from },
  market?: MarketQuote,
): ReplacementDecision {
  const blocked = replacementBlocker(tx, sameNonce, policy, ask);
  if (blocked) return blocked;
  // The market policy goes straight to the market's price for the request's speed (at least the node's bump); the
  // seed preset steps up by the bump from the previous fee.
  const next = market
    ? marketReplacementFees(feesOf(tx), market, net, policy.bumpPercent)
    : replacementFees(feesOf(tx), net, policy.bumpPercent);
  const cap = BigInt(policy.maxFeeWei);
  if (headlineFee(next) > cap)
    return { action: 'skip', nonce: tx.nonce, reason: 'cap', detail: { neededWei: headlineFee(next).toString(), capWei: cap.toString() } };
  return {
    action: 'replace',
    fees: next,
    attempt: tx.attempt + 1,
    prevFeeWei: BigInt(tx.gasPrice),
    by: ask.beyondLimit ? 'beyond-limit' : 'policy',
    maxReplacements: policy.maxReplacements,
    ...(market ? { market } : {}),
  };
}

/** Why a person's cancel or speed-up of the nonce of `records` has nothing left to do: it is mined, or used elsewhere. */
export function settledNonceRefusal(records: readonly TxRecord[], nonce: number, kind: UserReplacementKind): RequestRefusal | null {
  const mined = records.find(isMined);
  if (mined) return { code: 'nonce-mined', kind, nonce, minedBy: mined.transactionHash };
  return records.every((r) => r.status === 'replaced') ? { code: 'nonce-used-elsewhere', kind, nonce } : null;
}

/** Why the loaded key (`signer`, null: none) cannot sign a cancel or speed-up of a transaction `from` sent. */
export function keyRefusal(
  signer: string | null,
  from: string,
  kind: UserReplacementKind,
): Extract<RequestRefusal, { code: 'key-not-loaded' }> | null {
  return signer === from ? null : { code: 'key-not-loaded', kind, from };
}

/**
 * The fees of a person's cancel or speed-up of `newest` (or the engine's cancel of a nonce the node keeps refusing):
 * bumped at the network's price, outside the replacement limit, never above the fee cap.
 */
export function decideUserReplacement(
  newest: TxRecord,
  kind: UserReplacementKind,
  net: NetworkFees,
  policy: ReplacementPolicy,
): ReplaceDecision | Extract<RequestRefusal, { code: 'bump-above-cap' }> {
  // A cancel filling a nonce is signed with today's policy: its own transaction may have been refused for its type.
  const base: FeeFields =
    kind === 'cancel' && newest.txType !== policy.txType ? initialFees(policy.txType, BigInt(newest.gasPrice), net).fees : feesOf(newest);
  const fees = replacementFees(base, net, policy.bumpPercent);
  const capWei = BigInt(policy.maxFeeWei);
  if (headlineFee(fees) > capWei) return { code: 'bump-above-cap', kind, nonce: newest.nonce, feeWei: headlineFee(fees), capWei };
  return {
    action: 'replace',
    fees,
    attempt: newest.attempt + 1,
    prevFeeWei: BigInt(newest.gasPrice),
    by: kind,
    maxReplacements: policy.maxReplacements,
  };
}

/** Skips that a change in fees, settings or the key can undo, as the nonce's problem; the others (mined, superseded, not stuck) are final. */
export type RetryableSkipReason = Extract<SkipReason, 'cap' | 'max-replacements' | 'no-key'>;
export const PROBLEM_OF_SKIP: Partial<Record<SkipReason, NonceProblemReason>> = {
  cap: 'fee-cap',
  'max-replacements': 'max-replacements',
  'no-key': 'no-key',
};
