// Table-driven tests of record transitions (every message type, duplicates, out-of-order) and nonce bookkeeping.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyTrackerMessage, type TrackerNews } from '../../../src/core/domain/transitions.js';
import { planNextNonce, recoverNonce } from '../../../src/core/domain/nonce.js';
import type { TxRecord, TxStatus } from '../../../src/shared/tx-record.js';
import { hashOf, rec } from '../../support/app/core-records.js';

const receiptIn = (block: number, blockHash = `0xb${block}`): Record<string, unknown> => ({
  transactionHash: hashOf(1),
  blockNumber: block,
  blockHash,
  status: 1,
});
const msg = (
  type: TrackerNews['type'],
  result: Record<string, unknown> = { transactionHash: hashOf(1), confirmation: 6, timeout: 10000 },
): TrackerNews => ({ type, result });

type Row = {
  name: string;
  status: TxStatus | undefined;
  data?: Record<string, unknown>;
  siblings?: TxRecord[];
  m: TrackerNews;
  /** Expected status per hash after the message (only changed ones), or [] for no change. */
  want: [number, TxStatus][];
  stuck?: boolean;
  kinds?: string[];
};

describe('applyTrackerMessage', () => {
  const r2 = (status?: TxStatus) => rec({ n: 2, attempt: 1, replaces: hashOf(1), ...(status ? { status } : {}) });
  const r3 = (status?: TxStatus) => rec({ n: 3, attempt: 2, replaces: hashOf(2), ...(status ? { status } : {}) });
  const rows: Row[] = [
    { name: 'pending on a fresh record', status: undefined, m: msg('pending'), want: [[1, 'pending']], stuck: true, kinds: ['pending'] },
    { name: 'pending twice', status: 'pending', m: msg('pending'), want: [] },
    { name: 'pending after receipt', status: 'receipt', m: msg('pending'), want: [] },
    { name: 'pending after confirmation', status: 'confirmation', m: msg('pending'), want: [] },
    { name: 'pending after replaced', status: 'replaced', m: msg('pending'), want: [] },
    { name: 'receipt on a fresh record', status: undefined, m: msg('receipt', receiptIn(5)), want: [[1, 'receipt']], kinds: ['receipt'] },
    { name: 'receipt after pending', status: 'pending', m: msg('receipt', receiptIn(5)), want: [[1, 'receipt']] },
    { name: 'receipt twice, same block', status: 'receipt', data: receiptIn(5), m: msg('receipt', receiptIn(5)), want: [] },
    {
      name: 'receipt again after a reorg',
      status: 'receipt',
      data: receiptIn(5),
      m: msg('receipt', receiptIn(6)),
      want: [[1, 'receipt']],
      kinds: ['reorged'],
    },
    { name: 'receipt after confirmation', status: 'confirmation', data: receiptIn(5), m: msg('receipt', receiptIn(5)), want: [] },
    {
      name: 'receipt marks every sibling replaced',
      status: 'pending',
      siblings: [r2(), r3('pending')],
      m: msg('receipt', receiptIn(5)),
      want: [
        [1, 'receipt'],
        [2, 'replaced'],
        [3, 'replaced'],
      ],
      kinds: ['receipt', 'replaced', 'replaced'],
    },
    {
      name: 'receipt of a record we had marked replaced (the sibling was reorged out)',
      status: 'replaced',
      siblings: [r2('receipt')],
      m: msg('receipt', receiptIn(7)),
      want: [
        [1, 'receipt'],
        [2, 'replaced'],
      ],
    },
    {
      name: 'receipt leaves an already replaced sibling alone',
      status: 'pending',
      siblings: [r2('replaced')],
      m: msg('receipt', receiptIn(5)),
      want: [[1, 'receipt']],
    },
    {
      name: 'a stale receipt after a sibling was confirmed changes nothing',
      status: 'replaced',
      siblings: [r2('confirmation')],
      m: msg('receipt', receiptIn(5)),
      want: [],
    },
    {
      name: 'a stale confirmation after a sibling was confirmed changes nothing',
      status: 'replaced',
      siblings: [r2('confirmation')],
      m: msg('confirmation', receiptIn(5)),
      want: [],
    },
    {
      name: 'confirmation after receipt',
      status: 'receipt',
      data: receiptIn(5),
      m: msg('confirmation', receiptIn(5)),
      want: [[1, 'confirmation']],
      kinds: ['confirmation'],
    },
    {
      name: 'confirmation without a receipt first (out of order)',
      status: undefined,
      siblings: [r2()],
      m: msg('confirmation', receiptIn(5)),
      want: [
        [1, 'confirmation'],
        [2, 'replaced'],
      ],
    },
    { name: 'confirmation after pending', status: 'pending', m: msg('confirmation', receiptIn(5)), want: [[1, 'confirmation']] },
    { name: 'confirmation twice', status: 'confirmation', data: receiptIn(5), m: msg('confirmation', receiptIn(5)), want: [] },
  ];
  it.each(rows)('$name', ({ status, data, siblings = [], m, want, stuck = false, kinds }) => {
    const target = rec({ n: 1, ...(status ? { status } : {}), data: data ?? {} });
    const t = applyTrackerMessage(target, siblings, m);
    expect(t.changes.map((c) => [Number(BigInt(c.hash)), c.status])).toEqual(want);
    expect(t.stuck).toBe(stuck);
    if (kinds) expect(t.changes.map((c) => c.event.kind)).toEqual(kinds);
    for (const c of t.changes) {
      expect(c.event.summary.length).toBeGreaterThan(5);
      if (c.hash === target.transactionHash && (m.type === 'receipt' || m.type === 'confirmation')) expect(c.data).toEqual(m.result);
    }
  });

  it('applying every permutation of a message sequence twice ends in the same state', () => {
    const seqs: TrackerNews[] = [msg('pending'), msg('receipt', receiptIn(5)), msg('confirmation', receiptIn(5))];
    const perms = [
      [0, 1, 2],
      [0, 2, 1],
      [1, 0, 2],
      [1, 2, 0],
      [2, 0, 1],
      [2, 1, 0],
    ];
    for (const p of perms) {
      let r = rec({ n: 1 });
      for (const i of [...p, ...p]) {
        const t = applyTrackerMessage(r, [], seqs[i]!);
        for (const c of t.changes) if (c.hash === r.transactionHash) r = { ...r, status: c.status, data: c.data ?? r.data };
      }
      expect(r.status).toBe('confirmation');
    }
  });
});

describe('planNextNonce', () => {
  it.each([
    { chain: 0, ours: [], want: 0, elsewhere: 0 },
    { chain: 3, ours: [], want: 3, elsewhere: 0 },
    { chain: 0, ours: [0, 1, 2], want: 3, elsewhere: 0 }, // signed and stored, the node has not seen them yet
    { chain: 3, ours: [0, 1, 2], want: 3, elsewhere: 0 },
    { chain: 5, ours: [0, 1, 2], want: 5, elsewhere: 2 }, // two nonces used outside the app
    { chain: 2, ours: [0, 1, 2, 3, 4], want: 5, elsewhere: 0 },
  ])('chain $chain, ours $ours -> $want', ({ chain, ours, want, elsewhere }) => {
    expect(planNextNonce(chain, ours)).toEqual({ nonce: want, usedElsewhere: elsewhere });
  });

  it('needs only the nonces at or above the chain count and the highest one (what the store reads)', () => {
    fc.assert(
      fc.property(fc.nat(60), fc.uniqueArray(fc.nat(60), { maxLength: 40 }), (chain, ours) => {
        const bounded = [...ours.filter((n) => n >= chain), ...(ours.length ? [Math.max(...ours)] : [])];
        expect(planNextNonce(chain, bounded)).toEqual(planNextNonce(chain, ours));
      }),
    );
  });
});

describe('recoverNonce', () => {
  const a = rec({ n: 1, nonce: 4 });
  const b = rec({ n: 2, nonce: 4, attempt: 1, replaces: hashOf(1) });
  const none = new Set<string>();
  it.each([
    {
      name: 'our replacement was mined',
      records: [{ ...a, status: 'pending' as const, replacedBy: b.transactionHash }, b],
      receipts: [[2, receiptIn(9)]],
      mined: 5,
      outcome: 'mined',
      changed: [
        [2, 'receipt'],
        [1, 'replaced'],
      ],
      rebroadcast: null,
      track: [2],
    },
    {
      name: 'our original was mined',
      records: [a, b],
      receipts: [[1, receiptIn(9)]],
      mined: 5,
      outcome: 'mined',
      changed: [
        [1, 'receipt'],
        [2, 'replaced'],
      ],
      rebroadcast: null,
      track: [1],
    },
    {
      name: 'a foreign transaction used the nonce',
      records: [a, b],
      receipts: [],
      mined: 5,
      outcome: 'used-elsewhere',
      changed: [
        [1, 'replaced'],
        [2, 'replaced'],
      ],
      rebroadcast: null,
      track: [],
    },
    {
      name: 'still open: resend the newest attempt, track both',
      records: [a, b],
      receipts: [],
      mined: 4,
      outcome: 'open',
      changed: [],
      rebroadcast: 2,
      track: [1, 2],
    },
    {
      name: 'still open, newest refused by the node',
      records: [a, b],
      receipts: [],
      mined: 4,
      rejected: new Set([b.transactionHash]),
      outcome: 'open',
      changed: [],
      rebroadcast: 1,
      track: [1],
    },
    {
      name: 'reorged out after a receipt: resend the known-good one',
      records: [
        { ...a, status: 'receipt' as const },
        { ...b, status: 'replaced' as const },
      ],
      receipts: [],
      mined: 4,
      outcome: 'open',
      changed: [],
      rebroadcast: 1,
      track: [1],
    },
    {
      name: 'already confirmed',
      records: [
        { ...a, status: 'confirmation' as const },
        { ...b, status: 'replaced' as const },
      ],
      receipts: [],
      mined: 5,
      outcome: 'closed',
      changed: [],
      rebroadcast: null,
      track: [],
    },
  ])('$name', ({ records, receipts, mined, rejected, outcome, changed, rebroadcast, track }) => {
    const r = recoverNonce({
      nonce: 4,
      records,
      receipts: new Map(receipts.map(([n, rc]) => [hashOf(n as number), rc as Record<string, unknown>])),
      minedNonceCount: mined,
      rejected: rejected ?? none,
    });
    expect(r.outcome).toBe(outcome);
    expect(r.changes.map((c) => [Number(BigInt(c.hash)), c.status])).toEqual(changed);
    expect(r.rebroadcast).toBe(rebroadcast === null ? null : hashOf(rebroadcast));
    expect(r.track).toEqual(track.map(hashOf));
    if (outcome === 'used-elsewhere') expect(r.changes.every((c) => c.event.kind === 'nonce-used-elsewhere')).toBe(true);
  });
});
