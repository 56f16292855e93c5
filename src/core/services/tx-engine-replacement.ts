// Same-nonce replacements: signs one when the policy says so, commits it write-ahead with the link and the choice in
// the old record's history (or the skip as the nonce's problem), and sends it, bumping again while the node finds
// it underpriced.
import type { TxKind, TxRecord } from '../../shared/tx-record.js';
import { describeNews, describeReplacement, describeSkip, short } from '../domain/describe.js';
import { formatGwei } from '../../shared/fee-words.js';
import { headlineFee, type NetworkFees } from '../domain/fees.js';
import {
  decideReplacement,
  PROBLEM_OF_SKIP,
  replacementBlocker,
  replacementPricedBy,
  payloadOf,
  type ReplaceDecision,
  type SkipDecision,
} from '../domain/replacement.js';
import { skipProblemFacts } from '../domain/problem-facts.js';
import { newestAttempt } from '../domain/replacement-retry.js';
import type { CancelledBy } from '../domain/request-follow.js';
import { newTxRecord } from '../domain/transitions.js';
import type { TxBroadcasting } from './tx-engine-broadcast.js';
import { unsignedTx, type SignedTx, type TxEngineContext } from './tx-engine-context.js';
import { readMarket, speedOf } from './tx-engine-market.js';

/** A replacement decision and, when it says replace, the transaction signed for it (nothing written yet). */
export type ReplacementPlan = { decision: SkipDecision } | { decision: ReplaceDecision; signed: SignedTx };

export interface PlanOptions {
  /** Ignore the replacement limit (a refused transaction never reached a pool). */
  beyondLimit?: boolean;
  /** Where the network's fees come from (a round shares one reading); a fresh reading by default. */
  net?: () => Promise<NetworkFees>;
}

export function createTxReplacing(ctx: TxEngineContext, sending: Pick<TxBroadcasting, 'sendStored'>) {
  const { d } = ctx;

  /** Signs a replacement for `prev` if the policy says so; returns what to commit (nothing is written here). */
  async function planReplacement(prev: TxRecord, others: TxRecord[], opts: PlanOptions = {}): Promise<ReplacementPlan> {
    const [policy, signer] = [d.policy(), d.signer()];
    const ask = { signer: signer?.address ?? null, beyondLimit: opts.beyondLimit };
    const blocked = replacementBlocker(prev, others, policy, ask);
    if (blocked) return { decision: blocked };
    // A failure here (node down) propagates: the message is not acked and comes again later.
    const net = await (opts.net ?? (() => d.chain.fees()))();
    const market = policy.pricing === 'market' ? await readMarket(d, speedOf(d, prev), net) : undefined;
    const decision = decideReplacement(prev, others, net, policy, ask, market);
    if (decision.action === 'skip') return { decision };
    // A reprice: the same payload at the new fee, so libraries waiting on the first hash see "repriced".
    const payload = payloadOf(prev);
    // The blocker said no-key unless the loaded key is the sender's.
    const signed = { ...(await signer!.sign(unsignedTx(d.chainId, prev.nonce, payload, decision.fees))), payload };
    return { decision, signed };
  }

  /**
   * Commits a replacement plan: the new record (write-ahead), the link, and the choice in the old record's history;
   * a skip that a change can undo (cap, limit, key) becomes the nonce's problem. Call inside a store transaction.
   * A replacement of a cancel is still a cancel: `kind` is the nonce's intent, not who signed. A new cancel carries
   * who asked for it (`cancelledBy`, kept in its `signed` event), which /rpc tells a tool waiting on the nonce.
   */
  function commitReplacement(
    prev: TxRecord,
    plan: ReplacementPlan,
    why: string,
    kind: TxKind = prev.kind === 'cancel' ? 'cancel' : 'replace',
    cancelledBy?: CancelledBy,
  ): TxRecord | null {
    const now = ctx.iso();
    if (!('signed' in plan)) {
      const skip = plan.decision;
      d.store.addEvent(
        prev.transactionHash,
        { kind: 'replacement-skipped', summary: describeSkip(skip), detail: { reason: skip.reason, ...skip.detail } },
        now,
      );
      const problem = PROBLEM_OF_SKIP[skip.reason];
      if (problem)
        ctx.setProblem(prev.from, prev.nonce, { reason: problem, summary: describeSkip(skip, 'problem'), facts: skipProblemFacts(skip) });
      return null;
    }
    const { decision, signed } = plan;
    const rec = newTxRecord(
      {
        hash: signed.hash,
        from: prev.from,
        nonce: prev.nonce,
        fees: decision.fees,
        replaces: prev.transactionHash,
        attempt: decision.attempt,
        kind,
        payload: signed.payload,
        pricedBy: replacementPricedBy(decision),
      },
      now,
    );
    d.store.clearProblems(prev.from, prev.nonce, now);
    d.store.insert(rec, signed.raw, [
      {
        kind: 'signed',
        summary: describeNews({
          code: 'signed-replacement',
          kind,
          attempt: decision.attempt,
          replaces: prev.transactionHash,
          feeWei: headlineFee(decision.fees),
        }),
        detail: {
          nonce: prev.nonce,
          feeWei: headlineFee(decision.fees).toString(),
          replaces: prev.transactionHash,
          kind,
          ...(cancelledBy ? { cancelledBy } : {}),
        },
      },
    ]);
    d.store.linkReplacement(prev.transactionHash, rec.transactionHash, now);
    d.store.addEvent(
      prev.transactionHash,
      {
        kind: 'replacement-sent',
        summary: describeReplacement(decision, rec.transactionHash, why),
        detail: { replacement: rec.transactionHash, feeWei: headlineFee(decision.fees).toString(), attempt: decision.attempt, kind, why },
      },
      now,
    );
    d.log.info(
      `replacing ${short(prev.transactionHash)} (nonce ${prev.nonce}) ` +
        `with ${short(rec.transactionHash)}: ${formatGwei(BigInt(prev.gasPrice))} ` +
        `-> ${formatGwei(headlineFee(decision.fees))}, ${why}`,
    );
    return rec;
  }

  /** Broadcasts a committed replacement; a node that finds it underpriced gets the next bump right away. */
  async function sendWithBumps(rec: TxRecord): Promise<void> {
    let current: TxRecord | null = rec;
    while (current && !ctx.stopped) {
      const outcome = await sending.sendStored(current);
      if (outcome !== 'underpriced') return;
      const prev: TxRecord = d.store.get(current.transactionHash)!;
      const others = d.store.byNonce(prev.from, prev.nonce).filter((r) => r.transactionHash !== prev.transactionHash);
      const plan = await planReplacement({ ...prev, status: 'pending' }, others);
      const changedHashes = [prev.transactionHash];
      current = d.store.transaction(() => commitReplacement(prev, plan, 'the node wanted a higher fee to replace the one it holds'));
      if (current) changedHashes.push(current.transactionHash);
      ctx.emit(changedHashes);
    }
  }

  /**
   * Plans a replacement of `prev` (treated as pending), commits it with `why`, tells about both records and sends
   * it with bumps; returns whether a replacement went out.
   */
  async function replaceAndSend(prev: TxRecord, others: TxRecord[], why: string, opts: PlanOptions = {}): Promise<boolean> {
    const plan = await planReplacement({ ...prev, status: 'pending' }, others, opts);
    const rec = d.store.transaction(() => commitReplacement(prev, plan, why));
    ctx.emit([prev.transactionHash, ...(rec ? [rec.transactionHash] : [])]);
    if (rec) await sendWithBumps(rec);
    return rec !== null;
  }

  /** Replaces the newest attempt of a nonce that is open again or stuck; returns whether a replacement went out. */
  async function replaceStuck(from: string, nonce: number, why: string): Promise<boolean> {
    const records = d.store.byNonce(from, nonce);
    const newest = newestAttempt(records);
    if (!newest) return false;
    return replaceAndSend(
      newest,
      records.filter((r) => r !== newest),
      why,
    );
  }

  return { planReplacement, commitReplacement, sendWithBumps, replaceAndSend, replaceStuck };
}

export type TxReplacing = ReturnType<typeof createTxReplacing>;
