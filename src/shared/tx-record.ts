// The app's transaction record (docs/app.md) and its event history, as JSON crosses HTTP and IPC.
import type { Speed, TxPayload } from './tx-request.js';

export type TxStatus = 'pending' | 'receipt' | 'confirmation' | 'replaced';

/** Why a record was signed: a generated transaction, an automatic replacement, or the user's cancel / speed-up. */
export type TxKind = 'generate' | 'replace' | 'cancel' | 'speed-up';

/**
 * How a record's fee was chosen: by the market policy (with the speed and what recent blocks showed when it was
 * signed), by the seed preset's first fee and bumps, by the request itself (a tool's own fee), or by a person's cancel
 * or speed-up bump.
 */
export type PricedBy =
  | { by: 'market'; speed: Speed; baseFeeWei: string | null; tipWei: string }
  | { by: 'seed' }
  | { by: 'request' }
  | { by: 'bump' };

/** Why an open nonce is not moving forward on its own. */
export type NonceProblemReason = 'fee-cap' | 'max-replacements' | 'funds' | 'underpriced' | 'refused' | 'unreachable' | 'no-key';

/**
 * What a nonce problem is made of, as data (amounts in decimal wei), so screens and the core's own checks act on facts
 * and the sentence stays for people: the fee a replacement needs and the cap (fee-cap), the balance and what the
 * attempt may cost (funds); `code` names the decision behind it (a node refusal's kind, a skip's reason, a refused
 * cancel's code), and the rest is whatever else its sentence says.
 */
export interface NonceProblemFacts {
  code: string;
  neededWei?: string;
  capWei?: string;
  balanceWei?: string;
  costWei?: string;
  /** The fee the refused attempt offers. */
  feeWei?: string;
  /** The node's own words, where the sentence quotes them. */
  nodeMessage?: string;
  attempt?: number;
  maxReplacements?: number;
}

export interface NonceProblem {
  reason: NonceProblemReason;
  /** One sentence a person can act on, e.g. "balance 0.00003 ETH is below the 0.0000378 ETH this replacement needs". */
  summary: string;
  /** When the problem was first seen (ISO time). */
  since: string;
  /** Absent on problems stored before txdesk kept them. */
  facts?: NonceProblemFacts;
}

/**
 * One signed transaction. What it does is its TxPayload (recipient, value, calldata, gas limit): every automatic
 * replacement and speed-up keeps all four (a reprice); a cancel is a 0-value transfer to `from` with 21,000 gas.
 */
export interface TxRecord extends TxPayload {
  transactionHash: string;
  /** Sender address, lowercase hex. */
  from: string;
  nonce: number;
  /** Decimal wei: the gas price (legacy) or maxFeePerGas (EIP-1559). */
  gasPrice: string;
  /** Decimal wei, EIP-1559 only. */
  maxPriorityFeePerGas?: string;
  txType: 'legacy' | 'eip1559';
  /** Absent until the first tracker message. */
  status?: TxStatus;
  /** Copy of `result` of the latest receipt/confirmation message; `{}` before. */
  data: Record<string, unknown>;
  replaces: string | null;
  replacedBy: string | null;
  /** 0 for the first transaction of a nonce, 1 for its first replacement, … */
  attempt: number;
  /**
   * Why it was signed: `generate` (POST /api/tx), `replace` (the engine's automatic bump), `cancel` or `speed-up` (a
   * person's request). A replacement of a cancel stays `cancel`: the kind is the nonce's intent from then on.
   */
  kind: TxKind;
  /** Set on the newest record of an open nonce while something keeps that nonce from settling; null otherwise. */
  problem: NonceProblem | null;
  /** How its fee was chosen; absent on records signed before txdesk kept it. */
  pricedBy?: PricedBy;
  /** The chain the record was signed for; set by the app's API (the store keeps one file per chain). */
  chainId?: number;
  createdAt: string;
  updatedAt: string;
}

export type TxEventKind =
  | 'signed'
  | 'broadcast'
  | 'broadcast-failed'
  | 'pending'
  | 'receipt'
  | 'confirmation'
  | 'replaced'
  | 'replacement-sent'
  | 'replacement-skipped'
  | 'reorged'
  | 'nonce-used-elsewhere'
  | 'rebroadcast';

export interface TxEvent {
  at: string;
  kind: TxEventKind;
  /** One sentence a person can read, e.g. "Replaced by 0xab… at 1.27 gwei (+27%)". */
  summary: string;
  detail: Record<string, unknown>;
}

export interface TxRecordWithHistory extends TxRecord {
  history: TxEvent[];
}
