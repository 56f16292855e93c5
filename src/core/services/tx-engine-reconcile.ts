// Reconciles a nonce's records with the chain (adopt a receipt, concede a nonce used elsewhere, undo a withdrawn
// receipt, or resend), for start-up recovery, a send the node says is late, and the periodic nonce check.
import { recoverNonce, type NonceRecovery } from '../domain/nonce.js';
import type { TxBroadcasting } from './tx-engine-broadcast.js';
import type { TxEngineContext } from './tx-engine-context.js';
import type { TxReplacing } from './tx-engine-replacement.js';

export interface RecoverySummary {
  nonces: number;
  mined: number;
  usedElsewhere: number;
  rebroadcast: number;
  tracked: number;
}

export function createTxReconciling(
  ctx: TxEngineContext,
  sending: Pick<TxBroadcasting, 'broadcast' | 'track'>,
  replacing: Pick<TxReplacing, 'replaceStuck'>,
) {
  const { d } = ctx;

  /** Reconciles one nonce with the chain: adopt a receipt, concede a foreign nonce, undo a withdrawn receipt, or resend. */
  async function reconcileNonce(sender: string, nonce: number, minedNonceCount?: number, headBlock?: number): Promise<NonceRecovery> {
    const records = d.store.byNonce(sender, nonce);
    const rejected = d.store.rejected(sender);
    const receipts = new Map<string, Record<string, unknown> | null>();
    for (const r of records) receipts.set(r.transactionHash, await d.chain.receipt(r.transactionHash));
    const mined = minedNonceCount ?? (await d.chain.nonceCount(sender, 'latest'));
    const plan = recoverNonce({
      nonce,
      records,
      receipts,
      minedNonceCount: mined,
      rejected,
      ...(headBlock !== undefined ? { headBlock } : {}),
    });
    if (plan.changes.length) {
      d.store.transaction(() => ctx.applyChanges(plan.changes));
      ctx.emit(plan.changes.map((c) => c.hash));
    }
    if (plan.outcome === 'used-elsewhere' && plan.changes.length)
      d.log.warn(`nonce ${nonce} of ${sender} was used outside txdesk; its ${records.length} record(s) are marked replaced`);
    if (plan.outcome === 'reorged') {
      d.log.warn(`nonce ${nonce} of ${sender}: its receipt was reorganised away; replacing again`);
      // Replacement resumes at once, as for a pending nonce; when the policy holds it back, the best attempt is resent.
      if (await replacing.replaceStuck(sender, nonce, 'its receipt was reorganised away')) return { ...plan, rebroadcast: null };
    }
    if (plan.rebroadcast)
      await sending.broadcast(
        plan.rebroadcast,
        'rebroadcast',
        plan.outcome === 'reorged' ? 'its block was reorganised away' : 'after a restart',
      );
    plan.track.forEach((h) => sending.track(h));
    return plan;
  }

  /** Start-up reconciliation of every open nonce of every sender in the store. */
  function recover(): Promise<RecoverySummary> {
    return ctx.serial(async () => {
      const sum: RecoverySummary = { nonces: 0, mined: 0, usedElsewhere: 0, rebroadcast: 0, tracked: 0 };
      const head = (await d.chain.latestBlock()).number;
      for (const sender of d.store.senders()) {
        const open = d.store.openNonces(sender);
        if (!open.length) continue;
        const mined = await d.chain.nonceCount(sender, 'latest');
        for (const nonce of open) {
          const plan = await reconcileNonce(sender, nonce, mined, head);
          sum.nonces++;
          if (plan.outcome === 'mined') sum.mined++;
          if (plan.outcome === 'used-elsewhere') sum.usedElsewhere++;
          if (plan.rebroadcast) sum.rebroadcast++;
          sum.tracked += plan.track.length;
        }
      }
      return sum;
    });
  }

  return { reconcileNonce, recover };
}

export type TxReconciling = ReturnType<typeof createTxReconciling>;
