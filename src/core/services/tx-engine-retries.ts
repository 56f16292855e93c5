// The watchdog's retries on each new block: nonces a skipped replacement left stuck (fee cap, replacement limit,
// missing key) and nonces whose newest transaction a node refused (resend, re-sign at the network's price, or cancel).
import type { NonceProblemReason } from '../../shared/tx-record.js';
import { describeRefusal, describeRequestRefusal } from '../domain/describe.js';
import type { NetworkFees } from '../domain/fees.js';
import { cancelRefusalFacts, refusalProblemFacts } from '../domain/problem-facts.js';
import { decideRetry, lastRefusalIn, REFUSAL_PROBLEMS, refusalMayBeRetried, type Refusal } from '../domain/refusal.js';
import { isMined, worstCost } from '../domain/replacement.js';
import { newestAttempt, skipIsNews, waitingForRetry } from '../domain/replacement-retry.js';
import type { TxEngineContext } from './tx-engine-context.js';
import type { TxReplacing } from './tx-engine-replacement.js';
import type { CancelRefusal, TxUserActions } from './tx-engine-user-actions.js';

export interface RetrySummary {
  /** Nonces waiting for a retry that were asked again. */
  waiting: number;
  /** Replacements sent. */
  replaced: number;
  /** New `replacement-skipped` events (only when the skip says something new). */
  recorded: number;
}

const WHY_RETRY_NOW = {
  cap: 'fees came back under the cap',
  'max-replacements': 'the replacement limit was raised',
  'no-key': 'the signing key is loaded',
} as const;

/** A refusal of the engine's own cancel, as the nonce's problem that the next block retries. */
const PROBLEM_OF_CANCEL_REFUSAL: Record<CancelRefusal['code'], NonceProblemReason> = {
  'bump-above-cap': 'fee-cap',
  'key-not-loaded': 'no-key',
};

export function createTxRetries(
  ctx: TxEngineContext,
  replacing: Pick<TxReplacing, 'planReplacement' | 'commitReplacement' | 'sendWithBumps' | 'replaceAndSend'>,
  users: Pick<TxUserActions, 'signUserReplacement'>,
) {
  const { d } = ctx;

  /**
   * Looks again at every nonce a `cap`, `max-replacements` or `no-key` skip left stuck (waitingForRetry): replaces it when
   * fees and the policy now allow, else records the new skip only if it says something new (skipIsNews), so the
   * history does not grow every tick. A node failure propagates (nothing is written for that nonce); the caller
   * retries later.
   */
  function retrySkipped(): Promise<RetrySummary> {
    return ctx.serial(async () => {
      const sum: RetrySummary = { waiting: 0, replaced: 0, recorded: 0 };
      // One fee reading per round: every waiting nonce is judged against the same block.
      let fees: Promise<NetworkFees> | null = null;
      const net = () => (fees ??= d.chain.fees());
      for (const { from, nonce } of d.store.skippedNonces()) {
        if (ctx.stopped) break;
        const records = d.store.byNonce(from, nonce);
        const histories = new Map(records.map((r) => [r.transactionHash, d.store.history(r.transactionHash)]));
        const wait = waitingForRetry(records, histories, d.policy());
        if (!wait) continue;
        // Without its key the nonce cannot be replaced now; it keeps waiting instead of getting a final `no-key`.
        if (d.signer()?.address !== from) continue;
        sum.waiting++;
        const plan = await replacing.planReplacement({ ...wait.record, status: 'pending' }, wait.others, { net });
        if (plan.decision.action === 'skip' && !skipIsNews(wait.lastSkip, plan.decision)) continue;
        const rec = d.store.transaction(() => replacing.commitReplacement(wait.record, plan, WHY_RETRY_NOW[wait.reason]));
        ctx.emit([wait.record.transactionHash, ...(rec ? [rec.transactionHash] : [])]);
        if (!rec) {
          sum.recorded++;
          continue;
        }
        sum.replaced++;
        await replacing.sendWithBumps(rec);
      }
      return sum;
    });
  }

  /** The refusal the newest attempt last got: from its history, with this run's count when it has one. */
  function lastRefusal(hash: string): { failure: Refusal; count: number } | null {
    const last = lastRefusalIn(d.store.history(hash));
    return last && { failure: last.failure, count: ctx.refusals.get(hash) ?? last.count };
  }

  /** Tries again every nonce whose newest transaction a node refused: resend, re-sign at the network's price, or cancel. Returns how many it sent. */
  async function retryRefused(): Promise<number> {
    let resent = 0;
    // One balance and one fee reading per round (per block), however many nonces wait on them.
    const balances = new Map<string, Promise<bigint>>();
    const balanceOf = (a: string) => balances.get(a) ?? balances.set(a, d.chain.balance(a)).get(a)!;
    let fees: Promise<NetworkFees> | null = null;
    for (const p of d.store.withProblems()) {
      if (ctx.stopped) break;
      const reason = p.problem?.reason;
      if (!reason || !refusalMayBeRetried(reason)) continue;
      resent += await ctx.serial(async () => {
        const records = d.store.byNonce(p.from, p.nonce);
        const newest = newestAttempt(records);
        if (!newest || records.some(isMined) || newest.transactionHash !== p.transactionHash) {
          d.store.transaction(() => d.store.setProblem(p.transactionHash, null, ctx.iso()));
          ctx.emit([p.transactionHash]);
          return 0;
        }
        const last = lastRefusal(newest.transactionHash);
        if (!last && !REFUSAL_PROBLEMS.has(reason)) return 0; // a skipped replacement: retrySkipped's job
        const refusal = last ?? { failure: 'unreachable' as const, count: 1 };
        const balance = refusal.failure === 'funds' ? await balanceOf(newest.from) : null;
        const net = refusal.failure === 'fee-too-low' ? await (fees ??= d.chain.fees()) : null;
        const cost = worstCost(newest, BigInt(newest.gasPrice));
        const action = decideRetry({
          failure: refusal.failure,
          refusals: refusal.count,
          costWei: cost,
          balanceWei: balance,
          feeWei: BigInt(newest.gasPrice),
          baseFeeWei: net?.baseFeeWei ?? null,
          isCancel: newest.kind === 'cancel',
        });
        if (action.action === 'wait') {
          // Keep the sentence current (a partial top-up changes the balance) without adding history.
          const facts = {
            failure: 'funds' as const,
            message: '',
            nonce: newest.nonce,
            from: newest.from,
            kind: newest.kind,
            costWei: cost,
            feeWei: BigInt(newest.gasPrice),
            balanceWei: balance,
          };
          const h = d.store.transaction(() =>
            ctx.setProblem(newest.from, newest.nonce, {
              reason: 'funds',
              summary: describeRefusal(facts),
              facts: refusalProblemFacts(facts),
            }),
          );
          if (h) ctx.emit([h]);
          return 0;
        }
        if (action.action === 'resend') {
          await replacing.sendWithBumps(newest);
          return 1;
        }
        if (action.action === 'resign') {
          // Not held back by the replacement limit: the refused transaction never reached a pool.
          await replacing.replaceAndSend(
            newest,
            records.filter((r) => r !== newest),
            'the node wanted at least the base fee',
            { beyondLimit: true },
          );
          return 1;
        }
        const cancel = await users.signUserReplacement(newest, 'cancel', `the node refused it ${refusal.count} times`, 'txdesk');
        if ('code' in cancel) {
          // Tried again on the next block, like the refusal itself.
          const h = d.store.transaction(() =>
            ctx.setProblem(newest.from, newest.nonce, {
              reason: PROBLEM_OF_CANCEL_REFUSAL[cancel.code],
              summary: describeRequestRefusal(cancel),
              facts: cancelRefusalFacts(cancel),
            }),
          );
          if (h) ctx.emit([h]);
          return 0;
        }
        await replacing.sendWithBumps(cancel);
        return 1;
      });
    }
    return resent;
  }

  return { retrySkipped, retryRefused };
}

export type TxRetries = ReturnType<typeof createTxRetries>;
