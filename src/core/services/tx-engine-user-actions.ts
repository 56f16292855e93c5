// What a person asks of the engine: a new transaction at the next nonce, and a cancel or speed-up of one already
// sent (a same-nonce replacement at a bumped fee, outside the automatic replacement limit).
import { fieldIssue, FieldsError, TxdeskError } from '../../shared/errors.js';
import type { PricedBy, TxRecord } from '../../shared/tx-record.js';
import { describeNews, refuse } from '../domain/describe.js';
import { headlineFee, type GivenFees, type NetworkFees } from '../domain/fees.js';
import { HISTORY_BLOCKS, marketQuote, type FeeHistory, type MarketQuote } from '../domain/market-fees.js';
import { planNextNonce } from '../domain/nonce.js';
import { isAddress } from 'ethers';
import { isRevertAnswer, RpcError } from '../../lib/json-rpc.js';
import type { TxPayload, TxRequest } from '../../shared/tx-request.js';
import {
  decideUserReplacement,
  keyRefusal,
  marketPricedBy,
  payloadOf,
  SELF_TRANSFER_GAS,
  selfTransfer,
  settledNonceRefusal,
} from '../domain/replacement.js';
import { decodeRevert, describeRevert } from '../domain/revert.js';
import { firstAttemptFees, fundsShortfall, type RequestRefusal, type UserReplacementKind } from '../domain/send-check.js';
import { newestAttempt } from '../domain/replacement-retry.js';
import type { CancelledBy } from '../domain/request-follow.js';
import { newTxRecord } from '../domain/transitions.js';
import type { TxBroadcasting } from './tx-engine-broadcast.js';
import { unsignedTx, type TxEngineContext } from './tx-engine-context.js';
import { readFeeHistory } from './tx-engine-market.js';
import type { TxReplacing } from './tx-engine-replacement.js';

/** Why signUserReplacement signs nothing: both may change by the next block. */
export type CancelRefusal = Extract<RequestRefusal, { code: 'key-not-loaded' | 'bump-above-cap' }>;

/** Runs `enter` (the step that takes the nonce) when it is this transaction's turn, and returns what it returns. */
export type InTurn = <T>(enter: () => Promise<T>) => Promise<T>;
/** No batch to keep in order: the nonce is taken as soon as the serial queue allows. */
const atOnce: InTurn = (enter) => enter();

/** A first attempt only needs the base fee to be no older than about a block; replacements always read fresh fees. */
const FEE_CACHE_MS = 1_000;

export function createTxUserActions(
  ctx: TxEngineContext,
  sending: Pick<TxBroadcasting, 'sendStored'>,
  replacing: Pick<TxReplacing, 'commitReplacement' | 'sendWithBumps'>,
) {
  const { d } = ctx;

  /** Whether a request without fees of its own is priced from the market (else the seed preset's first fee). */
  const pricedByMarket = () => d.policy().pricing === 'market';
  let historyCache: { at: number; history: Promise<FeeHistory> } | null = null;
  /** The market's recent blocks, read at most once a second (many sends at once share one reading). */
  function recentHistory(): Promise<FeeHistory> {
    const now = d.clock.now();
    if (!historyCache || now - historyCache.at > FEE_CACHE_MS) {
      const history = readFeeHistory(d, HISTORY_BLOCKS);
      historyCache = { at: now, history };
      history.catch(() => (historyCache = null));
    }
    return historyCache.history;
  }

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

  /** The market a first attempt was priced from, kept in its `signed` event: the speed, and what it saw. */
  const marketDetail = (market: MarketQuote | null, given: boolean) =>
    market && !given
      ? { speed: market.speed, marketBaseFeeWei: market.baseFeeWei?.toString() ?? null, marketTipWei: market.tipWei.toString() }
      : {};

  /**
   * What `request` does, settled before anything is signed: the gas limit (estimated when not given), and the checks
   * that refuse it with nothing stored: a call that would revert (WOULD_REVERT, the decoded reason) and a balance that
   * cannot cover value plus gas at the fee cap (CONFLICT, how much is missing). Runs outside the serial queue, so many
   * requests are checked at once.
   */
  async function prepare(from: string, request: TxRequest): Promise<TxPayload> {
    // isAddress takes lower case, upper case or the exact EIP-55 spelling: mixed case that is not the checksum is a typo.
    if (request.to && !isAddress(request.to)) {
      throw new FieldsError([fieldIssue('to', 'has a wrong checksum: check the address, or write it in lower case')]);
    }
    const to = request.to ? request.to.toLowerCase() : null;
    const valueWei = BigInt(request.value ?? '0');
    const input = (request.data ?? '0x').toLowerCase();
    const call = { from, ...(to ? { to } : {}), value: `0x${valueWei.toString(16)}`, data: input };
    const given = request.gas !== undefined ? BigInt(request.gas) : null;
    // eth_estimateGas runs the call as eth_call does, so one of the two says whether it reverts.
    const [simulated, balance] = await Promise.allSettled([
      given === null
        ? d.chain.request('eth_estimateGas', [call])
        : d.chain.request('eth_call', [{ ...call, gas: `0x${given.toString(16)}` }, 'latest']),
      d.chain.balance(from),
    ]);
    const e = simulated.status === 'rejected' ? (simulated.reason as Error) : null;
    if (e instanceof RpcError && e.code !== 'unreachable' && isRevertAnswer(e)) {
      throw new TxdeskError(
        'WOULD_REVERT',
        describeRevert(decodeRevert(e.data), e.message),
        422,
        false,
        typeof e.data === 'string' ? e.data : undefined,
      );
    }
    if (balance.status === 'rejected' || (e && (!(e instanceof RpcError) || e.code === 'unreachable'))) {
      d.log.warn(
        `checking a transaction before signing: ${String(balance.status === 'rejected' ? (balance.reason as Error).message : e?.message)}`,
      );
      throw new TxdeskError(
        'UPSTREAM_UNAVAILABLE',
        'The Ethereum node did not answer while checking the transaction; check that it runs and NODE_ENDPOINT points at it, then retry.',
      );
    }
    const gasLimit = given ?? (simulated.status === 'fulfilled' ? BigInt(simulated.value as string) : SELF_TRANSFER_GAS);
    const funds = { from, balanceWei: balance.value, valueWei, gasLimit, capWei: BigInt(d.policy().maxFeeWei) };
    const missing = fundsShortfall(funds);
    if (missing !== null) refuse({ code: 'funds', ...funds, missingWei: missing });
    // Not a revert and not the node being away: its own words (e.g. an init code it refuses), as the chain's error.
    if (e)
      throw new TxdeskError(
        'CHAIN_ERROR',
        `The node refused to run the call: "${e.message.slice(0, 300)}"; fix the call and send it again.`,
      );
    return { to, value: valueWei.toString(), input, gasLimit: gasLimit.toString() };
  }

  /**
   * POST /api/tx and /rpc's eth_sendTransaction: `request` (or, without one, a 0-value transfer to yourself) at the
   * next nonce, stored before it is sent. A fee cap below the network's price refuses it before anything is signed. A
   * refusal by the node does not fail the call: the record carries the problem and is sent again when it can succeed
   * (its nonce is never reused). `beforeSigning` (a tool's request waiting for a person's approval) runs once the
   * payload is settled and checked, outside the serial queue; a rejection there stops it with nothing stored. `fees`
   * (a tool's own) price the first attempt instead of the policy; replacements bump from them as from any first fee.
   * `inTurn` (a transaction of a tool's batch) holds the nonce step until the transactions before it took theirs, so a
   * batch's nonces follow its order while the checks and broadcasts of its transactions overlap.
   */
  async function send(
    request?: TxRequest,
    opts: { beforeSigning?: (payload: TxPayload, firstFeeWei: bigint | null) => Promise<void>; fees?: GivenFees; inTurn?: InTurn } = {},
  ): Promise<TxRecord> {
    const signer = d.signer() ?? refuse({ code: 'no-key' });
    // The node's pending count and fees are read beside the checks, not in the queue: many sends overlap their reads.
    const chainFacts = () =>
      ctx.chainCall('reading the nonce and fees', () =>
        Promise.all([d.chain.nonceCount(signer.address, 'pending'), recentFees(), pricedByMarket() ? recentHistory() : null]),
      );
    const [payload, facts] = await Promise.all([
      request && Object.keys(request).length > 0 ? prepare(signer.address, request) : selfTransfer(signer.address),
      chainFacts(),
    ]);
    let [chainPending, net, history] = facts;
    if (opts.beforeSigning) {
      const asked = d.clock.now();
      // The person sees the fee the first attempt would pay now (the policy's, the market's or the tool's).
      const preview = firstAttemptFees(
        d.policy(),
        net,
        opts.fees,
        history ? marketQuote(history, net, request?.speed ?? d.policy().speed) : null,
      );
      await opts.beforeSigning(payload, 'code' in preview ? null : headlineFee(preview.fees));
      // A person took a while to approve: the node's count and fees are read again.
      if (d.clock.now() - asked > FEE_CACHE_MS) [chainPending, net, history] = await chainFacts();
    }
    const speed = request?.speed ?? d.policy().speed;
    const market = history ? marketQuote(history, net, speed) : null;
    const record = await (opts.inTurn ?? atOnce)(() =>
      ctx.serial(async () => {
        // Our own records cover every nonce signed since the read: only a nonce used elsewhere meanwhile can collide,
        // and the node's "nonce too low" reconciles it as it always does.
        // Only the nonces at or above the node's count (and our highest) matter to the plan: a query, not the whole history.
        const plan = planNextNonce(chainPending, d.store.noncesFrom(signer.address, chainPending));
        if (plan.usedElsewhere > 0)
          d.log.warn(`${plan.usedElsewhere} nonce(s) of ${signer.address} were used outside txdesk; continuing at ${plan.nonce}`);
        const first = firstAttemptFees(d.policy(), net, opts.fees, market);
        const { fees, raisedFromWei } = 'code' in first ? refuse(first) : first;
        const signed = await signer.sign(unsignedTx(d.chainId, plan.nonce, payload, fees));
        const given = opts.fees !== undefined;
        const pricedBy: PricedBy = given
          ? { by: 'request' }
          : market && d.policy().pricing === 'market'
            ? marketPricedBy(market)
            : { by: 'seed' };
        const record = newTxRecord(
          {
            hash: signed.hash,
            from: signer.address,
            nonce: plan.nonce,
            fees,
            replaces: null,
            attempt: 0,
            kind: 'generate',
            payload,
            pricedBy,
          },
          ctx.iso(),
        );
        const summary = describeNews({ code: 'signed', nonce: plan.nonce, feeWei: headlineFee(fees), raisedFromWei, given });
        d.store.insert(record, signed.raw, [
          {
            kind: 'signed',
            summary,
            detail: {
              nonce: plan.nonce,
              feeWei: headlineFee(fees).toString(),
              txType: fees.txType,
              gasLimit: payload.gasLimit,
              ...(given ? { feeGiven: true } : {}),
              ...marketDetail(market, given),
            },
          },
        ]);
        ctx.emit([record.transactionHash]);
        return record;
      }),
    );
    // Stored first, sent after the queue is free: the next send signs while this one travels to the node.
    await sending.sendStored(record, { inQueue: false });
    return d.store.get(record.transactionHash)!;
  }

  /**
   * Signs and commits a same-nonce replacement at a bumped fee for a person's cancel or speed-up (or the engine's
   * cancel of a nonce its own transaction cannot fill), or returns why not: its key is not loaded, or the fee cap
   * forbids the bump. Does not count against the automatic replacement limit. `by` says whose cancel it is.
   */
  async function signUserReplacement(
    newest: TxRecord,
    kind: UserReplacementKind,
    why: string,
    by: CancelledBy = 'person',
  ): Promise<TxRecord | CancelRefusal> {
    const signer = d.signer();
    const noKey = keyRefusal(signer?.address ?? null, newest.from, kind);
    if (noKey) return noKey;
    const net = await ctx.chainCall('reading the fees', () => d.chain.fees());
    const decision = decideUserReplacement(newest, kind, net, d.policy());
    if ('code' in decision) return decision;
    // A speed-up is a reprice (the same payload); a cancel is a 0-value transfer to yourself.
    const payload = kind === 'cancel' ? selfTransfer(newest.from) : payloadOf(newest);
    // keyRefusal refused unless the loaded key is the sender's.
    const signed = { ...(await signer!.sign(unsignedTx(d.chainId, newest.nonce, payload, decision.fees))), payload };
    const rec = d.store.transaction(() =>
      replacing.commitReplacement(newest, { decision, signed }, why, kind, kind === 'cancel' ? by : undefined),
    )!;
    ctx.emit([newest.transactionHash, rec.transactionHash]);
    return rec;
  }

  /** POST /api/tx/:hash/cancel and /speed-up: a same-nonce replacement at a bumped fee, now. */
  function userReplace(hash: string, kind: UserReplacementKind): Promise<TxRecord> {
    return ctx.serial(async () => {
      const rec = d.store.get(hash) ?? refuse({ code: 'unknown-tx', hash });
      const records = d.store.byNonce(rec.from, rec.nonce);
      const settled = settledNonceRefusal(records, rec.nonce, kind);
      if (settled) refuse(settled);
      const signed = await signUserReplacement(
        newestAttempt(records)!,
        kind,
        kind === 'cancel' ? 'cancel requested' : 'speed-up requested',
      );
      const next = 'code' in signed ? refuse(signed) : signed;
      await replacing.sendWithBumps(next);
      return d.store.get(next.transactionHash)!;
    });
  }

  return {
    send,
    cancel: (hash: string) => userReplace(hash, 'cancel'),
    speedUp: (hash: string) => userReplace(hash, 'speed-up'),
    signUserReplacement,
  };
}

export type TxUserActions = ReturnType<typeof createTxUserActions>;
