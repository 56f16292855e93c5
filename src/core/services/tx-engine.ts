// The transaction engine: sends new transactions, applies tracker messages, sends replacements, and reconciles with
// the chain at start-up. Write-ahead everywhere: a signed transaction is committed to SQLite before it is broadcast,
// and a tracker message is acked only after its effect (including any replacement it caused) is committed.
import type { Logger } from '../../lib/log.js';
import type { ReplacementPolicy } from '../../shared/desktop-api.js';
import { TxdeskError } from '../../shared/errors.js';
import type { TxRecord } from '../../shared/tx-record.js';
import { formatGwei, headlineFee, initialFees, type FeeFields, type NetworkFees } from '../domain/fees.js';
import { planNextNonce, recoverNonce } from '../domain/nonce.js';
import { decideReplacement, replacementBlocker, short, type ReplacementDecision } from '../domain/replacement.js';
import { skipIsNews, waitingForRetry } from '../domain/replacement-retry.js';
import { applyTrackerMessage } from '../domain/transitions.js';
import { BroadcastError, type Chain, type Clock, type FeedMessage, type Signer, type TrackerFeed, type TxStore } from '../ports.js';
import { createSerialQueue } from './serial-queue.js';

export interface TxEngineDeps {
  store: TxStore;
  chain: Chain;
  feed: TrackerFeed;
  clock: Clock;
  log: Logger;
  chainId: number;
  signer(): Signer | null;
  policy(): ReplacementPolicy;
  /** Called after every commit with the records it changed. */
  changed(records: TxRecord[]): void;
}

export type BroadcastOutcome = 'sent' | 'known' | 'unreachable' | 'nonce-used' | 'underpriced' | 'refused';

export interface RecoverySummary {
  nonces: number;
  mined: number;
  usedElsewhere: number;
  rebroadcast: number;
  tracked: number;
}

export interface RetrySummary {
  /** Nonces waiting for a retry that were asked again. */
  waiting: number;
  /** Replacements sent. */
  replaced: number;
  /** New `replacement-skipped` events (only when the skip says something new). */
  recorded: number;
}

const SELF_TRANSFER_GAS = 21_000n;
const FEE_CACHE_MS = 1_000;

export function createTxEngine(d: TxEngineDeps) {
  const serial = createSerialQueue();
  const iso = () => new Date(d.clock.now()).toISOString();
  const emit = (hashes: Iterable<string>) => {
    const recs = [...new Set(hashes)].map((h) => d.store.get(h)).filter((r): r is TxRecord => r !== null);
    if (recs.length) d.changed(recs);
  };

  function feeRecordFields(fees: FeeFields): Pick<TxRecord, 'gasPrice' | 'txType'> & { maxPriorityFeePerGas?: string } {
    return fees.txType === 'legacy'
      ? { txType: 'legacy', gasPrice: fees.gasPrice.toString() }
      : { txType: 'eip1559', gasPrice: fees.maxFeePerGas.toString(), maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString() };
  }

  async function chainCall<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      d.log.warn(`${what}: ${(e as Error).message}`);
      throw new TxdeskError('UPSTREAM_UNAVAILABLE', `The Ethereum node did not answer (${what}); check that it runs and NODE_ENDPOINT points at it, then retry.`);
    }
  }

  /** Sends a stored signed transaction and records the outcome in its history. */
  async function broadcast(hash: string, kind: 'broadcast' | 'rebroadcast' = 'broadcast'): Promise<BroadcastOutcome> {
    const raw = d.store.rawOf(hash);
    if (!raw) return 'refused';
    let outcome: BroadcastOutcome = 'sent';
    let message = '';
    try {
      await d.chain.sendRaw(raw);
    } catch (e) {
      if (!(e instanceof BroadcastError)) throw e;
      outcome = e.failure;
      message = e.message.slice(0, 300);
    }
    const now = iso();
    d.store.transaction(() => {
      if (outcome === 'sent' || outcome === 'known') {
        d.store.markBroadcast(hash, 'sent');
        d.store.addEvent(hash, { kind, summary: outcome === 'known' ? 'The node already had it.' : kind === 'rebroadcast' ? 'Sent to the node again after a restart.' : 'Sent to the node.', detail: {} }, now);
      } else {
        if (outcome === 'underpriced' || outcome === 'refused') d.store.markBroadcast(hash, 'rejected');
        const summary =
          outcome === 'unreachable'
            ? 'The node could not be reached; it will be sent again after the tracker timeout or on the next start.'
            : outcome === 'nonce-used'
              ? 'The node says its nonce is already used.'
              : `The node refused it: ${message}`;
        d.store.addEvent(hash, { kind: 'broadcast-failed', summary, detail: { failure: outcome, message } }, now);
      }
    });
    emit([hash]);
    return outcome;
  }

  let stopped = false;
  const retryTimers = new Set<NodeJS.Timeout>();

  /** Registers a hash with the tracker; a failure is retried in the background (the tracker treats repeats as no-ops). */
  async function track(hash: string, attempt = 0): Promise<void> {
    const p = d.policy();
    try {
      await d.feed.track(hash, { timeout: p.timeoutMs, confirmation: p.confirmations });
    } catch (e) {
      if (stopped) return;
      const delay = Math.min(30_000, 1_000 * 2 ** attempt);
      d.log.warn(`tracking ${short(hash)} failed (${(e as Error).message}); retrying in ${delay / 1000} s`);
      const t = setTimeout(() => {
        retryTimers.delete(t);
        void track(hash, attempt + 1);
      }, delay);
      t.unref();
      retryTimers.add(t);
    }
  }

  /** Reconciles one nonce with the chain: adopt a receipt, concede a foreign nonce, or resend and re-track. */
  async function reconcileNonce(sender: string, nonce: number, minedNonceCount?: number, trackNow = true): Promise<ReturnType<typeof recoverNonce>> {
    const records = d.store.byNonce(sender, nonce);
    const rejected = d.store.rejected(sender);
    const receipts = new Map<string, Record<string, unknown> | null>();
    for (const r of records) if (!rejected.has(r.transactionHash)) receipts.set(r.transactionHash, await d.chain.receipt(r.transactionHash));
    const mined = minedNonceCount ?? (await d.chain.nonceCount(sender, 'latest'));
    const plan = recoverNonce({ nonce, records, receipts, minedNonceCount: mined, rejected });
    if (plan.changes.length) {
      d.store.applyChanges(plan.changes, iso());
      emit(plan.changes.map((c) => c.hash));
    }
    if (plan.outcome === 'used-elsewhere') d.log.warn(`nonce ${nonce} of ${sender} was used outside txdesk; its ${records.length} record(s) are marked replaced`);
    if (plan.rebroadcast) await broadcast(plan.rebroadcast, 'rebroadcast');
    if (trackNow) await Promise.all(plan.track.map((h) => track(h)));
    return plan;
  }

  /** Broadcasts a freshly stored transaction and tracks it; a stale nonce triggers reconciliation. */
  async function sendStored(record: TxRecord, trackNow = true): Promise<BroadcastOutcome> {
    const outcome = await broadcast(record.transactionHash);
    if (trackNow && trackable(outcome)) await track(record.transactionHash);
    if (outcome === 'nonce-used') await reconcileNonce(record.from, record.nonce);
    return outcome;
  }
  const trackable = (o: BroadcastOutcome) => o === 'sent' || o === 'known' || o === 'unreachable';

  function newRecord(base: { hash: string; from: string; nonce: number; fees: FeeFields; replaces: string | null; attempt: number }): TxRecord {
    const now = iso();
    return {
      transactionHash: base.hash,
      from: base.from,
      nonce: base.nonce,
      ...feeRecordFields(base.fees),
      data: {},
      replaces: base.replaces,
      replacedBy: null,
      attempt: base.attempt,
      createdAt: now,
      updatedAt: now,
    };
  }

  // A first attempt only needs the base fee to be no older than about a block; replacements always read fresh fees.
  let feeCache: { at: number; fees: Promise<NetworkFees> } | null = null;
  function recentFees(): Promise<NetworkFees> {
    const now = d.clock.now();
    if (!feeCache || now - feeCache.at > FEE_CACHE_MS) {
      const fees = d.chain.fees();
      feeCache = { at: now, fees };
      fees.catch(() => (feeCache = null));
    }
    return feeCache.fees;
  }

  /** POST /api/tx: a self-transfer of 0 at the next nonce, stored before it is sent. */
  async function generate(): Promise<TxRecord> {
    const signer = d.signer();
    if (!signer) throw new TxdeskError('CONFLICT', 'There is no signing key yet; generate or import one in Settings (POST /api/key/generate), then retry.');
    return serial(async () => {
      const policy = d.policy();
      const [chainPending, net] = await chainCall('reading the nonce and fees', () => Promise.all([d.chain.nonceCount(signer.address, 'pending'), recentFees()]));
      const plan = planNextNonce(chainPending, d.store.liveNonces(signer.address));
      if (plan.usedElsewhere > 0) d.log.warn(`${plan.usedElsewhere} nonce(s) of ${signer.address} were used outside txdesk; continuing at ${plan.nonce}`);
      const { fees, raisedToBaseFee } = initialFees(policy.txType, BigInt(policy.initialFeeWei), net);
      const signed = await signer.sign({ chainId: d.chainId, nonce: plan.nonce, to: signer.address, valueWei: 0n, gasLimit: SELF_TRANSFER_GAS, fees });
      const fee = formatGwei(headlineFee(fees));
      const again = d.store.get(signed.hash);
      if (again) {
        // Same nonce, fee and payload as a transaction the node refused earlier: the same bytes, so the same record.
        d.store.transaction(() => {
          d.store.unreject(again.transactionHash);
          d.store.addEvent(again.transactionHash, { kind: 'signed', summary: `Signed nonce ${plan.nonce} at ${fee} again after the node refused it.`, detail: { nonce: plan.nonce } }, iso());
        });
      }
      const record = again ?? newRecord({ hash: signed.hash, from: signer.address, nonce: plan.nonce, fees, replaces: null, attempt: 0 });
      if (!again) d.store.insert(record, signed.raw, [
        {
          kind: 'signed',
          summary: raisedToBaseFee ? `Signed nonce ${plan.nonce} at ${fee}, raised from ${formatGwei(BigInt(policy.initialFeeWei))} to the base fee.` : `Signed nonce ${plan.nonce} at ${fee}.`,
          detail: { nonce: plan.nonce, feeWei: headlineFee(fees).toString(), txType: fees.txType },
        },
      ]);
      emit([record.transactionHash]);
      // Tracking waits until the lock is released: the next nonce need not wait for the tracker's answer.
      return { record, outcome: await sendStored(record, false) };
    }).then(async ({ record, outcome }) => {
      if (trackable(outcome)) await track(record.transactionHash);
      if (outcome === 'unreachable') {
        throw new TxdeskError('UPSTREAM_UNAVAILABLE', `The Ethereum node could not be reached; transaction ${record.transactionHash} is stored and will be sent again, see GET /api/tx/${record.transactionHash}.`);
      }
      if (outcome === 'underpriced' || outcome === 'refused') {
        throw new TxdeskError('CHAIN_ERROR', `The node refused transaction ${record.transactionHash}; see its history at GET /api/tx/${record.transactionHash}.`);
      }
      return d.store.get(record.transactionHash)!;
    });
  }

  /** Signs a replacement for `prev` if the policy says so; returns what to commit (nothing is written here). */
  async function planReplacement(prev: TxRecord, others: TxRecord[]): Promise<{ decision: ReplacementDecision; signed?: { hash: string; raw: string } }> {
    const policy = d.policy();
    const blocked = replacementBlocker(prev, others, policy);
    if (blocked) return { decision: blocked };
    const signer = d.signer();
    if (!signer || signer.address !== prev.from) {
      return { decision: { action: 'skip', reason: 'no-key', summary: `Not replaced: the signing key of ${prev.from} is not loaded.`, detail: { from: prev.from } } };
    }
    // A failure here (node down) propagates: the message is not acked and comes again later.
    const net = await d.chain.fees();
    const decision = decideReplacement(prev, others, net, policy);
    if (decision.action === 'skip') return { decision };
    const signed = await signer.sign({ chainId: d.chainId, nonce: prev.nonce, to: prev.from, valueWei: 0n, gasLimit: SELF_TRANSFER_GAS, fees: decision.fees });
    return { decision, signed };
  }

  /** Commits a replacement plan: the new record (write-ahead), the link, and the choice in the old record's history. */
  function commitReplacement(prev: TxRecord, plan: Awaited<ReturnType<typeof planReplacement>>): TxRecord | null {
    const now = iso();
    const { decision, signed } = plan;
    if (decision.action === 'skip' || !signed) {
      d.store.addEvent(prev.transactionHash, { kind: 'replacement-skipped', summary: decision.summary, detail: decision.action === 'skip' ? { reason: decision.reason, ...decision.detail } : {} }, now);
      return null;
    }
    const rec = newRecord({ hash: signed.hash, from: prev.from, nonce: prev.nonce, fees: decision.fees, replaces: prev.transactionHash, attempt: decision.attempt });
    d.store.insert(rec, signed.raw, [
      { kind: 'signed', summary: `Signed as replacement ${decision.attempt} of ${short(prev.transactionHash)} at ${formatGwei(headlineFee(decision.fees))}.`, detail: { nonce: prev.nonce, feeWei: headlineFee(decision.fees).toString(), replaces: prev.transactionHash } },
    ]);
    d.store.linkReplacement(prev.transactionHash, rec.transactionHash, now);
    d.store.addEvent(prev.transactionHash, { kind: 'replacement-sent', summary: `${decision.summary.replace(/\.$/, '')}: ${short(rec.transactionHash)}.`, detail: { replacement: rec.transactionHash, feeWei: headlineFee(decision.fees).toString(), attempt: decision.attempt } }, now);
    return rec;
  }

  /** Broadcasts a committed replacement; a node that finds it underpriced gets the next bump right away. */
  async function sendReplacement(rec: TxRecord): Promise<void> {
    let current: TxRecord | null = rec;
    while (current) {
      const outcome = await sendStored(current);
      if (outcome !== 'underpriced') return;
      const prev: TxRecord = d.store.get(current.transactionHash)!;
      const others = d.store.byNonce(prev.from, prev.nonce).filter((r) => r.transactionHash !== prev.transactionHash);
      const plan = await planReplacement({ ...prev, status: 'pending' }, others);
      const changedHashes = [prev.transactionHash];
      current = d.store.transaction(() => commitReplacement(prev, plan));
      if (current) changedHashes.push(current.transactionHash);
      emit(changedHashes);
    }
  }

  /** Applies one tracker message exactly once, then acks it. */
  function handleMessage(m: FeedMessage): Promise<void> {
    return serial(async () => {
      if (d.store.isProcessed(m.id)) return void (await m.ack());
      const hash = String(m.result.transactionHash ?? '').toLowerCase();
      const rec = d.store.get(hash);
      if (!rec) {
        // Another program with the same clientId tracks it; not ours to judge.
        d.store.markProcessed(m.id, iso());
        return void (await m.ack());
      }
      const others = d.store.byNonce(rec.from, rec.nonce).filter((r) => r.transactionHash !== hash);
      const t = applyTrackerMessage(rec, others, { type: m.type, result: m.result });
      const plan = t.stuck ? await planReplacement({ ...rec, status: 'pending' }, others) : null;
      const now = iso();
      const replacement = d.store.transaction(() => {
        d.store.applyChanges(t.changes, now);
        const r = plan ? commitReplacement(rec, plan) : null;
        d.store.markProcessed(m.id, now);
        return r;
      });
      emit([...t.changes.map((c) => c.hash), ...(plan ? [hash] : []), ...(replacement ? [replacement.transactionHash] : [])]);
      // A lost ack only means a redelivery, which finds the message id and acks again; the broadcast must still go out.
      await m.ack().catch((e: Error) => d.log.warn(`ack of tracker message ${m.id} failed: ${e.message}`));
      if (replacement) await sendReplacement(replacement);
    });
  }

  /**
   * Looks again at every nonce a `cap` or `max-replacements` skip left stuck (waitingForRetry): replaces it when
   * fees and the policy now allow, else records the new skip only if it says something new (skipIsNews), so the
   * history does not grow every tick. A node failure propagates (nothing is written for that nonce); the caller
   * retries later.
   */
  function retrySkipped(): Promise<RetrySummary> {
    return serial(async () => {
      const sum: RetrySummary = { waiting: 0, replaced: 0, recorded: 0 };
      for (const { from, nonce } of d.store.skippedNonces()) {
        if (stopped) break;
        const records = d.store.byNonce(from, nonce);
        const histories = new Map(records.map((r) => [r.transactionHash, d.store.history(r.transactionHash)]));
        const wait = waitingForRetry(records, histories, d.policy());
        if (!wait) continue;
        // Without its key the nonce cannot be replaced now; it keeps waiting instead of getting a final `no-key`.
        if (d.signer()?.address !== from) continue;
        sum.waiting++;
        const plan = await planReplacement({ ...wait.record, status: 'pending' }, wait.others);
        if (plan.decision.action === 'skip' && !skipIsNews(wait.lastSkip, plan.decision)) continue;
        const rec = d.store.transaction(() => commitReplacement(wait.record, plan));
        emit([wait.record.transactionHash, ...(rec ? [rec.transactionHash] : [])]);
        if (!rec) {
          sum.recorded++;
          continue;
        }
        sum.replaced++;
        await sendReplacement(rec);
      }
      return sum;
    });
  }

  /** Start-up reconciliation of every open nonce of every sender in the store. */
  function recover(): Promise<RecoverySummary> {
    return serial(async () => {
      const sum: RecoverySummary = { nonces: 0, mined: 0, usedElsewhere: 0, rebroadcast: 0, tracked: 0 };
      const toTrack: string[] = [];
      for (const sender of d.store.senders()) {
        const open = d.store.openNonces(sender);
        if (!open.length) continue;
        const mined = await d.chain.nonceCount(sender, 'latest');
        for (const nonce of open) {
          const plan = await reconcileNonce(sender, nonce, mined, false);
          toTrack.push(...plan.track);
          sum.nonces++;
          if (plan.outcome === 'mined') sum.mined++;
          if (plan.outcome === 'used-elsewhere') sum.usedElsewhere++;
          if (plan.rebroadcast) sum.rebroadcast++;
          sum.tracked += plan.track.length;
        }
      }
      // All at once: while the service is unreachable the SDK queues them, and failures retry in the background.
      await Promise.all(toTrack.map((h) => track(h)));
      return sum;
    });
  }

  return {
    generate,
    handleMessage,
    recover,
    retrySkipped,
    /** Resolves when the work queued so far is done. */
    idle: () => serial(async () => {}),
    stop() {
      stopped = true;
      retryTimers.forEach((t) => clearTimeout(t));
      retryTimers.clear();
    },
  };
}

export type TxEngine = ReturnType<typeof createTxEngine>;
