// /rpc's reads of a hash txdesk handed out, made to follow the request: once a reprice txdesk signed is mined, the first
// hash's receipt and transaction are the mined attempt's (its own hash inside, nothing rewritten), so every library's
// plain wait returns; a cancel or a nonce used elsewhere ends the wait with an error that says so. Any other hash is
// forwarded unchanged.
import type { TxRecord } from '../../shared/tx-record.js';
import { followRequest, type AttemptFacts, type CancelledBy, type FollowAnswer } from '../domain/request-follow.js';
import type { Chain, TxStore } from '../ports.js';
import { pendingTransactionJson, RPC_CODES, RpcFailure } from './tool-rpc-wire.js';

export interface RequestFollowingDeps {
  chain: Pick<Chain, 'request'>;
  store: Pick<TxStore, 'get' | 'byNonce' | 'history' | 'rawOf'>;
}

type Receipt = Record<string, unknown> | null;

/** Who asked for the cancel of a nonce: the `signed` event of its first cancel says (records before it: a person). */
function cancelledByOf(store: RequestFollowingDeps['store'], attempts: readonly TxRecord[]): CancelledBy {
  const first = attempts.filter((r) => r.kind === 'cancel').sort((a, b) => a.attempt - b.attempt)[0];
  const signed = first ? store.history(first.transactionHash).find((e) => e.kind === 'signed') : undefined;
  return signed?.detail.cancelledBy === 'txdesk' ? 'txdesk' : 'person';
}

const short = (hash: string) => `${hash.slice(0, 10)}…`;

/** The JSON-RPC error a wait on a request that will never be mined ends with; `data` carries the same facts. */
function neverMined(rec: TxRecord, answer: Extract<FollowAnswer, { answer: 'cancelled' | 'nonce-used-elsewhere' }>): RpcFailure {
  if (answer.answer === 'nonce-used-elsewhere') {
    return new RpcFailure(
      RPC_CODES.invalidInput,
      `Transaction ${rec.transactionHash} will never be mined: its nonce ${rec.nonce} was used by a transaction txdesk did ` +
        `not sign; send it again if it is still wanted.`,
      { txdesk: 'nonce-used-elsewhere', transactionHash: rec.transactionHash, nonce: rec.nonce },
    );
  }
  const data = { txdesk: 'cancelled', by: answer.by, transactionHash: rec.transactionHash, nonce: rec.nonce, cancel: answer.cancel };
  // "User denied" is how wallets word a person's refusal, and how ethers recognises one (ACTION_REJECTED).
  if (answer.by === 'person') {
    return new RpcFailure(
      RPC_CODES.declined,
      `User denied transaction ${rec.transactionHash}: it was cancelled in txdesk before it was mined (its ` +
        `nonce ${rec.nonce} went to the cancel ${short(answer.cancel)}, which sends nothing).`,
      data,
    );
  }
  return new RpcFailure(
    RPC_CODES.invalidInput,
    `Transaction ${rec.transactionHash} was cancelled by txdesk after the node refused it again and again (its ` +
      `nonce ${rec.nonce} went to the cancel ${short(answer.cancel)}); see its history in the app.`,
    data,
  );
}

export function createRequestFollowing(d: RequestFollowingDeps) {
  const receiptOf = (hash: string) => d.chain.request('eth_getTransactionReceipt', [hash]) as Promise<Receipt>;

  /**
   * Where a record's nonce stands on the chain, given the sender's mined `count`, or null while nothing of it is
   * mined. The count is read before the receipts, so an attempt mined in between is seen as mined, never as a
   * stranger's use of the nonce.
   */
  async function follow(rec: TxRecord, count: number): Promise<{ answer: FollowAnswer; receipts: Map<string, Receipt> } | null> {
    if (!(count > rec.nonce)) return null;
    const attempts = d.store.byNonce(rec.from, rec.nonce);
    const receipts = new Map(
      await Promise.all(attempts.map(async (r) => [r.transactionHash, await receiptOf(r.transactionHash)] as const)),
    );
    const mined = new Set([...receipts].filter(([, r]) => r !== null).map(([h]) => h));
    const by = attempts.some((r) => r.kind === 'cancel') ? cancelledByOf(d.store, attempts) : 'person';
    const facts = (r: TxRecord): AttemptFacts => ({
      hash: r.transactionHash,
      kind: r.kind,
      ...(r.kind === 'cancel' ? { cancelledBy: by } : {}),
    });
    return { answer: followRequest(facts(rec), attempts.map(facts), rec.nonce, { latestCount: count, mined }), receipts };
  }

  const ours = (hash: unknown): TxRecord | null => (typeof hash === 'string' ? d.store.get(hash) : null);
  const minedCount = async (rec: TxRecord) => Number(await d.chain.request('eth_getTransactionCount', [rec.from, 'latest']));

  /** eth_getTransactionReceipt. */
  async function receipt(params: readonly unknown[]): Promise<unknown> {
    const rec = ours(params[0]);
    if (!rec) return d.chain.request('eth_getTransactionReceipt', params);
    // Asked together, so the node client sends them as one batch: one round trip whether or not it has to follow.
    const [own, count] = await Promise.all([receiptOf(rec.transactionHash), minedCount(rec)]);
    if (own !== null) return own;
    const followed = await follow(rec, count);
    if (!followed) return null;
    const { answer, receipts } = followed;
    switch (answer.answer) {
      case 'as-is':
        return receipts.get(rec.transactionHash) ?? null;
      case 'attempt':
        return receipts.get(answer.hash) ?? null;
      default:
        throw neverMined(rec, answer);
    }
  }

  /** eth_getTransactionByHash; a stored attempt the node forgot is answered from its signed bytes, not yet in a block. */
  async function transaction(params: readonly unknown[]): Promise<unknown> {
    const rec = ours(params[0]);
    if (!rec) return d.chain.request('eth_getTransactionByHash', params);
    const [answer, count] = (await Promise.all([d.chain.request('eth_getTransactionByHash', [rec.transactionHash]), minedCount(rec)])) as [
      Record<string, unknown> | null,
      number,
    ];
    if (answer !== null && answer.blockNumber != null) return answer;
    const followed = await follow(rec, count);
    if (followed?.answer.answer === 'attempt') {
      const hash = followed.answer.hash;
      const mined = await d.chain.request('eth_getTransactionByHash', [hash]);
      if (mined !== null) return mined;
    }
    // The node forgot it (a replaced attempt leaves the pool; a restarted node loses it): txdesk still knows it, and
    // libraries look it up to follow it (ethers after sending, viem to detect replacements).
    if (answer !== null) return answer;
    const raw = d.store.rawOf(rec.transactionHash);
    return raw ? pendingTransactionJson(raw) : null;
  }

  return { receipt, transaction };
}
