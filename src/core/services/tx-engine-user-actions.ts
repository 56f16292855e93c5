// What a person asks of the engine: a new transaction at the next nonce, and a cancel or speed-up of one already
// sent (a same-nonce replacement at a bumped fee, outside the automatic replacement limit).
import { TxdeskError } from '../../shared/errors.js';
import type { TxRecord } from '../../shared/tx-record.js';
import { formatGwei, headlineFee, initialFees, percentIncrease, replacementFees, type FeeFields, type NetworkFees } from '../domain/fees.js';
import { planNextNonce } from '../domain/nonce.js';
import { getAddress } from 'ethers';
import { RpcError } from '../../lib/json-rpc.js';
import type { TxPayload, TxRequest } from '../../shared/tx-request.js';
import { feesOf, isMined, payloadOf, SELF_TRANSFER_GAS, selfTransfer, short, type ReplacementDecision } from '../domain/replacement.js';
import { decodeRevert, describeRevert } from '../domain/revert.js';
import { describeShortfall, fundsShortfall, isRevertAnswer } from '../domain/send-check.js';
import { newestAttempt } from '../domain/replacement-retry.js';
import { newTxRecord } from '../domain/transitions.js';
import type { TxBroadcasting } from './tx-engine-broadcast.js';
import { unsignedTx, type TxEngineContext } from './tx-engine-context.js';
import type { TxReplacing } from './tx-engine-replacement.js';

/** A first attempt only needs the base fee to be no older than about a block; replacements always read fresh fees. */
const FEE_CACHE_MS = 1_000;

export function createTxUserActions(ctx: TxEngineContext, sending: Pick<TxBroadcasting, 'sendStored'>, replacing: Pick<TxReplacing, 'commitReplacement' | 'sendWithBumps'>) {
  const { d } = ctx;

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
   * What `request` does, settled before anything is signed: the gas limit (estimated when not given), and the checks
   * that refuse it with nothing stored: a call that would revert (WOULD_REVERT, the decoded reason) and a balance that
   * cannot cover value plus gas at the fee cap (CONFLICT, how much is missing). Runs outside the serial queue, so many
   * requests are checked at once.
   */
  async function prepare(from: string, request: TxRequest): Promise<TxPayload> {
    if (request.to && !hasValidChecksum(request.to)) {
      throw new TxdeskError('INVALID_PARAMETER', "The field 'to' has a wrong checksum: check the address, or write it in lower case.");
    }
    const to = request.to ? request.to.toLowerCase() : null;
    const valueWei = BigInt(request.value ?? '0');
    const input = (request.data ?? '0x').toLowerCase();
    const call = { from, ...(to ? { to } : {}), value: `0x${valueWei.toString(16)}`, data: input };
    const given = request.gas !== undefined ? BigInt(request.gas) : null;
    // eth_estimateGas runs the call as eth_call does, so one of the two says whether it reverts.
    const [simulated, balance] = await Promise.allSettled([
      given === null ? d.chain.request('eth_estimateGas', [call]) : d.chain.request('eth_call', [{ ...call, gas: `0x${given.toString(16)}` }, 'latest']),
      d.chain.balance(from),
    ]);
    if (simulated.status === 'rejected') {
      const e = simulated.reason as RpcError;
      if (e instanceof RpcError && e.code !== 'unreachable' && isRevertAnswer(e.code, e.message)) {
        throw new TxdeskError('WOULD_REVERT', describeRevert(decodeRevert(e.data), e.message), 422, false, typeof e.data === 'string' ? e.data : undefined);
      }
    }
    if (balance.status === 'rejected' || (simulated.status === 'rejected' && (!(simulated.reason instanceof RpcError) || simulated.reason.code === 'unreachable'))) {
      const why = balance.status === 'rejected' ? (balance.reason as Error).message : (simulated as PromiseRejectedResult).reason.message;
      d.log.warn(`checking a transaction before signing: ${String(why)}`);
      throw new TxdeskError('UPSTREAM_UNAVAILABLE', 'The Ethereum node did not answer while checking the transaction; check that it runs and NODE_ENDPOINT points at it, then retry.');
    }
    const gasLimit = given ?? (simulated.status === 'fulfilled' ? BigInt(simulated.value as string) : SELF_TRANSFER_GAS);
    const funds = { from, balanceWei: balance.value, valueWei, gasLimit, capWei: BigInt(d.policy().maxFeeWei) };
    const missing = fundsShortfall(funds);
    if (missing !== null) throw new TxdeskError('CONFLICT', describeShortfall(funds, missing));
    if (simulated.status === 'rejected') {
      // Not a revert and not the node being away: its own words (e.g. an init code it refuses), as the chain's error.
      throw new TxdeskError('CHAIN_ERROR', `The node refused to run the call: "${(simulated.reason as Error).message.slice(0, 300)}"; fix the call and send it again.`);
    }
    return { to, value: valueWei.toString(), input, gasLimit: gasLimit.toString() };
  }

  /**
   * POST /api/tx and /rpc's eth_sendTransaction: `request` (or, without one, a 0-value transfer to yourself) at the
   * next nonce, stored before it is sent. A fee cap below the network's price refuses it before anything is signed. A
   * refusal by the node does not fail the call: the record carries the problem and is sent again when it can succeed
   * (its nonce is never reused). `beforeSigning` (a tool's request waiting for a person's approval) runs once the
   * payload is settled and checked, outside the serial queue; a rejection there stops it with nothing stored.
   */
  async function send(request?: TxRequest, opts: { beforeSigning?: (payload: TxPayload) => Promise<void> } = {}): Promise<TxRecord> {
    const signer = d.signer();
    if (!signer) throw new TxdeskError('CONFLICT', 'There is no signing key yet; generate or import one in Settings (POST /api/key/generate), then retry.');
    // The node's pending count and fees are read beside the checks, not in the queue: many sends overlap their reads.
    const chainFacts = () => ctx.chainCall('reading the nonce and fees', () => Promise.all([d.chain.nonceCount(signer.address, 'pending'), recentFees()]));
    const [payload, facts] = await Promise.all([request && Object.keys(request).length > 0 ? prepare(signer.address, request) : selfTransfer(signer.address), chainFacts()]);
    let [chainPending, net] = facts;
    if (opts.beforeSigning) {
      const asked = d.clock.now();
      await opts.beforeSigning(payload);
      // A person took a while to approve: the node's count and fees are read again.
      if (d.clock.now() - asked > FEE_CACHE_MS) [chainPending, net] = await chainFacts();
    }
    const record = await ctx.serial(async () => {
      const policy = d.policy();
      // Our own records cover every nonce signed since the read: only a nonce used elsewhere meanwhile can collide,
      // and the node's "nonce too low" reconciles it as it always does.
      // Only the nonces at or above the node's count (and our highest) matter to the plan: a query, not the whole history.
      const plan = planNextNonce(chainPending, d.store.noncesFrom(signer.address, chainPending));
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
      const signed = await signer.sign(unsignedTx(d.chainId, plan.nonce, payload, fees));
      const fee = formatGwei(headlineFee(fees));
      const record = newTxRecord({ hash: signed.hash, from: signer.address, nonce: plan.nonce, fees, replaces: null, attempt: 0, kind: 'generate', payload }, ctx.iso());
      d.store.insert(record, signed.raw, [
        {
          kind: 'signed',
          summary: raisedToBaseFee ? `Signed nonce ${plan.nonce} at ${fee}, raised from ${formatGwei(BigInt(policy.initialFeeWei))} to the base fee.` : `Signed nonce ${plan.nonce} at ${fee}.`,
          detail: { nonce: plan.nonce, feeWei: headlineFee(fees).toString(), txType: fees.txType, gasLimit: payload.gasLimit },
        },
      ]);
      ctx.emit([record.transactionHash]);
      return record;
    });
    // Stored first, sent after the queue is free: the next send signs while this one travels to the node.
    await sending.sendStored(record, { inQueue: false });
    return d.store.get(record.transactionHash)!;
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
    const net = await ctx.chainCall('reading the fees', () => d.chain.fees());
    // A cancel filling a nonce is signed with today's policy: its own transaction may have been refused for its type.
    const base: FeeFields = kind === 'cancel' && newest.txType !== policy.txType ? initialFees(policy.txType, BigInt(newest.gasPrice), net).fees : feesOf(newest);
    const fees = replacementFees(base, net, policy.bumpPercent);
    const fee = headlineFee(fees);
    const cap = BigInt(policy.maxFeeWei);
    if (fee > cap) {
      throw new TxdeskError('CONFLICT', `To ${verb} nonce ${newest.nonce} needs a fee of ${formatGwei(fee)}, above your fee cap of ${formatGwei(cap)}; raise the cap in Settings, then retry.`);
    }
    // A speed-up is a reprice (the same payload); a cancel is a 0-value transfer to yourself.
    const payload = kind === 'cancel' ? selfTransfer(newest.from) : payloadOf(newest);
    const signed = { ...(await signer.sign(unsignedTx(d.chainId, newest.nonce, payload, fees))), payload };
    const label = kind === 'cancel' ? 'Cancel' : 'Speed-up';
    const decision: ReplacementDecision = { action: 'replace', fees, attempt: newest.attempt + 1, summary: `${label} at ${formatGwei(fee)} (${percentIncrease(BigInt(newest.gasPrice), fee)})` };
    const rec = d.store.transaction(() => replacing.commitReplacement(newest, { decision, signed }, why, kind))!;
    ctx.emit([newest.transactionHash, rec.transactionHash]);
    return rec;
  }

  /** POST /api/tx/:hash/cancel and /speed-up: a same-nonce replacement at a bumped fee, now. */
  function userReplace(hash: string, kind: 'cancel' | 'speed-up'): Promise<TxRecord> {
    const verb = kind === 'cancel' ? 'cancel' : 'speed up';
    return ctx.serial(async () => {
      const rec = d.store.get(hash);
      if (!rec) throw new TxdeskError('NOT_FOUND', `No transaction ${hash} is stored in this app; list them with GET /api/tx.`);
      const records = d.store.byNonce(rec.from, rec.nonce);
      const mined = records.find(isMined);
      if (mined) throw new TxdeskError('CONFLICT', `Nonce ${rec.nonce} is already mined by ${short(mined.transactionHash)}; there is nothing left to ${verb}.`);
      if (records.every((r) => r.status === 'replaced')) throw new TxdeskError('CONFLICT', `Nonce ${rec.nonce} was used by a transaction sent outside txdesk; there is nothing left to ${verb}.`);
      const newest = newestAttempt(records)!;
      const next = await signUserReplacement(newest, kind, kind === 'cancel' ? 'cancel requested' : 'speed-up requested');
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

/** Lower case, upper case, or the exact EIP-55 spelling: mixed case that is not the checksum is a typo. */
function hasValidChecksum(address: string): boolean {
  try {
    getAddress(address); // throws on mixed case that is not the checksum
    return true;
  } catch {
    return false;
  }
}
