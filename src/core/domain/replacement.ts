// The replacement policy: whether a stuck transaction gets a same-nonce replacement, and at which fee.
// Pure: the caller passes the records, the network's fees and the policy; a table of cases tests it completely.
import type { ReplacementPolicy } from '../../shared/desktop-api.js';
import type { NonceProblemReason, TxKind, TxRecord } from '../../shared/tx-record.js';
import type { TxPayload } from '../../shared/tx-request.js';
import { formatGwei, headlineFee, percentIncrease, replacementFees, type FeeFields, type NetworkFees } from './fees.js';

export type SkipReason = 'not-stuck' | 'nonce-mined' | 'superseded' | 'max-replacements' | 'cap' | 'no-key';

export type ReplacementDecision =
  | { action: 'replace'; fees: FeeFields; attempt: number; summary: string }
  | { action: 'skip'; reason: SkipReason; summary: string; detail: Record<string, unknown> };

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
export function replacementBlocker(tx: TxRecord, sameNonce: readonly TxRecord[], policy: ReplacementPolicy): Extract<ReplacementDecision, { action: 'skip' }> | null {
  if (tx.status !== undefined && tx.status !== 'pending') {
    return { action: 'skip', reason: 'not-stuck', summary: `Not replaced: it is already ${tx.status}.`, detail: { status: tx.status } };
  }
  const mined = sameNonce.find(isMined);
  if (mined) {
    return { action: 'skip', reason: 'nonce-mined', summary: `Not replaced: nonce ${tx.nonce} was already mined by ${short(mined.transactionHash)}.`, detail: { minedBy: mined.transactionHash } };
  }
  if (tx.replacedBy !== null || sameNonce.some((r) => r.attempt > tx.attempt)) {
    const newer = tx.replacedBy ?? sameNonce.reduce((a, b) => (b.attempt > a.attempt ? b : a)).transactionHash;
    return { action: 'skip', reason: 'superseded', summary: `Not replaced again: ${short(newer)} already replaces it.`, detail: { newer } };
  }
  if (tx.attempt >= policy.maxReplacements) {
    return {
      action: 'skip',
      reason: 'max-replacements',
      summary: `Not replaced: nonce ${tx.nonce} already had ${tx.attempt} of at most ${policy.maxReplacements} replacements.`,
      detail: { attempt: tx.attempt, maxReplacements: policy.maxReplacements },
    };
  }
  return null;
}

/** The full decision for a record that just went `pending`. */
export function decideReplacement(tx: TxRecord, sameNonce: readonly TxRecord[], net: NetworkFees, policy: ReplacementPolicy): ReplacementDecision {
  const blocked = replacementBlocker(tx, sameNonce, policy);
  if (blocked) return blocked;
  const prev = feesOf(tx);
  const next = replacementFees(prev, net, policy.bumpPercent);
  const cap = BigInt(policy.maxFeeWei);
  const fee = headlineFee(next);
  if (fee > cap) {
    return {
      action: 'skip',
      reason: 'cap',
      summary: `Not replaced: a fee the network accepts is ${formatGwei(fee)}, above the cap of ${formatGwei(cap)}.`,
      detail: { neededWei: fee.toString(), capWei: cap.toString() },
    };
  }
  return {
    action: 'replace',
    fees: next,
    attempt: tx.attempt + 1,
    summary: `Replacing at ${formatGwei(fee)} (${percentIncrease(headlineFee(prev), fee)}), attempt ${tx.attempt + 1} of ${policy.maxReplacements}.`,
  };
}

export function short(hash: string): string {
  return `${hash.slice(0, 10)}…`;
}

/** What a record is, in a sentence: "transaction", "replacement", "cancel", "speed-up". */
export function kindNoun(kind: TxKind): string {
  return kind === 'generate' ? 'transaction' : kind === 'replace' ? 'replacement' : kind;
}

/** The skips a change of fees, settings or key can undo, as the nonce's problem; the others are final. */
export const PROBLEM_OF_SKIP: Partial<Record<SkipReason, NonceProblemReason>> = { cap: 'fee-cap', 'max-replacements': 'max-replacements', 'no-key': 'no-key' };

/** The problem sentence of a skip: what keeps the nonce and what the person can do. */
export function skipProblemSentence(s: Extract<ReplacementDecision, { action: 'skip' }>): string {
  if (s.reason === 'cap') return `A fee the network accepts is ${formatGwei(BigInt(String(s.detail.neededWei)))}, above your fee cap of ${formatGwei(BigInt(String(s.detail.capWei)))}; raise the cap in Settings or wait for fees to fall.`;
  if (s.reason === 'max-replacements') return `${s.summary.replace(/^Not replaced: /, '').replace(/\.$/, '')}; raise the limit in Settings to replace it again.`;
  return s.summary.replace(/^Not replaced: /, '');
}
