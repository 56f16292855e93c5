// The periodic nonce check: compares every open nonce with the node, adopting receipts the tracker has not
// delivered, confirming at depth, undoing receipts reorganised away, and resending what the node no longer knows.
import type { TxRecord } from '../../shared/tx-record.js';
import { short } from '../domain/describe.js';
import { newestAttempt } from '../domain/replacement-retry.js';
import { applyTrackerMessage, withdrawReceipt } from '../domain/transitions.js';
import type { TxBroadcasting } from './tx-engine-broadcast.js';
import type { TxEngineContext } from './tx-engine-context.js';
import type { TxReconciling } from './tx-engine-reconcile.js';
import type { TxReplacing } from './tx-engine-replacement.js';

export interface NonceCheckSummary {
  /** Transactions the node no longer knew, sent again exactly as signed. */
  rebroadcast: number;
  /** Receipts found withdrawn (reorganised away). */
  reorged: number;
  /** Nonces the engine found mined or confirmed itself (the tracker missed or has not said yet). */
  settled: number;
}

export function createNonceCheck(
  ctx: TxEngineContext,
  sending: Pick<TxBroadcasting, 'broadcast' | 'track'>,
  reconciling: Pick<TxReconciling, 'reconcileNonce'>,
  replacing: Pick<TxReplacing, 'replaceStuck'>,
) {
  const { d } = ctx;

  /** Sends a transaction again exactly as signed and, once the node has it, tracks it again. */
  async function resendAsSigned(hash: string, why: string): Promise<void> {
    const outcome = await sending.broadcast(hash, 'rebroadcast', why);
    if (outcome === 'sent' || outcome === 'known') sending.track(hash);
  }

  /**
   * Checks every open nonce against the node: adopts receipts the tracker has not delivered, confirms at depth,
   * undoes receipts reorganised away, and sends again (as signed) the best attempt the node no longer knows.
   */
  async function checkNonces(head: number): Promise<NonceCheckSummary> {
    const sum: NonceCheckSummary = { rebroadcast: 0, reorged: 0, settled: 0 };
    const confirmations = d.policy().confirmations;
    for (const sender of d.store.senders()) {
      const latest = await d.chain.nonceCount(sender, 'latest');
      sum.reorged += await reopenDeepReorgs(sender, latest, head);
      const open = d.store.openNonces(sender);
      if (!open.length) continue;
      for (const nonce of open) {
        if (ctx.stopped) return sum;
        // Lookups run outside the serial queue (tracker messages and sends never wait for them); the action runs
        // inside it only if the nonce's records are still what the lookups were judged against.
        const records = d.store.byNonce(sender, nonce);
        // Confirmed, or conceded to a transaction sent elsewhere: nothing more can happen to it.
        if (records.some((r) => r.status === 'confirmation') || (nonce < latest && records.every((r) => r.status === 'replaced'))) continue;
        const withReceipt = records.find((r) => r.status === 'receipt');
        let act: () => Promise<void>;
        if (withReceipt) {
          const block = Number(withReceipt.data.blockNumber);
          if (nonce < latest && head - block < confirmations) continue;
          const receipt = await d.chain.receipt(withReceipt.transactionHash);
          if (receipt && receipt.blockHash === withReceipt.data.blockHash) {
            if (head - block < confirmations) continue;
            act = async () => {
              const t = applyTrackerMessage(
                withReceipt,
                records.filter((r) => r !== withReceipt),
                { type: 'confirmation', result: receipt },
              );
              d.store.transaction(() => ctx.applyChanges(t.changes));
              ctx.emit(t.changes.map((c) => c.hash));
              sum.settled++;
            };
          } else act = () => reconcile(sender, nonce, latest, head, sum);
        } else if (nonce >= latest) {
          // Open at the node: the newest attempt it accepted must still be there (pool or chain).
          const best = newestAttempt(records.filter((r) => r.status !== 'replaced' && d.store.broadcastOf(r.transactionHash) === 'sent'));
          if (!best || (await d.chain.hasTransaction(best.transactionHash))) continue;
          act = async () => {
            await resendAsSigned(best.transactionHash, 'the node no longer knew it (dropped from its pool, restarted, or another node)');
            sum.rebroadcast++;
          };
        } else {
          // Mined, but not by a receipt we hold.
          act = () => reconcile(sender, nonce, latest, head, sum);
        }
        const seen = fingerprint(records);
        await ctx.serial(async () => {
          if (fingerprint(d.store.byNonce(sender, nonce)) === seen) await act();
        });
      }
    }
    return sum;
  }

  /** Reconciles a nonce from the nonce check, counting what it found. */
  async function reconcile(sender: string, nonce: number, latest: number, head: number, sum: NonceCheckSummary): Promise<void> {
    const plan = await reconciling.reconcileNonce(sender, nonce, latest, head);
    if (plan.outcome === 'reorged') sum.reorged++;
    if (plan.outcome === 'mined' || plan.outcome === 'used-elsewhere') sum.settled++;
  }

  /** What the nonce check judged a nonce by: its records' hashes, statuses and links. */
  function fingerprint(records: readonly TxRecord[]): string {
    return records
      .map((r) => `${r.transactionHash}:${r.status ?? '-'}:${r.replacedBy ?? '-'}:${d.store.broadcastOf(r.transactionHash)}`)
      .join('|');
  }

  /**
   * A confirmed nonce at or above the chain's mined count was undone by a reorganisation deeper than the
   * confirmations: once the node is past the confirmed block and no longer has its receipt, the nonce is reopened and
   * replaced at once, as a receipt reorganised away is (tx-engine-reconcile.ts). Sending the winner again as signed
   * is not enough on its own: its tracking ended at its confirmation and the tracker does not open a finished
   * tracking again, so it would never be reported pending, and at a fee the market has left behind the nonce (and
   * every later one) would wait for good. When the policy holds the replacement back (it is retried), the winner is
   * sent again as signed.
   */
  async function reopenDeepReorgs(sender: string, latest: number, head: number): Promise<number> {
    let reopened = 0;
    for (const nonce of d.store.liveNonces(sender)) {
      if (nonce < latest || ctx.stopped) continue;
      reopened += await ctx.serial(async () => {
        const records = d.store.byNonce(sender, nonce);
        const winner = records.find((r) => r.status === 'confirmation');
        if (!winner || head < Number(winner.data.blockNumber)) return 0;
        const receipt = await d.chain.receipt(winner.transactionHash);
        if (receipt) return 0;
        const changes = withdrawReceipt(
          winner,
          records.filter((r) => r !== winner),
          `deeper than the ${d.policy().confirmations} confirmations`,
          true,
        );
        d.store.transaction(() => ctx.applyChanges(changes));
        ctx.emit(changes.map((c) => c.hash));
        d.log.warn(
          `nonce ${nonce} of ${sender}: its confirmed block ${String(winner.data.blockNumber)} was reorganised away; ` +
            `replacing ${short(winner.transactionHash)}`,
        );
        const why = 'its confirmed block was reorganised away';
        if (!(await replacing.replaceStuck(sender, nonce, why))) await resendAsSigned(winner.transactionHash, why);
        return 1;
      });
    }
    return reopened;
  }

  return { checkNonces };
}

export type NonceCheck = ReturnType<typeof createNonceCheck>;
