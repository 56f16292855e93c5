// Nonce bookkeeping: the next nonce to sign with, and what start-up recovery does with each nonce still open.
// Pure: chain facts (nonce counts, receipts) come in as arguments.
import type { TxRecord } from '../../shared/tx-record.js';
import { applyTrackerMessage, type RecordChange } from './transitions.js';

export interface NoncePlan {
  nonce: number;
  /** Nonces the chain counts beyond our own highest one: used by something outside this app. */
  usedElsewhere: number;
}

/**
 * Next nonce = max(the chain's pending nonce, our highest live nonce + 1). The chain's count covers
 * transactions sent elsewhere; our own count covers transactions signed and stored but not yet seen by the node.
 */
export function planNextNonce(chainPendingNonce: number, liveNonces: Iterable<number>): NoncePlan {
  let highest = -1;
  for (const n of liveNonces) if (n > highest) highest = n;
  const ours = highest + 1;
  return { nonce: Math.max(chainPendingNonce, ours), usedElsewhere: highest >= 0 && chainPendingNonce > ours ? chainPendingNonce - ours : 0 };
}

export interface NonceFacts {
  nonce: number;
  /** Every record of this sender and nonce. */
  records: readonly TxRecord[];
  /** Receipt (SPEC 3.2 shape) of each of our hashes that the chain has mined; absent or null = not mined. */
  receipts: ReadonlyMap<string, Record<string, unknown> | null>;
  /** `eth_getTransactionCount(sender, 'latest')`: nonces below it are used for good. */
  minedNonceCount: number;
  /** Hashes a node refused outright; never worth sending again. */
  rejected: ReadonlySet<string>;
}

export interface NonceRecovery {
  outcome: 'mined' | 'used-elsewhere' | 'open' | 'closed';
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
  if (f.nonce < f.minedNonceCount) {
    const changes: RecordChange[] = f.records
      .filter((r) => r.status !== 'replaced')
      .map((r) => ({
        hash: r.transactionHash,
        status: 'replaced' as const,
        event: {
          kind: 'nonce-used-elsewhere' as const,
          summary: `Nonce ${f.nonce} was used by a transaction sent outside txdesk; this one can never be mined.`,
          detail: { nonce: f.nonce, minedNonceCount: f.minedNonceCount },
        },
      }));
    return { outcome: 'used-elsewhere', changes, rebroadcast: null, track: [] };
  }
  const sendable = f.records.filter((r) => !f.rejected.has(r.transactionHash));
  // A record that once had a receipt (since reorganised away) is known to be valid; otherwise the highest fee wins the pool.
  const candidate = sendable.find((r) => r.status === 'receipt') ?? sendable.reduce<TxRecord | null>((a, b) => (a === null || b.attempt > a.attempt ? b : a), null);
  const track = sendable.filter((r) => r === candidate || r.status === undefined || r.status === 'pending').map((r) => r.transactionHash);
  return { outcome: 'open', changes: [], rebroadcast: candidate?.transactionHash ?? null, track };
}
