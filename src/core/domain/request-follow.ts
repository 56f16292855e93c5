// Which transaction answers a tool's reads of a hash txdesk handed out: the hash itself, or the attempt of the same
// request that was mined (a reprice txdesk signed), or the news that the request will never happen (cancelled, or its
// nonce taken by a transaction signed elsewhere). Pure: the records of the nonce and what the node says come in.
import type { TxKind } from '../../shared/tx-record.js';

/** Who asked for a cancel: a person in the app, or the engine when the node kept refusing the transaction. */
export type CancelledBy = 'person' | 'txdesk';

/** One signed attempt of a sender's nonce, as the store holds it. */
export interface AttemptFacts {
  hash: string;
  kind: TxKind;
  /** For a cancel: who asked for it; absent on other kinds. */
  cancelledBy?: CancelledBy;
}

/** What the node says of the sender's nonce, read in this order: the mined count first, then the receipts. */
export interface NonceOnChain {
  /** The sender's transaction count at the latest block: a nonce below it is used. */
  latestCount: number;
  /** Hashes of the attempts the node has a receipt for (at most one, unless the node is inconsistent). */
  mined: ReadonlySet<string>;
}

export type FollowAnswer =
  /** The asked hash itself is mined, or nothing of its nonce is yet: the node's own answer. */
  | { answer: 'as-is' }
  /** Another attempt of the same request was mined (a reprice or speed-up): its receipt and transaction. */
  | { answer: 'attempt'; hash: string }
  /** A cancel took the nonce: the request did not happen. */
  | { answer: 'cancelled'; cancel: string; by: CancelledBy }
  /** No attempt txdesk signed took the nonce, yet it is used: a transaction signed elsewhere did. */
  | { answer: 'nonce-used-elsewhere' };

/**
 * The answer for `asked` (one of `attempts`, every record of its sender and nonce). A cancel's own hash follows the
 * cancel like any attempt; any other hash whose nonce went to a cancel is cancelled. When the count says the nonce is
 * used but no attempt has a receipt, another transaction used it (the count is read before the receipts, so an attempt
 * mined in between is among `mined`).
 */
export function followRequest(asked: AttemptFacts, attempts: readonly AttemptFacts[], nonce: number, chain: NonceOnChain): FollowAnswer {
  if (chain.mined.has(asked.hash)) return { answer: 'as-is' };
  const mined = attempts.find((a) => chain.mined.has(a.hash));
  if (mined) {
    if (mined.kind === 'cancel' && asked.kind !== 'cancel')
      return { answer: 'cancelled', cancel: mined.hash, by: mined.cancelledBy ?? 'person' };
    return { answer: 'attempt', hash: mined.hash };
  }
  return chain.latestCount > nonce ? { answer: 'nonce-used-elsewhere' } : { answer: 'as-is' };
}
