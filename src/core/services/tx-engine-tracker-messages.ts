// The tracker-message path: applies each pending / receipt / confirmation message exactly once, replaces a stuck or
// reorganised nonce, and acks the message only after its effect is committed.
import type { TxRecord } from '../../shared/tx-record.js';
import { short } from '../domain/describe.js';
import { newestAttempt } from '../domain/replacement-retry.js';
import { applyTrackerMessage } from '../domain/transitions.js';
import type { FeedMessage } from '../ports.js';
import type { TxEngineContext } from './tx-engine-context.js';
import type { TxReplacing } from './tx-engine-replacement.js';

export function createTrackerMessageHandler(
  ctx: TxEngineContext,
  replacing: Pick<TxReplacing, 'planReplacement' | 'commitReplacement' | 'sendWithBumps'>,
) {
  const { d } = ctx;

  /** Applies one tracker message exactly once; acks it after the commit (and any broadcast), outside the queue. */
  return async function handleMessage(m: FeedMessage): Promise<void> {
    await ctx.serial(async () => {
      if (d.store.isProcessed(m.id)) return;
      const hash = String(m.result.transactionHash ?? '').toLowerCase();
      const rec = d.store.get(hash);
      if (!rec) {
        // Another program with the same clientId tracks it; not ours to judge.
        d.store.markProcessed(m.id, ctx.iso());
        return;
      }
      const others = d.store.byNonce(rec.from, rec.nonce).filter((r) => r.transactionHash !== hash);
      const t = applyTrackerMessage(rec, others, { type: m.type, result: m.result });
      const reorged = t.stuck && m.result.reorged === true;
      // After a withdrawn receipt the nonce's newest attempt is the one to replace; a plain pending asks about itself.
      const after = (r: TxRecord): TxRecord => {
        const c = t.changes.filter((x) => x.hash === r.transactionHash).at(-1);
        return c ? { ...r, status: c.status } : r;
      };
      const target = reorged ? newestAttempt([rec, ...others].map(after))! : rec;
      // Under the market policy the tracker's timeout is a clock, not a verdict: the block check (tx-engine-market.ts)
      // replaces a transaction once the blocks say it is outbid. A withdrawn receipt is replaced either way.
      const replaceNow = t.stuck && (reorged || d.policy().pricing !== 'market');
      const plan = replaceNow
        ? await replacing.planReplacement(
            { ...target, status: 'pending' },
            [rec, ...others].map(after).filter((r) => r.transactionHash !== target.transactionHash),
          )
        : null;
      const why = reorged
        ? 'its receipt was reorganised away'
        : `not mined within the ${Math.round(d.policy().timeoutMs / 1000)} s timeout`;
      const replacement = d.store.transaction(() => {
        ctx.applyChanges(t.changes);
        const r = plan ? replacing.commitReplacement(target, plan, why) : null;
        d.store.markProcessed(m.id, ctx.iso());
        return r;
      });
      if (reorged) d.log.warn(`nonce ${rec.nonce}: the receipt of ${short(hash)} was withdrawn by a reorganisation; back to pending`);
      ctx.emit([
        ...t.changes.map((c) => c.hash),
        ...(plan ? [target.transactionHash] : []),
        ...(replacement ? [replacement.transactionHash] : []),
      ]);
      if (replacement) await replacing.sendWithBumps(replacement);
    });
    // A lost ack only means a redelivery, which finds the message id and acks again. Outside the queue: a slow or
    // unreachable service never holds up the next send.
    await m.ack().catch((e: Error) => d.log.warn(`ack of tracker message ${m.id} failed: ${e.message}`));
  };
}
