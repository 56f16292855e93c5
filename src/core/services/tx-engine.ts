// The transaction engine: sends new transactions, applies tracker messages, sends replacements, cancels and speed-ups,
// and settles every nonce under faults: refused broadcasts are retried on new blocks, transactions the node forgot
// are sent again as signed, withdrawn receipts reopen their nonce. Write-ahead everywhere: a signed transaction is
// committed to SQLite before it is broadcast, and a tracker message is acked only after its effect is committed.
// This file wires the parts (tx-engine-*.ts), which share one serial queue; the decisions live in ../domain.
import { createTxBroadcasting } from './tx-engine-broadcast.js';
import { createTxEngineContext, type TxEngineDeps } from './tx-engine-context.js';
import { createNonceCheck } from './tx-engine-nonce-check.js';
import { createMarketWatch } from './tx-engine-market.js';
import { createTxReconciling } from './tx-engine-reconcile.js';
import { createTxReplacing } from './tx-engine-replacement.js';
import { createTxRetries } from './tx-engine-retries.js';
import { createSweep } from './tx-engine-sweep.js';
import { createTrackerMessageHandler } from './tx-engine-tracker-messages.js';
import { createTxUserActions } from './tx-engine-user-actions.js';

export type { BroadcastOutcome } from './tx-engine-broadcast.js';
export type { TxEngineDeps } from './tx-engine-context.js';
export type { RecoverySummary } from './tx-engine-reconcile.js';
export type { RetrySummary } from './tx-engine-retries.js';
export { NONCE_CHECK_EVERY_BLOCKS, type SweepSummary } from './tx-engine-sweep.js';

export function createTxEngine(d: TxEngineDeps) {
  const ctx = createTxEngineContext(d);
  // A send the node calls late (nonce used) is reconciled; reconciling may replace and send again: a cycle, closed here.
  const sending = createTxBroadcasting(ctx, (from, nonce) => reconciling.reconcileNonce(from, nonce));
  const replacing = createTxReplacing(ctx, sending);
  const reconciling = createTxReconciling(ctx, sending, replacing);
  const users = createTxUserActions(ctx, sending, replacing);
  const retries = createTxRetries(ctx, replacing, users);

  return {
    send: users.send,
    cancel: users.cancel,
    speedUp: users.speedUp,
    handleMessage: createTrackerMessageHandler(ctx, replacing),
    recover: reconciling.recover,
    retrySkipped: retries.retrySkipped,
    sweep: createSweep(ctx, retries, createNonceCheck(ctx, sending, reconciling, replacing), createMarketWatch(ctx, replacing)),
    /** Resolves when the work queued so far is done. */
    idle: () => ctx.serial(async () => {}),
    stop() {
      ctx.stopped = true;
      sending.stop();
    },
  };
}

export type TxEngine = ReturnType<typeof createTxEngine>;
