// Renderer bookkeeping of transaction records, as tables of cases: merging, grouping by nonce, counts, fee figures.
import { describe, expect, it } from 'vitest';
import {
  bumpPercent,
  chainOf,
  countGroups,
  groupByNonce,
  receiptFacts,
  recordsToMap,
  upsertRecord,
} from '../../src/renderer/src/store/tx-logic.js';
import { formatEthAmount, parseGweiToWei, shortHex, weiToGweiInput } from '../../src/renderer/src/lib/format.js';
import type { TxRecord } from '../../src/shared/tx-record.js';
import { rec as baseRec } from '../support/app/core-records.js';

let n = 0;
/** A record with a hash of its own per call. */
const rec = (p: Partial<TxRecord>): TxRecord => baseRec({ n: ++n, ...p });

describe('upsertRecord', () => {
  it('keeps the newer copy whatever the arrival order', () => {
    const a = rec({ status: 'pending', updatedAt: '2026-01-01T00:00:01.000Z' });
    const newer = { ...a, status: 'receipt' as const, updatedAt: '2026-01-01T00:00:02.000Z' };
    expect(upsertRecord(upsertRecord({}, a), newer)[a.transactionHash]?.status).toBe('receipt');
    expect(upsertRecord(upsertRecord({}, newer), a)[a.transactionHash]?.status).toBe('receipt');
  });

  it('returns the same map for a duplicate, so subscribers do not re-render', () => {
    const a = rec({});
    const m = upsertRecord({}, a);
    expect(upsertRecord(m, { ...a })).toBe(m);
  });
});

describe('groupByNonce', () => {
  it('groups a replacement chain, orders attempts, and finds the winner', () => {
    const o = rec({ nonce: 3, status: 'replaced', attempt: 0 });
    const r1 = rec({ nonce: 3, status: 'replaced', attempt: 1, gasPrice: '1125000000' });
    const r2 = rec({ nonce: 3, status: 'confirmation', attempt: 2, gasPrice: '1265625000', updatedAt: '2026-01-01T00:01:00.000Z' });
    const other = rec({ nonce: 4, status: 'pending' });
    const groups = groupByNonce(recordsToMap([r2, other, o, r1]));
    expect(groups.map((g) => [g.nonce, g.state.name, g.attempts.map((a) => a.attempt)])).toEqual([
      [4, 'stuck-replacing', [0]],
      [3, 'confirmed', [0, 1, 2]],
    ]);
    expect(groups[1]?.winner?.transactionHash).toBe(r2.transactionHash);
    expect(chainOf(recordsToMap([o, r1, r2, other]), r1.transactionHash).map((r) => r.attempt)).toEqual([0, 1, 2]);
  });

  it.each([
    [[undefined], 'waiting'],
    [['pending'], 'stuck-replacing'],
    [['replaced', 'receipt'], 'mined'],
    [['replaced', 'confirmation'], 'confirmed'],
  ] as const)('statuses %j -> %s', (statuses, state) => {
    const map = recordsToMap(statuses.map((s, i) => rec({ nonce: 9, attempt: i, ...(s ? { status: s } : {}) })));
    expect(groupByNonce(map)[0]?.state.name).toBe(state);
  });

  it('counts transactions (nonces) and attempts apart', () => {
    const map = recordsToMap([
      rec({ nonce: 1, attempt: 0, status: 'replaced' }),
      rec({ nonce: 1, attempt: 1, status: 'confirmation' }),
      rec({ nonce: 2, attempt: 0, status: 'pending', problem: { reason: 'fee-cap', summary: 's', since: 't' } }),
      rec({ nonce: 3, attempt: 0 }),
      rec({ nonce: 4, attempt: 0, status: 'replaced' }),
      rec({ nonce: 4, attempt: 1, kind: 'cancel', status: 'receipt' }),
    ]);
    expect(countGroups(groupByNonce(map))).toEqual({ transactions: 4, attempts: 6, open: 2, needsYou: 1, confirmed: 2 });
  });
});

describe('figures', () => {
  it.each([
    [
      { blockNumber: 12, gasUsed: 21000 },
      { blockNumber: 12, gasUsed: '21000' },
    ],
    [
      { blockNumber: '13', gasUsed: '0x5208' },
      { blockNumber: 13, gasUsed: '0x5208' },
    ],
    [{}, { blockNumber: null, gasUsed: null }],
  ])('receiptFacts(%j)', (data, expected) => {
    expect(receiptFacts(rec({ data }))).toEqual(expected);
  });

  it.each([
    ['1000000000', '1125000000', '+12.5%'],
    ['1000000000', '1270000000', '+27.0%'],
    ['0', '1', ''],
  ])('bumpPercent(%s, %s) = %s', (a, b, out) => expect(bumpPercent(a, b)).toBe(out));

  it.each([
    ['1', '1000000000'],
    ['1.5', '1500000000'],
    ['0.000000001', '1'],
    ['1.0000000001', null],
    ['-1', null],
    ['abc', null],
  ])('parseGweiToWei(%s) = %s', (text, out) => expect(parseGweiToWei(text)).toBe(out));

  it('gwei input round-trips exactly', () => {
    for (const wei of ['1', '1000000000', '1265625000', '500000000000']) expect(parseGweiToWei(weiToGweiInput(wei))).toBe(wei);
  });

  it('formats ether and hex', () => {
    expect(formatEthAmount('9999873000000000000000')).toBe('9,999.873 ETH');
    expect(shortHex(`0x${'ab'.repeat(20)}`)).toBe('0xabab…abab');
  });
});
