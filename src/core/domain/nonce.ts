// Nonce bookkeeping: the next nonce to sign with, and what start-up recovery does with each nonce still open.
// Pure: chain facts (nonce counts, receipts) come in as arguments.
import type { TxRecord } from '../../shared/tx-record.js';
import { applyTrackerMessage, change, withdrawReceipt, type RecordChange } from './transitions.js';

export interface NoncePlan {
  nonce: number;
  /** Nonces the chain counts beyond our own highest one: used by something outside this app. */
  usedElsewhere: number;
}

/**
 * Next nonce = the lowest one at or above the chain's pending count that holds no record of ours. The chain's count
 * covers transactions sent elsewhere; our records cover transactions signed and stored that the node lost or has
 * not seen yet (a restarted node's pending count falls back to its mined count). A hole among our nonces (which
 * only a lost record could leave) is filled before anything above it, so no nonce is skipped.
 */
export function planNextNonce(chainPendingNonce: number, liveNonces: Iterable<number>): NoncePlan {
  const live = new Set(liveNonces);
  let highest = -1;
  for (const n of live) if (n > highest) highest = n;
  let nonce = chainPendingNonce;
  while (live.has(nonce)) nonce++;
  const ours = highest + 1;
  return { nonce, usedElsewhere: highest >= 0 && chainPendingNonce > ours ? chainPendingNonce - ours : 0 };
}

export interface NonceFacts {
  nonce: number;
  /** Every record of this sender and nonce. */
  records: readonly TxRecord[];
  /** Receipt (docs/tracker-protocol.md §3 shape) of each of our hashes that the chain has mined; absent or null = not mined. */
  receipts: ReadonlyMap<string, Record<string, unknown> | null>;
  /** `eth_getTransactionCount(sender, 'latest')`: nonces below it are used for good. */
  minedNonceCount: number;
  /** Hashes the node refused the last time they were sent: not what to resend (the retry of refusals handles them). */
  rejected: ReadonlySet<string>;
  /** The node's head block number: a receipt of ours at or below it that the node no longer has was reorganised away. */
  headBlock?: number;
}

export interface NonceRecovery {
  outcome: 'mined' | 'used-elsewhere' | 'reorged' | 'open' | 'closed';
  changes: RecordChange[];
  /** Signed transaction to send again (its hash), when the nonce is still open. */
  rebroadcast: string | null;
  /** Hashes to (re-)register with the tracker. */
  track: string[];
}

/** What start-up recovery does with one nonce: adopt a receipt, concede a foreign nonce, or resend and re-track. */
export function recoverNonce(f: NonceFacts): NonceRecovery {
  if (f.records.some((r) => r.status === 'confirmation')) return { outcome: 'closed', changes: [], rebroadcast: null, track: [] };
  const winner = f.records.find((r) => f.receipts.get(r.transactionHash));
  if (winner) {
    const receipt = f.receipts.get(winner.transactionHash)!;
    const others = f.records.filter((r) => r !== winner);
    const { changes } = applyTrackerMessage(winner, others, { type: 'receipt', result: receipt });
    return { outcome: 'mined', changes, rebroadcast: null, track: [winner.transactionHash] };
  }
  const stale = f.records.find((r) => r.status === 'receipt');
  if (stale && f.nonce >= f.minedNonceCount && f.headBlock !== undefined && f.headBlock >= Number(stale.data.blockNumber)) {
    // The node is past the receipt's block and the nonce is unused: the receipt was reorganised away.
    const changes = withdrawReceipt(
      stale,
      f.records.filter((r) => r !== stale),
      'the node no longer has it',
    );
    const sendable = f.records.filter((r) => !f.rejected.has(r.transactionHash));
    const newest = highestAttempt(sendable);
    return {
      outcome: 'reorged',
      changes,
      rebroadcast: newest?.transactionHash ?? stale.transactionHash,
      track: [stale.transactionHash, ...(newest && newest !== stale ? [newest.transactionHash] : [])],
    };
  }
  if (f.nonce < f.minedNonceCount) {
    const changes = f.records
      .filter((r) => r.status !== 'replaced')
      .map((r) =>
        change(
          r.transactionHash,
          'replaced',
          'nonce-used-elsewhere',
          { code: 'nonce-used-elsewhere', nonce: f.nonce },
          { nonce: f.nonce, minedNonceCount: f.minedNonceCount },
        ),
      );
    return { outcome: 'used-elsewhere', changes, rebroadcast: null, track: [] };
  }
  const sendable = f.records.filter((r) => !f.rejected.has(r.transactionHash));
  // A record that once had a receipt (since reorganised away) is known to be valid; otherwise the highest fee wins the pool.
  const candidate = sendable.find((r) => r.status === 'receipt') ?? highestAttempt(sendable);
  const track = sendable.filter((r) => r === candidate || r.status === undefined || r.status === 'pending').map((r) => r.transactionHash);
  return { outcome: 'open', changes: [], rebroadcast: candidate?.transactionHash ?? null, track };
}

/** The record with the highest attempt (the first of equals): the highest fee, so the one a pool keeps. */
function highestAttempt(records: readonly TxRecord[]): TxRecord | null {
  return records.reduce<TxRecord | null>((a, b) => (a === null || b.attempt > a.attempt ? b : a), null);
}
