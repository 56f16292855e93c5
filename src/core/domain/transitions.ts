// Record transitions for tracker messages: what a pending/receipt/confirmation does to the record and to the
// other records of the same nonce. Pure and idempotent: a duplicate or late message yields no change.
import type { TxPayload } from '../../shared/tx-request.js';
import type { PricedBy, TxEventKind, TxKind, TxRecord, TxStatus } from '../../shared/tx-record.js';
import type { FeeFields } from './fees.js';
import { describeNews, type RecordNews } from './describe.js';
import { recordFees } from './replacement.js';

export type TrackerMessageType = 'pending' | 'receipt' | 'confirmation';

/** What one tracker message says (the SDK's message `data`), as the transitions read it. */
export interface TrackerNews {
  type: TrackerMessageType;
  result: Record<string, unknown>;
}

export interface RecordChange {
  hash: string;
  status: TxStatus;
  /** Replaces the record's `data` when present. */
  data?: Record<string, unknown>;
  event: { kind: TxEventKind; summary: string; detail: Record<string, unknown> };
}

export interface Transition {
  changes: RecordChange[];
  /** True when the record just became `pending`: the caller then asks the replacement policy. */
  stuck: boolean;
}

const NONE: Transition = { changes: [], stuck: false };

/** A change of one record, its event worded from `news`; `data` replaces the record's when given. */
export function change(
  hash: string,
  status: TxStatus,
  kind: TxEventKind,
  news: RecordNews,
  detail: Record<string, unknown>,
  data?: Record<string, unknown>,
): RecordChange {
  return { hash, status, ...(data ? { data } : {}), event: { kind, summary: describeNews(news), detail } };
}

export function applyTrackerMessage(target: TxRecord, sameNonce: readonly TxRecord[], msg: TrackerNews): Transition {
  switch (msg.type) {
    case 'pending':
      // A receipt the tracker withdrew (a reorganisation): the nonce is open again, and stuck as any pending one.
      if (msg.result.reorged === true) {
        if (target.status !== 'receipt') return NONE;
        return { changes: withdrawReceipt(target, sameNonce, 'the tracker saw its block reorganised away'), stuck: true };
      }
      // Only a record nobody has heard of yet can become pending; after a receipt or a replacement it is news from the past.
      if (target.status !== undefined) return NONE;
      return {
        changes: [change(target.transactionHash, 'pending', 'pending', { code: 'tracker-timeout' }, { ...msg.result })],
        stuck: true,
      };
    case 'receipt':
    case 'confirmation':
      return mined(target, sameNonce, msg.result, msg.type);
  }
}

function mined(
  target: TxRecord,
  sameNonce: readonly TxRecord[],
  result: Record<string, unknown>,
  kind: 'receipt' | 'confirmation',
): Transition {
  // A confirmation is final: nothing that arrives after it (duplicate, late receipt) changes the record, and once
  // one attempt of a nonce is confirmed, a stale receipt for another attempt cannot reopen the nonce.
  if (target.status === 'confirmation' || sameNonce.some((r) => r.status === 'confirmation')) return NONE;
  const block = result.blockNumber;
  const changes: RecordChange[] = [];
  if (kind === 'receipt' && target.status === 'receipt') {
    if (result.blockHash === target.data.blockHash) return NONE;
    changes.push(
      change(
        target.transactionHash,
        'receipt',
        'reorged',
        { code: 'mined-again', block },
        { blockNumber: block, blockHash: result.blockHash, previousBlockHash: target.data.blockHash },
        result,
      ),
    );
  } else {
    changes.push(
      change(
        target.transactionHash,
        kind,
        kind,
        { code: kind === 'receipt' ? 'mined' : 'confirmed', block },
        { blockNumber: block, blockHash: result.blockHash },
        result,
      ),
    );
  }
  // One nonce is mined once: every other attempt of it lost, whatever it believed before.
  for (const other of sameNonce) {
    if (other.transactionHash === target.transactionHash || other.status === 'replaced' || other.status === 'confirmation') continue;
    changes.push(
      change(
        other.transactionHash,
        'replaced',
        'replaced',
        { code: 'lost', winner: target.transactionHash, block },
        { winner: target.transactionHash, blockNumber: block },
      ),
    );
  }
  return { changes, stuck: false };
}

/**
 * Undoes a receipt that is no longer on the chain: the record goes back to `pending`, and so does every other
 * attempt of the nonce that was marked `replaced` (they lost to it, and may be the one mined now). A confirmed
 * nonce is final to tracker messages (the tracker only confirms at depth), so nothing changes then, unless `deep`:
 * the node itself shows the confirmed block gone (a reorganisation deeper than the confirmations).
 */
export function withdrawReceipt(target: TxRecord, sameNonce: readonly TxRecord[], why: string, deep = false): RecordChange[] {
  const withdrawable = target.status === 'receipt' || (deep && target.status === 'confirmation');
  if (!withdrawable || (!deep && sameNonce.some((r) => r.status === 'confirmation'))) return [];
  const block = target.data.blockNumber;
  return [
    change(
      target.transactionHash,
      'pending',
      'reorged',
      { code: 'withdrawn', block, why },
      { blockNumber: block, blockHash: target.data.blockHash, withdrawn: true },
      {},
    ),
    ...sameNonce
      .filter((r) => r.status === 'replaced')
      .map((other) =>
        change(
          other.transactionHash,
          'pending',
          'reorged',
          { code: 'back-in-play', winner: target.transactionHash },
          { winner: target.transactionHash, blockNumber: block },
        ),
      ),
  ];
}

export interface NewRecordFacts {
  hash: string;
  from: string;
  nonce: number;
  fees: FeeFields;
  replaces: string | null;
  attempt: number;
  kind: TxKind;
  /** What it does; a replacement carries its predecessor's (a reprice), a cancel the self-transfer's. */
  payload: TxPayload;
  /** How its fee was chosen. */
  pricedBy?: PricedBy;
}

/** The record of a transaction just signed: no status until a tracker message or the nonce check gives one. */
export function newTxRecord(f: NewRecordFacts, now: string): TxRecord {
  return {
    transactionHash: f.hash,
    from: f.from,
    nonce: f.nonce,
    ...recordFees(f.fees),
    ...f.payload,
    data: {},
    replaces: f.replaces,
    replacedBy: null,
    attempt: f.attempt,
    kind: f.kind,
    problem: null,
    ...(f.pricedBy ? { pricedBy: f.pricedBy } : {}),
    createdAt: now,
    updatedAt: now,
  };
}
