// Sends stored signed transactions and records each outcome (history, nonce problem, refusal count, log), and
// registers sent hashes with the tracker.
import { describeNews, describeRefusal, kindNoun, short } from '../domain/describe.js';
import { formatGwei } from '../../shared/fee-words.js';
import { refusalIsNews, refusalProblemFacts } from '../domain/problem-facts.js';
import { REASON_OF_REFUSAL, sendEndsRefusal, type BroadcastFailure } from '../domain/refusal.js';
import { worstCost } from '../domain/replacement.js';
import { newestAttempt } from '../domain/replacement-retry.js';
import { BroadcastError } from '../ports.js';
import type { TxRecord } from '../../shared/tx-record.js';
import type { TxEngineContext } from './tx-engine-context.js';

export type BroadcastOutcome = 'sent' | BroadcastFailure;

export interface TxBroadcasting {
  /** Sends a stored signed transaction and records the outcome in its history and, if refused, on its nonce. */
  broadcast(hash: string, kind?: 'broadcast' | 'rebroadcast', why?: string): Promise<BroadcastOutcome>;
  /** Registers a hash with the tracker without holding anyone up; a failure is retried in the background. */
  track(hash: string): void;
  /**
   * Broadcasts a freshly stored transaction and tracks it; a stale nonce triggers reconciliation, in the serial queue
   * when the caller is not already running in it (`inQueue: false`).
   */
  sendStored(record: TxRecord, opts?: { inQueue?: boolean }): Promise<BroadcastOutcome>;
  /** Ends the background tracking retries. */
  stop(): void;
}

/** `nonceUsed` reconciles a nonce the node says is already used (see tx-engine-reconcile). */
export function createTxBroadcasting(ctx: TxEngineContext, nonceUsed: (from: string, nonce: number) => Promise<unknown>): TxBroadcasting {
  const { d, refusals } = ctx;
  const retryTimers = new Set<NodeJS.Timeout>();

  async function broadcast(hash: string, kind: 'broadcast' | 'rebroadcast' = 'broadcast', why?: string): Promise<BroadcastOutcome> {
    const raw = d.store.rawOf(hash);
    const rec = d.store.get(hash);
    if (!raw || !rec) return 'refused';
    let outcome: BroadcastOutcome = 'sent';
    let message = '';
    try {
      await d.chain.sendRaw(raw);
    } catch (e) {
      if (!(e instanceof BroadcastError)) throw e;
      outcome = e.failure;
      message = e.message.slice(0, 300);
    }
    const fee = formatGwei(BigInt(rec.gasPrice));
    const now = ctx.iso();
    const changed = [hash];
    if (outcome === 'sent' || outcome === 'known') {
      const retried = refusals.has(hash);
      refusals.delete(hash);
      const summary = describeNews(
        outcome === 'known' ? { code: 'known' } : kind === 'rebroadcast' ? { code: 'sent-again', why } : { code: 'sent', retried },
      );
      d.store.transaction(() => {
        d.store.markBroadcast(hash, 'sent');
        d.store.addEvent(hash, { kind, summary, detail: why ? { why } : {} }, now);
        const newest = newestAttempt(d.store.byNonce(rec.from, rec.nonce));
        if (newest && sendEndsRefusal(newest.problem?.reason, newest.transactionHash === hash)) {
          const h = ctx.setProblem(rec.from, rec.nonce, null);
          if (h) changed.push(h);
        }
      });
      if (kind === 'rebroadcast')
        d.log.info(`sent ${short(hash)} (nonce ${rec.nonce}, ${fee}) again as signed: ${why ?? 'after a restart'}`);
      else if (outcome === 'sent') d.log.info(`sent ${short(hash)} nonce ${rec.nonce} at ${fee} (${kindNoun(rec.kind)})`);
    } else if (outcome === 'nonce-used') {
      d.store.addEvent(
        hash,
        { kind: 'broadcast-failed', summary: describeNews({ code: 'nonce-used' }), detail: { failure: outcome, message } },
        now,
      );
    } else {
      const count = (refusals.get(hash) ?? 0) + 1;
      refusals.set(hash, count);
      const cost = worstCost(rec, BigInt(rec.gasPrice));
      const balance = outcome === 'funds' ? await d.chain.balance(rec.from).catch(() => null) : null;
      const refusal = {
        failure: outcome,
        message,
        nonce: rec.nonce,
        from: rec.from,
        kind: rec.kind,
        costWei: cost,
        feeWei: BigInt(rec.gasPrice),
        balanceWei: balance,
      };
      const [summary, facts] = [describeRefusal(refusal), refusalProblemFacts(refusal)];
      const news = refusalIsNews(d.store.history(hash).at(-1), facts);
      d.store.transaction(() => {
        if (outcome !== 'unreachable') d.store.markBroadcast(hash, 'rejected');
        // The timeline says why it was sent again (dropped, node restarted) before it says why the node refused it.
        if (news && kind === 'rebroadcast')
          d.store.addEvent(hash, { kind, summary: describeNews({ code: 'sent-again', why }), detail: why ? { why } : {} }, now);
        if (news)
          d.store.addEvent(
            hash,
            {
              kind: 'broadcast-failed',
              summary,
              detail: {
                failure: outcome,
                message,
                refusals: count,
                ...(balance !== null ? { balanceWei: balance.toString(), costWei: cost.toString() } : {}),
                facts,
              },
            },
            now,
          );
        const newest = newestAttempt(d.store.byNonce(rec.from, rec.nonce));
        if (newest?.transactionHash === hash || outcome === 'unreachable') {
          const h = ctx.setProblem(rec.from, rec.nonce, { reason: REASON_OF_REFUSAL[outcome], summary, facts });
          if (h) changed.push(h);
        }
      });
      if (news) d.log.warn(`the node refused ${short(hash)} (nonce ${rec.nonce}, ${fee}): ${summary}`);
    }
    ctx.emit(changed);
    return outcome;
  }

  function track(hash: string, attempt = 0): void {
    if (ctx.stopped) return;
    const p = d.policy();
    d.feed.track(hash, { timeout: p.timeoutMs, confirmation: p.confirmations }).catch((e: Error) => {
      if (ctx.stopped) return;
      const delay = Math.min(30_000, 1_000 * 2 ** attempt);
      if (attempt === 0 || delay === 30_000) d.log.warn(`tracking ${short(hash)} failed (${e.message}); retrying in ${delay / 1000} s`);
      const t = setTimeout(() => {
        retryTimers.delete(t);
        track(hash, attempt + 1);
      }, delay);
      t.unref();
      retryTimers.add(t);
    });
  }

  async function sendStored(record: TxRecord, opts: { inQueue?: boolean } = {}): Promise<BroadcastOutcome> {
    const outcome = await broadcast(record.transactionHash);
    if (outcome === 'sent' || outcome === 'known' || outcome === 'unreachable') track(record.transactionHash);
    if (outcome === 'nonce-used')
      await (opts.inQueue === false ? ctx.serial(() => nonceUsed(record.from, record.nonce)) : nonceUsed(record.from, record.nonce));
    return outcome;
  }

  return {
    broadcast,
    track: (hash) => track(hash),
    sendStored,
    stop() {
      retryTimers.forEach((t) => clearTimeout(t));
      retryTimers.clear();
    },
  };
}
