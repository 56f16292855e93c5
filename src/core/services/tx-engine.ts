// The transaction engine: sends new transactions, applies tracker messages, sends replacements, cancels and speed-ups,
// and settles every nonce under faults: refused broadcasts are retried on new blocks, transactions the node forgot
// are sent again as signed, withdrawn receipts reopen their nonce. Write-ahead everywhere: a signed transaction is
// committed to SQLite before it is broadcast, and a tracker message is acked only after its effect is committed.
import type { Logger } from '../../lib/log.js';
import type { ReplacementPolicy } from '../../shared/desktop-api.js';
import { TxdeskError } from '../../shared/errors.js';
import type { NonceProblemReason, TxKind, TxRecord } from '../../shared/tx-record.js';
import { formatGwei, headlineFee, initialFees, percentIncrease, replacementFees, type FeeFields, type NetworkFees } from '../domain/fees.js';
import { planNextNonce, recoverNonce } from '../domain/nonce.js';
import { decideRetry, REASON_OF_REFUSAL, refusalSummary, type BroadcastFailure, type Refusal } from '../domain/refusal.js';
import { decideReplacement, feesOf, replacementBlocker, short, type ReplacementDecision, type SkipReason } from '../domain/replacement.js';
import { newestAttempt, skipIsNews, waitingForRetry } from '../domain/replacement-retry.js';
import { applyTrackerMessage, withdrawReceipt, type RecordChange } from '../domain/transitions.js';
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

export type BroadcastOutcome = 'sent' | BroadcastFailure;

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

export interface SweepSummary extends RetrySummary {
  /** The head block the sweep looked at. */
  block: number;
  /** Refused transactions sent again (same bytes), signed again, or filled by a cancel. */
  resent: number;
  /** Transactions the node no longer knew, sent again exactly as signed. */
  rebroadcast: number;
  /** Receipts found withdrawn (reorganised away). */
  reorged: number;
  /** Nonces the engine found mined or confirmed itself (the tracker missed or has not said yet). */
  settled: number;
}

const SELF_TRANSFER_GAS = 21_000n;
const FEE_CACHE_MS = 1_000;
/** Every this many blocks each open nonce is checked against the node (dropped, mined, reorganised). */
export const NONCE_CHECK_EVERY_BLOCKS = 3;
const REFUSAL_REASONS: ReadonlySet<NonceProblemReason> = new Set(['funds', 'underpriced', 'refused', 'unreachable']);
const PROBLEM_OF_SKIP: Partial<Record<SkipReason, NonceProblemReason>> = { cap: 'fee-cap', 'max-replacements': 'max-replacements', 'no-key': 'no-key' };
const MINED = new Set(['receipt', 'confirmation']);
const isMined = (r: TxRecord) => r.status !== undefined && MINED.has(r.status);

/** What a record is, in a sentence: "transaction", "replacement", "cancel", "speed-up". */
function noun(kind: TxKind): string {
  return kind === 'generate' ? 'transaction' : kind === 'replace' ? 'replacement' : kind;
}

export function createTxEngine(d: TxEngineDeps) {
  const serial = createSerialQueue();
  const iso = () => new Date(d.clock.now()).toISOString();
  const emit = (hashes: Iterable<string>) => {
    const recs = [...new Set(hashes)].map((h) => d.store.get(h)).filter((r): r is TxRecord => r !== null);
    if (recs.length) d.changed(recs);
  };
  /** Refusals in a row per hash (memory only: after a restart the count starts again, which only delays a cancel). */
  const refusals = new Map<string, number>();
  let stopped = false;
  const retryTimers = new Set<NodeJS.Timeout>();
  let lastSweptBlock = -1;
  let lastNonceCheck = -1;

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

  /**
   * Puts `reason` and `summary` on the newest record of the nonce (keeping `since` while the reason stands), or
   * clears it with `reason` null. Returns the hash it changed, if any. Call inside a store transaction.
   */
  function setProblem(from: string, nonce: number, reason: NonceProblemReason | null, summary = ''): string | null {
    const newest = newestAttempt(d.store.byNonce(from, nonce));
    if (!newest) return null;
    const was = newest.problem ?? null;
    if (reason === null) {
      if (!was) return null;
      d.store.clearProblems(from, nonce, iso());
      return newest.transactionHash;
    }
    if (was?.reason === reason && was.summary === summary) return null;
    d.store.setProblem(newest.transactionHash, { reason, summary, since: was?.reason === reason ? was.since : iso() }, iso());
    return newest.transactionHash;
  }

  /** Sends a stored signed transaction and records the outcome in its history and, if refused, on its nonce. */
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
    const now = iso();
    const changed = [hash];
    if (outcome === 'sent' || outcome === 'known') {
      const retried = refusals.has(hash);
      refusals.delete(hash);
      const summary =
        outcome === 'known' ? 'The node already had it.' : kind === 'rebroadcast' ? `Sent to the node again, exactly as signed: ${why ?? 'after a restart'}.` : retried ? 'Sent to the node; it took it this time.' : 'Sent to the node.';
      d.store.transaction(() => {
        d.store.markBroadcast(hash, 'sent');
        d.store.addEvent(hash, { kind, summary, detail: why ? { why } : {} }, now);
        const newest = newestAttempt(d.store.byNonce(rec.from, rec.nonce));
        const reason = newest?.problem?.reason;
        // The refusal is over once the newest attempt is in; an older one resent only ends "unreachable".
        if (reason && REFUSAL_REASONS.has(reason) && (newest!.transactionHash === hash || reason === 'unreachable')) {
          const h = setProblem(rec.from, rec.nonce, null);
          if (h) changed.push(h);
        }
      });
      if (kind === 'rebroadcast') d.log.info(`sent ${short(hash)} (nonce ${rec.nonce}, ${fee}) again as signed: ${why ?? 'after a restart'}`);
      else if (outcome === 'sent') d.log.info(`sent ${short(hash)} nonce ${rec.nonce} at ${fee} (${noun(rec.kind )})`);
    } else if (outcome === 'nonce-used') {
      d.store.addEvent(hash, { kind: 'broadcast-failed', summary: 'The node says its nonce is already used.', detail: { failure: outcome, message } }, now);
    } else {
      const count = (refusals.get(hash) ?? 0) + 1;
      refusals.set(hash, count);
      const cost = SELF_TRANSFER_GAS * BigInt(rec.gasPrice);
      const balance = outcome === 'funds' ? await d.chain.balance(rec.from).catch(() => null) : null;
      const summary = refusalSummary({ failure: outcome, message, nonce: rec.nonce, from: rec.from, what: noun(rec.kind ), costWei: cost, feeWei: BigInt(rec.gasPrice), balanceWei: balance });
      const last = d.store.history(hash).at(-1);
      const news = !(last?.kind === 'broadcast-failed' && last.summary === summary);
      d.store.transaction(() => {
        if (outcome !== 'unreachable') d.store.markBroadcast(hash, 'rejected');
        if (news) d.store.addEvent(hash, { kind: 'broadcast-failed', summary, detail: { failure: outcome, message, refusals: count, ...(balance !== null ? { balanceWei: balance.toString(), costWei: cost.toString() } : {}) } }, now);
        const newest = newestAttempt(d.store.byNonce(rec.from, rec.nonce));
        if (newest?.transactionHash === hash || outcome === 'unreachable') {
          const h = setProblem(rec.from, rec.nonce, REASON_OF_REFUSAL[outcome], summary);
          if (h) changed.push(h);
        }
      });
      if (news) d.log.warn(`the node refused ${short(hash)} (nonce ${rec.nonce}, ${fee}): ${summary}`);
    }
    emit(changed);
    return outcome;
  }

  /** Registers a hash with the tracker without holding anyone up; a failure is retried in the background. */
  function track(hash: string, attempt = 0): void {
    if (stopped) return;
    const p = d.policy();
    d.feed.track(hash, { timeout: p.timeoutMs, confirmation: p.confirmations }).catch((e: Error) => {
      if (stopped) return;
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

  /** Applies record changes, clears the problem of every nonce they settle, and logs settled nonces. */
  function applyChanges(changes: readonly RecordChange[]): void {
    if (!changes.length) return;
    const now = iso();
    const after = d.store.applyChanges(changes, now);
    for (const r of after) {
      if (r.status === 'receipt' || r.status === 'confirmation') d.store.clearProblems(r.from, r.nonce, now);
    }
    for (const c of changes) {
      if (c.status !== 'confirmation') continue;
      const r = after.find((x) => x.transactionHash === c.hash)!;
      d.log.info(`nonce ${r.nonce} settled: ${short(r.transactionHash)} (${noun(r.kind )}, attempt ${r.attempt}, ${formatGwei(BigInt(r.gasPrice))}) confirmed in block ${String(r.data.blockNumber)}`);
    }
  }

  /** Reconciles one nonce with the chain: adopt a receipt, concede a foreign nonce, undo a withdrawn receipt, or resend. */
  async function reconcileNonce(sender: string, nonce: number, minedNonceCount?: number, headBlock?: number): Promise<ReturnType<typeof recoverNonce>> {
    const records = d.store.byNonce(sender, nonce);
    const rejected = d.store.rejected(sender);
    const receipts = new Map<string, Record<string, unknown> | null>();
    for (const r of records) receipts.set(r.transactionHash, await d.chain.receipt(r.transactionHash));
    const mined = minedNonceCount ?? (await d.chain.nonceCount(sender, 'latest'));
    const plan = recoverNonce({ nonce, records, receipts, minedNonceCount: mined, rejected, ...(headBlock !== undefined ? { headBlock } : {}) });
    if (plan.changes.length) {
      d.store.transaction(() => applyChanges(plan.changes));
      emit(plan.changes.map((c) => c.hash));
    }
    if (plan.outcome === 'used-elsewhere' && plan.changes.length) d.log.warn(`nonce ${nonce} of ${sender} was used outside txdesk; its ${records.length} record(s) are marked replaced`);
    if (plan.outcome === 'reorged') {
      d.log.warn(`nonce ${nonce} of ${sender}: its receipt was reorganised away; replacing again`);
      // Replacement resumes at once, as for a pending nonce; when the policy holds it back, the best attempt is resent.
      if (await replaceStuck(sender, nonce, 'its receipt was reorganised away')) return { ...plan, rebroadcast: null };
    }
    if (plan.rebroadcast) await broadcast(plan.rebroadcast, 'rebroadcast', plan.outcome === 'reorged' ? 'its block was reorganised away' : 'after a restart');
    plan.track.forEach((h) => track(h));
    return plan;
  }

  /** Broadcasts a freshly stored transaction and tracks it; a stale nonce triggers reconciliation. */
  async function sendStored(record: TxRecord): Promise<BroadcastOutcome> {
    const outcome = await broadcast(record.transactionHash);
    if (outcome === 'sent' || outcome === 'known' || outcome === 'unreachable') track(record.transactionHash);
    if (outcome === 'nonce-used') await reconcileNonce(record.from, record.nonce);
    return outcome;
  }

  function newRecord(base: { hash: string; from: string; nonce: number; fees: FeeFields; replaces: string | null; attempt: number; kind: TxKind }): TxRecord {
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
      kind: base.kind,
      problem: null,
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

  /**
   * POST /api/tx: a self-transfer of 0 at the next nonce, stored before it is sent. A fee cap below the network's
   * price refuses it before anything is signed. A refusal by the node does not fail the call: the record carries
   * the problem and is sent again when it can succeed (its nonce is never reused).
   */
  async function generate(): Promise<TxRecord> {
    const signer = d.signer();
    if (!signer) throw new TxdeskError('CONFLICT', 'There is no signing key yet; generate or import one in Settings (POST /api/key/generate), then retry.');
    return serial(async () => {
      const policy = d.policy();
      const [chainPending, net] = await chainCall('reading the nonce and fees', () => Promise.all([d.chain.nonceCount(signer.address, 'pending'), recentFees()]));
      const plan = planNextNonce(chainPending, d.store.liveNonces(signer.address));
      if (plan.usedElsewhere > 0) d.log.warn(`${plan.usedElsewhere} nonce(s) of ${signer.address} were used outside txdesk; continuing at ${plan.nonce}`);
      const { fees, raisedToBaseFee } = initialFees(policy.txType, BigInt(policy.initialFeeWei), net);
      const cap = BigInt(policy.maxFeeWei);
      if (headlineFee(fees) > cap) {
        throw new TxdeskError(
          'CONFLICT',
          raisedToBaseFee
            ? `The network's price is ${formatGwei(headlineFee(fees))}, above your fee cap of ${formatGwei(cap)}; raise the cap in Settings or wait for fees to fall, then retry.`
            : `The initial fee of ${formatGwei(headlineFee(fees))} is above your fee cap of ${formatGwei(cap)}; lower the initial fee or raise the cap in Settings, then retry.`,
        );
      }
      const signed = await signer.sign({ chainId: d.chainId, nonce: plan.nonce, to: signer.address, valueWei: 0n, gasLimit: SELF_TRANSFER_GAS, fees });
      const fee = formatGwei(headlineFee(fees));
      const record = newRecord({ hash: signed.hash, from: signer.address, nonce: plan.nonce, fees, replaces: null, attempt: 0, kind: 'generate' });
      d.store.insert(record, signed.raw, [
        {
          kind: 'signed',
          summary: raisedToBaseFee ? `Signed nonce ${plan.nonce} at ${fee}, raised from ${formatGwei(BigInt(policy.initialFeeWei))} to the base fee.` : `Signed nonce ${plan.nonce} at ${fee}.`,
          detail: { nonce: plan.nonce, feeWei: headlineFee(fees).toString(), txType: fees.txType },
        },
      ]);
      emit([record.transactionHash]);
      await sendStored(record);
      return d.store.get(record.transactionHash)!;
    });
  }

  /** Signs a replacement for `prev` if the policy says so; returns what to commit (nothing is written here). */
  async function planReplacement(prev: TxRecord, others: TxRecord[], opts: { beyondLimit?: boolean; net?: () => Promise<NetworkFees> } = {}): Promise<{ decision: ReplacementDecision; signed?: { hash: string; raw: string } }> {
    const policy = opts.beyondLimit ? { ...d.policy(), maxReplacements: Number.MAX_SAFE_INTEGER } : d.policy();
    const blocked = replacementBlocker(prev, others, policy);
    if (blocked) return { decision: blocked };
    const signer = d.signer();
    if (!signer || signer.address !== prev.from) {
      return { decision: { action: 'skip', reason: 'no-key', summary: `Not replaced: the signing key of ${prev.from} is not loaded; import it in Settings.`, detail: { from: prev.from } } };
    }
    // A failure here (node down) propagates: the message is not acked and comes again later.
    const net = await (opts.net ?? (() => d.chain.fees()))();
    let decision = decideReplacement(prev, others, net, policy);
    if (decision.action === 'skip') return { decision };
    if (opts.beyondLimit) decision = { ...decision, summary: decision.summary.replace(/ of \d+\.$/, ' (outside the replacement limit).') };
    const signed = await signer.sign({ chainId: d.chainId, nonce: prev.nonce, to: prev.from, valueWei: 0n, gasLimit: SELF_TRANSFER_GAS, fees: decision.fees });
    return { decision, signed };
  }

  /**
   * Commits a replacement plan: the new record (write-ahead), the link, and the choice in the old record's history;
   * a skip that a change can undo (cap, limit, key) becomes the nonce's problem. Call inside a store transaction.
   * A replacement of a cancel is still a cancel: `kind` is the nonce's intent, not who signed.
   */
  function commitReplacement(prev: TxRecord, plan: Awaited<ReturnType<typeof planReplacement>>, why: string, kind: TxKind = prev.kind === 'cancel' ? 'cancel' : 'replace'): TxRecord | null {
    const now = iso();
    const { decision, signed } = plan;
    if (decision.action === 'skip' || !signed) {
      if (decision.action === 'skip') {
        d.store.addEvent(prev.transactionHash, { kind: 'replacement-skipped', summary: decision.summary, detail: { reason: decision.reason, ...decision.detail } }, now);
        const problem = PROBLEM_OF_SKIP[decision.reason];
        if (problem) setProblem(prev.from, prev.nonce, problem, problemSentence(decision));
      }
      return null;
    }
    const rec = newRecord({ hash: signed.hash, from: prev.from, nonce: prev.nonce, fees: decision.fees, replaces: prev.transactionHash, attempt: decision.attempt, kind });
    d.store.clearProblems(prev.from, prev.nonce, now);
    d.store.insert(rec, signed.raw, [
      { kind: 'signed', summary: `Signed as ${noun(kind)} ${decision.attempt} of ${short(prev.transactionHash)} at ${formatGwei(headlineFee(decision.fees))}.`, detail: { nonce: prev.nonce, feeWei: headlineFee(decision.fees).toString(), replaces: prev.transactionHash, kind } },
    ]);
    d.store.linkReplacement(prev.transactionHash, rec.transactionHash, now);
    d.store.addEvent(prev.transactionHash, { kind: 'replacement-sent', summary: `${decision.summary.replace(/\.$/, '')}: ${short(rec.transactionHash)} (${why}).`, detail: { replacement: rec.transactionHash, feeWei: headlineFee(decision.fees).toString(), attempt: decision.attempt, kind, why } }, now);
    d.log.info(`replacing ${short(prev.transactionHash)} (nonce ${prev.nonce}) with ${short(rec.transactionHash)}: ${formatGwei(BigInt(prev.gasPrice))} -> ${formatGwei(headlineFee(decision.fees))}, ${why}`);
    return rec;
  }

  /** The problem sentence of a skip: what keeps the nonce and what the person can do. */
  function problemSentence(s: Extract<ReplacementDecision, { action: 'skip' }>): string {
    if (s.reason === 'cap') return `A fee the network accepts is ${formatGwei(BigInt(String(s.detail.neededWei)))}, above your fee cap of ${formatGwei(BigInt(String(s.detail.capWei)))}; raise the cap in Settings or wait for fees to fall.`;
    if (s.reason === 'max-replacements') return `${s.summary.replace(/^Not replaced: /, '').replace(/\.$/, '')}; raise the limit in Settings to replace it again.`;
    return s.summary.replace(/^Not replaced: /, '');
  }

  /** Broadcasts a committed replacement; a node that finds it underpriced gets the next bump right away. */
  async function sendWithBumps(rec: TxRecord): Promise<void> {
    let current: TxRecord | null = rec;
    while (current && !stopped) {
      const outcome = await sendStored(current);
      if (outcome !== 'underpriced') return;
      const prev: TxRecord = d.store.get(current.transactionHash)!;
      const others = d.store.byNonce(prev.from, prev.nonce).filter((r) => r.transactionHash !== prev.transactionHash);
      const plan = await planReplacement({ ...prev, status: 'pending' }, others);
      const changedHashes = [prev.transactionHash];
      current = d.store.transaction(() => commitReplacement(prev, plan, 'the node wanted a higher fee to replace the one it holds'));
      if (current) changedHashes.push(current.transactionHash);
      emit(changedHashes);
    }
  }

  /** Replaces the newest attempt of a nonce that is open again or stuck; returns whether a replacement went out. */
  async function replaceStuck(from: string, nonce: number, why: string): Promise<boolean> {
    const records = d.store.byNonce(from, nonce);
    const newest = newestAttempt(records);
    if (!newest) return false;
    const others = records.filter((r) => r !== newest);
    const plan = await planReplacement({ ...newest, status: 'pending' }, others);
    const rec = d.store.transaction(() => commitReplacement(newest, plan, why));
    emit([newest.transactionHash, ...(rec ? [rec.transactionHash] : [])]);
    if (rec) await sendWithBumps(rec);
    return rec !== null;
  }

  /** Applies one tracker message exactly once; acks it after the commit (and any broadcast), outside the queue. */
  async function handleMessage(m: FeedMessage): Promise<void> {
    await serial(async () => {
      if (d.store.isProcessed(m.id)) return;
      const hash = String(m.result.transactionHash ?? '').toLowerCase();
      const rec = d.store.get(hash);
      if (!rec) {
        // Another program with the same clientId tracks it; not ours to judge.
        d.store.markProcessed(m.id, iso());
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
      const plan = t.stuck ? await planReplacement({ ...target, status: 'pending' }, [rec, ...others].map(after).filter((r) => r.transactionHash !== target.transactionHash)) : null;
      const why = reorged ? 'its receipt was reorganised away' : `not mined within the ${Math.round(d.policy().timeoutMs / 1000)} s timeout`;
      const replacement = d.store.transaction(() => {
        applyChanges(t.changes);
        const r = plan ? commitReplacement(target, plan, why) : null;
        d.store.markProcessed(m.id, iso());
        return r;
      });
      if (reorged) d.log.warn(`nonce ${rec.nonce}: the receipt of ${short(hash)} was withdrawn by a reorganisation; back to pending`);
      emit([...t.changes.map((c) => c.hash), ...(plan ? [target.transactionHash] : []), ...(replacement ? [replacement.transactionHash] : [])]);
      if (replacement) await sendWithBumps(replacement);
    });
    // A lost ack only means a redelivery, which finds the message id and acks again. Outside the queue: a slow or
    // unreachable service never holds up the next send.
    await m.ack().catch((e: Error) => d.log.warn(`ack of tracker message ${m.id} failed: ${e.message}`));
  }

  /**
   * Looks again at every nonce a `cap`, `max-replacements` or `no-key` skip left stuck (waitingForRetry): replaces it when
   * fees and the policy now allow, else records the new skip only if it says something new (skipIsNews), so the
   * history does not grow every tick. A node failure propagates (nothing is written for that nonce); the caller
   * retries later.
   */
  function retrySkipped(): Promise<RetrySummary> {
    return serial(async () => {
      const sum: RetrySummary = { waiting: 0, replaced: 0, recorded: 0 };
      // One fee reading per round: every waiting nonce is judged against the same block.
      let fees: Promise<NetworkFees> | null = null;
      const net = () => (fees ??= d.chain.fees());
      for (const { from, nonce } of d.store.skippedNonces()) {
        if (stopped) break;
        const records = d.store.byNonce(from, nonce);
        const histories = new Map(records.map((r) => [r.transactionHash, d.store.history(r.transactionHash)]));
        const wait = waitingForRetry(records, histories, d.policy());
        if (!wait) continue;
        // Without its key the nonce cannot be replaced now; it keeps waiting instead of getting a final `no-key`.
        if (d.signer()?.address !== from) continue;
        sum.waiting++;
        const plan = await planReplacement({ ...wait.record, status: 'pending' }, wait.others, { net });
        if (plan.decision.action === 'skip' && !skipIsNews(wait.lastSkip, plan.decision)) continue;
        const why = { cap: 'fees came back under the cap', 'max-replacements': 'the replacement limit was raised', 'no-key': 'the signing key is loaded' }[wait.reason];
        const rec = d.store.transaction(() => commitReplacement(wait.record, plan, why));
        emit([wait.record.transactionHash, ...(rec ? [rec.transactionHash] : [])]);
        if (!rec) {
          sum.recorded++;
          continue;
        }
        sum.replaced++;
        await sendWithBumps(rec);
      }
      return sum;
    });
  }

  /** The refusal the newest attempt last got, from its history. */
  function lastRefusal(hash: string): { failure: Refusal; count: number } | null {
    const ev = [...d.store.history(hash)].reverse().find((e) => e.kind === 'broadcast-failed' || e.kind === 'broadcast' || e.kind === 'rebroadcast');
    if (!ev || ev.kind !== 'broadcast-failed') return null;
    const failure = ev.detail.failure as BroadcastFailure;
    if (failure === 'known' || failure === 'nonce-used') return null;
    return { failure, count: refusals.get(hash) ?? Number(ev.detail.refusals ?? 1) };
  }

  /** Tries again every nonce whose newest transaction a node refused: resend, re-sign at the network's price, or cancel. */
  async function retryRefused(): Promise<number> {
    let resent = 0;
    // One balance and one fee reading per round (per block), however many nonces wait on them.
    const balances = new Map<string, Promise<bigint>>();
    const balanceOf = (a: string) => balances.get(a) ?? balances.set(a, d.chain.balance(a)).get(a)!;
    let fees: Promise<NetworkFees> | null = null;
    for (const p of d.store.withProblems()) {
      if (stopped) break;
      const reason = p.problem?.reason;
      // Also a cap or a missing key that stopped the cancel of a refused transaction (its refusal still stands).
      if (!reason || !(REFUSAL_REASONS.has(reason) || reason === 'fee-cap' || reason === 'no-key')) continue;
      resent += await serial(async () => {
        const records = d.store.byNonce(p.from, p.nonce);
        const newest = newestAttempt(records);
        if (!newest || records.some(isMined) || newest.transactionHash !== p.transactionHash) {
          d.store.transaction(() => d.store.setProblem(p.transactionHash, null, iso()));
          emit([p.transactionHash]);
          return 0;
        }
        const last = lastRefusal(newest.transactionHash);
        if (!last && !REFUSAL_REASONS.has(reason)) return 0; // a skipped replacement: retrySkipped's job
        const refusal = last ?? { failure: 'unreachable' as const, count: 1 };
        const balance = refusal.failure === 'funds' ? await balanceOf(newest.from) : null;
        const net = refusal.failure === 'fee-too-low' ? await (fees ??= d.chain.fees()) : null;
        const cost = SELF_TRANSFER_GAS * BigInt(newest.gasPrice);
        const action = decideRetry({ failure: refusal.failure, refusals: refusal.count, costWei: cost, balanceWei: balance, feeWei: BigInt(newest.gasPrice), baseFeeWei: net?.baseFeeWei ?? null, isCancel: newest.kind === 'cancel' });
        if (action.action === 'wait') {
          // Keep the sentence current (a partial top-up changes the balance) without adding history.
          const summary = refusalSummary({ failure: 'funds', message: '', nonce: newest.nonce, from: newest.from, what: noun(newest.kind), costWei: cost, feeWei: BigInt(newest.gasPrice), balanceWei: balance });
          const h = d.store.transaction(() => setProblem(newest.from, newest.nonce, 'funds', summary));
          if (h) emit([h]);
          return 0;
        }
        if (action.action === 'resend') {
          await sendWithBumps(newest);
          return 1;
        }
        const others = records.filter((r) => r !== newest);
        if (action.action === 'resign') {
          // Not held back by the replacement limit: the refused transaction never reached a pool.
          const plan = await planReplacement({ ...newest, status: 'pending' }, others, { beyondLimit: true });
          const rec = d.store.transaction(() => commitReplacement(newest, plan, 'the node wanted at least the base fee'));
          emit([newest.transactionHash, ...(rec ? [rec.transactionHash] : [])]);
          if (rec) await sendWithBumps(rec);
          return 1;
        }
        try {
          await sendWithBumps(await signUserReplacement(newest, 'cancel', `the node refused it ${refusal.count} times`));
        } catch (e) {
          if (!(e instanceof TxdeskError) || e.code !== 'CONFLICT') throw e;
          // Tried again on the next block, like the refusal itself.
          const h = d.store.transaction(() => setProblem(newest.from, newest.nonce, /fee cap/.test(e.message) ? 'fee-cap' : 'no-key', e.message));
          if (h) emit([h]);
          return 0;
        }
        return 1;
      });
    }
    return resent;
  }

  /**
   * Signs and commits a same-nonce replacement at a bumped fee for a person's cancel or speed-up (or the engine's
   * cancel of a nonce its own transaction cannot fill). Throws CONFLICT when the fee cap forbids the bump. Does not
   * count against the automatic replacement limit.
   */
  async function signUserReplacement(newest: TxRecord, kind: 'cancel' | 'speed-up', why: string): Promise<TxRecord> {
    const verb = kind === 'cancel' ? 'cancel' : 'speed up';
    const signer = d.signer();
    if (!signer || signer.address !== newest.from) throw new TxdeskError('CONFLICT', `The signing key of ${newest.from} is not loaded; import it in Settings, then ${verb} again.`);
    const policy = d.policy();
    const net = await chainCall('reading the fees', () => d.chain.fees());
    // A cancel filling a nonce is signed with today's policy: its own transaction may have been refused for its type.
    const base: FeeFields = kind === 'cancel' && newest.txType !== policy.txType ? initialFees(policy.txType, BigInt(newest.gasPrice), net).fees : feesOf(newest);
    const fees = replacementFees(base, net, policy.bumpPercent);
    const fee = headlineFee(fees);
    const cap = BigInt(policy.maxFeeWei);
    if (fee > cap) {
      throw new TxdeskError('CONFLICT', `To ${verb} nonce ${newest.nonce} needs a fee of ${formatGwei(fee)}, above your fee cap of ${formatGwei(cap)}; raise the cap in Settings, then retry.`);
    }
    const signed = await signer.sign({ chainId: d.chainId, nonce: newest.nonce, to: newest.from, valueWei: 0n, gasLimit: SELF_TRANSFER_GAS, fees });
    const label = kind === 'cancel' ? 'Cancel' : 'Speed-up';
    const decision: ReplacementDecision = { action: 'replace', fees, attempt: newest.attempt + 1, summary: `${label} at ${formatGwei(fee)} (${percentIncrease(BigInt(newest.gasPrice), fee)})` };
    const rec = d.store.transaction(() => commitReplacement(newest, { decision, signed }, why, kind))!;
    emit([newest.transactionHash, rec.transactionHash]);
    return rec;
  }

  /** POST /api/tx/:hash/cancel and /speed-up: a same-nonce replacement at a bumped fee, now. */
  function userReplace(hash: string, kind: 'cancel' | 'speed-up'): Promise<TxRecord> {
    const verb = kind === 'cancel' ? 'cancel' : 'speed up';
    return serial(async () => {
      const rec = d.store.get(hash);
      if (!rec) throw new TxdeskError('NOT_FOUND', `No transaction ${hash} is stored in this app; list them with GET /api/tx.`);
      const records = d.store.byNonce(rec.from, rec.nonce);
      const mined = records.find(isMined);
      if (mined) throw new TxdeskError('CONFLICT', `Nonce ${rec.nonce} is already mined by ${short(mined.transactionHash)}; there is nothing left to ${verb}.`);
      if (records.every((r) => r.status === 'replaced')) throw new TxdeskError('CONFLICT', `Nonce ${rec.nonce} was used by a transaction sent outside txdesk; there is nothing left to ${verb}.`);
      const newest = newestAttempt(records)!;
      const next = await signUserReplacement(newest, kind, kind === 'cancel' ? 'cancel requested' : 'speed-up requested');
      await sendWithBumps(next);
      return d.store.get(next.transactionHash)!;
    });
  }

  /**
   * Checks every open nonce against the node: adopts receipts the tracker has not delivered, confirms at depth,
   * undoes receipts reorganised away, and sends again (as signed) the best attempt the node no longer knows.
   */
  async function checkNonces(head: number): Promise<Pick<SweepSummary, 'rebroadcast' | 'reorged' | 'settled'>> {
    const sum = { rebroadcast: 0, reorged: 0, settled: 0 };
    const confirmations = d.policy().confirmations;
    for (const sender of d.store.senders()) {
      const latest = await d.chain.nonceCount(sender, 'latest');
      sum.reorged += await reopenDeepReorgs(sender, latest, head);
      const open = d.store.openNonces(sender);
      if (!open.length) continue;
      for (const nonce of open) {
        if (stopped) return sum;
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
              const t = applyTrackerMessage(withReceipt, records.filter((r) => r !== withReceipt), { type: 'confirmation', result: receipt });
              d.store.transaction(() => applyChanges(t.changes));
              emit(t.changes.map((c) => c.hash));
              sum.settled++;
            };
          } else act = () => reconcile(sender, nonce, latest, head, sum);
        } else if (nonce >= latest) {
          // Open at the node: the newest attempt it accepted must still be there (pool or chain).
          const best = newestAttempt(records.filter((r) => r.status !== 'replaced' && d.store.broadcastOf(r.transactionHash) === 'sent'));
          if (!best || (await d.chain.hasTransaction(best.transactionHash))) continue;
          act = async () => {
            const outcome = await broadcast(best.transactionHash, 'rebroadcast', 'the node no longer knew it (dropped from its pool, restarted, or another node)');
            if (outcome === 'sent' || outcome === 'known') track(best.transactionHash);
            sum.rebroadcast++;
          };
        } else {
          // Mined, but not by a receipt we hold.
          act = () => reconcile(sender, nonce, latest, head, sum);
        }
        const seen = fingerprint(records);
        await serial(async () => {
          if (fingerprint(d.store.byNonce(sender, nonce)) === seen) await act();
        });
      }
    }
    return sum;
  }

  /** Reconciles a nonce from the nonce check, counting what it found. */
  async function reconcile(sender: string, nonce: number, latest: number, head: number, sum: Pick<SweepSummary, 'reorged' | 'settled'>): Promise<void> {
    const plan = await reconcileNonce(sender, nonce, latest, head);
    if (plan.outcome === 'reorged') sum.reorged++;
    if (plan.outcome === 'mined' || plan.outcome === 'used-elsewhere') sum.settled++;
  }

  /** What the nonce check judged a nonce by: its records' hashes, statuses and links. */
  function fingerprint(records: readonly TxRecord[]): string {
    return records.map((r) => `${r.transactionHash}:${r.status ?? '-'}:${r.replacedBy ?? '-'}:${d.store.broadcastOf(r.transactionHash)}`).join('|');
  }

  /**
   * A confirmed nonce at or above the chain's mined count was undone by a reorganisation deeper than the
   * confirmations: once the node is past the confirmed block and no longer has its receipt, the nonce is reopened
   * and its winner sent again exactly as signed (it was valid, and later nonces wait for it).
   */
  async function reopenDeepReorgs(sender: string, latest: number, head: number): Promise<number> {
    let reopened = 0;
    for (const nonce of d.store.liveNonces(sender)) {
      if (nonce < latest || stopped) continue;
      reopened += await serial(async () => {
        const records = d.store.byNonce(sender, nonce);
        const winner = records.find((r) => r.status === 'confirmation');
        if (!winner || head < Number(winner.data.blockNumber)) return 0;
        const receipt = await d.chain.receipt(winner.transactionHash);
        if (receipt) return 0;
        const changes = withdrawReceipt(winner, records.filter((r) => r !== winner), `deeper than the ${d.policy().confirmations} confirmations`, true);
        d.store.transaction(() => applyChanges(changes));
        emit(changes.map((c) => c.hash));
        d.log.warn(`nonce ${nonce} of ${sender}: its confirmed block ${String(winner.data.blockNumber)} was reorganised away; sending ${short(winner.transactionHash)} again`);
        const outcome = await broadcast(winner.transactionHash, 'rebroadcast', 'its confirmed block was reorganised away');
        if (outcome === 'sent' || outcome === 'known') track(winner.transactionHash);
        return 1;
      });
    }
    return reopened;
  }

  /**
   * One round of the nonce watchdog, on each new block (or at once with `force`, after a settings change): retries
   * skipped replacements and refused broadcasts, and every NONCE_CHECK_EVERY_BLOCKS blocks checks each open nonce
   * against the node. A node failure propagates; the next round tries again.
   */
  async function sweep(opts: { force?: boolean } = {}): Promise<SweepSummary | null> {
    const head = (await d.chain.latestBlock()).number;
    if (!opts.force && head === lastSweptBlock) return null;
    lastSweptBlock = head;
    const skipped = await retrySkipped();
    const resent = await retryRefused();
    let checked = { rebroadcast: 0, reorged: 0, settled: 0 };
    if (opts.force || head < lastNonceCheck || head - lastNonceCheck >= NONCE_CHECK_EVERY_BLOCKS) {
      lastNonceCheck = head;
      checked = await checkNonces(head);
    }
    return { block: head, ...skipped, resent, ...checked };
  }

  /** Start-up reconciliation of every open nonce of every sender in the store. */
  function recover(): Promise<RecoverySummary> {
    return serial(async () => {
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

  return {
    generate,
    cancel: (hash: string) => userReplace(hash, 'cancel'),
    speedUp: (hash: string) => userReplace(hash, 'speed-up'),
    handleMessage,
    recover,
    retrySkipped,
    sweep,
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
