// The watcher's decisions as a table: tracked state + what the chain shows -> messages, withdrawals, end of tracking.
import { describe, expect, it } from 'vitest';
import type { TrackerReceipt } from '@txdesk/tracker/tracker-wire';
import { formatReceipt } from '../../../src/service/tracker/tracker-receipt-format.js';
import {
  decideTracking,
  nonceCheckBlock,
  pendingDueAt,
  type Observation,
  type TrackingState,
} from '../../../src/service/tracker/tracker-watch-policy.js';

const H = '0x' + 'ab'.repeat(32);
const receiptAt = (blockNumber: number, blockHash = `0xb${blockNumber}`): TrackerReceipt => ({
  transactionHash: H,
  blockHash,
  blockNumber,
  transactionIndex: 0,
  from: '0xf',
  to: '0xt',
  contractAddress: null,
  gasUsed: 21000,
  cumulativeGasUsed: 21000,
  effectiveGasPrice: '1000000000',
  status: 1,
  type: 2,
  logs: [],
});
const base: TrackingState = {
  clientId: 'c',
  txHash: H,
  confirmation: 3,
  timeoutMs: 1000,
  trackedAtMs: 10_000,
  pendingSent: false,
  receipt: null,
  from: null,
  nonce: null,
  doneAtMs: null,
};

type Row = [name: string, state: Partial<TrackingState>, obs: Partial<Observation>, events: string[], withdraw: boolean, done: boolean];
const rows: Row[] = [
  ['nothing looked up, before the timeout', {}, { nowMs: 10_500 }, [], false, false],
  ['no receipt before the timeout', {}, { nowMs: 10_500, receipt: null }, [], false, false],
  ['no receipt at the timeout: pending', {}, { nowMs: 11_000, receipt: null }, ['pending'], false, false],
  ['pending only once', { pendingSent: true }, { nowMs: 20_000, receipt: null }, [], false, false],
  ['not looked up yet at the timeout: wait for a lookup', {}, { nowMs: 20_000 }, [], false, false],
  ['mined before the timeout: receipt, no pending', {}, { nowMs: 10_500, head: 5, receipt: receiptAt(5) }, ['receipt'], false, false],
  ['mined after pending: receipt', { pendingSent: true }, { nowMs: 30_000, head: 5, receipt: receiptAt(5) }, ['receipt'], false, false],
  ['same receipt again: nothing', { receipt: receiptAt(5) }, { nowMs: 30_000, head: 6, receipt: receiptAt(5) }, [], false, false],
  ['confirmation depth reached', { receipt: receiptAt(5) }, { nowMs: 30_000, head: 8 }, ['confirmation'], false, true],
  ['one block short of depth', { receipt: receiptAt(5) }, { nowMs: 30_000, head: 7 }, [], false, false],
  ['receipt and depth in one round', {}, { nowMs: 30_000, head: 9, receipt: receiptAt(5) }, ['receipt', 'confirmation'], false, true],
  [
    'confirmation 0: confirmed with the receipt',
    { confirmation: 0 },
    { nowMs: 30_000, head: 5, receipt: receiptAt(5) },
    ['receipt', 'confirmation'],
    false,
    true,
  ],
  [
    'reorged away, not mined again: withdraw, pending again (reorged), no confirmation',
    { receipt: receiptAt(5), pendingSent: true },
    { nowMs: 30_000, head: 9, receipt: null },
    ['pending'],
    true,
    false,
  ],
  [
    'reorged away per the window, no lookup: withdraw, pending again (reorged)',
    { receipt: receiptAt(5), pendingSent: true },
    { nowMs: 30_000, head: 9, receiptCanonical: false },
    ['pending'],
    true,
    false,
  ],
  [
    'reorged away before the timeout: pending (reorged) at once',
    { receipt: receiptAt(5) },
    { nowMs: 1_000, head: 9, receipt: null },
    ['pending'],
    true,
    false,
  ],
  [
    'reorged away and the nonce used at depth: ends silently',
    { receipt: receiptAt(5), pendingSent: true },
    { nowMs: 30_000, head: 9, receipt: null, nonceUsedAtDepth: true },
    [],
    true,
    true,
  ],
  [
    'reorged away past the timeout, pending never sent: pending now',
    { receipt: receiptAt(5) },
    { nowMs: 30_000, head: 9, receipt: null },
    ['pending'],
    true,
    false,
  ],
  [
    'mined again in another block: withdraw + new receipt',
    { receipt: receiptAt(5, '0xold') },
    { nowMs: 30_000, head: 6, receipt: receiptAt(6, '0xnew') },
    ['receipt'],
    true,
    false,
  ],
  [
    'mined again and already deep',
    { receipt: receiptAt(5, '0xold') },
    { nowMs: 30_000, head: 9, receipt: receiptAt(6, '0xnew') },
    ['receipt', 'confirmation'],
    true,
    true,
  ],
  [
    'nonce used elsewhere at depth: ends silently',
    { pendingSent: true },
    { nowMs: 30_000, head: 9, receipt: null, nonceUsedAtDepth: true },
    [],
    false,
    true,
  ],
  [
    'nonce used but our receipt exists: receipt wins',
    { pendingSent: true },
    { nowMs: 30_000, head: 9, receipt: receiptAt(8), nonceUsedAtDepth: true },
    ['receipt'],
    false,
    false,
  ],
  ['done: nothing more', { doneAtMs: 1 }, { nowMs: 30_000, head: 9, receipt: null }, [], false, true],
];

describe('decideTracking', () => {
  it('a withdrawn receipt is announced as pending with result.reorged; an ordinary pending has no such field', () => {
    const reorged = decideTracking({ ...base, receipt: receiptAt(5), pendingSent: true }, { nowMs: 30_000, head: 9, receipt: null });
    expect(reorged.events[0]!.result).toMatchObject({ transactionHash: base.txHash, reorged: true });
    const plain = decideTracking({ ...base }, { nowMs: 30_000, head: 9, receipt: null });
    expect(plain.events[0]!.result).not.toHaveProperty('reorged');
  });

  for (const [name, state, obs, events, withdraw, done] of rows) {
    it(name, () => {
      const d = decideTracking({ ...base, ...state }, { nowMs: 0, head: null, ...obs });
      expect(d.events.map((e) => e.type)).toEqual(events);
      expect(d.withdrawReceipt).toBe(withdraw);
      expect(d.state.doneAtMs !== null).toBe(done);
      expect(d.changed).toBe(
        events.length > 0 || withdraw || (done && !state.doneAtMs) || d.state.pendingSent !== (state.pendingSent ?? false),
      );
    });
  }

  it('pending carries transactionHash, confirmation and timeout only', () => {
    const d = decideTracking(base, { nowMs: 11_000, head: 1, receipt: null });
    expect(d.events[0]).toEqual({ type: 'pending', result: { transactionHash: H, confirmation: 3, timeout: 1000 } });
  });

  it('confirmation repeats the receipt of the canonical block', () => {
    const r = receiptAt(5);
    const d = decideTracking({ ...base, receipt: r }, { nowMs: 1, head: 8, receiptCanonical: true });
    expect(d.events[0]).toEqual({ type: 'confirmation', result: r });
  });
});

describe('schedules', () => {
  it('pendingDueAt and nonceCheckBlock', () => {
    expect(pendingDueAt(base)).toBe(11_000);
    expect(pendingDueAt({ ...base, pendingSent: true })).toBeNull();
    expect(pendingDueAt({ ...base, receipt: receiptAt(1) })).toBeNull();
    expect(nonceCheckBlock(base, 10)).toBeNull();
    expect(nonceCheckBlock({ ...base, from: '0xf', nonce: 4 }, 10)).toBe(7);
    expect(nonceCheckBlock({ ...base, from: '0xf', nonce: 4 }, 2)).toBeNull();
  });
});

describe('formatReceipt', () => {
  it('turns hex quantities into numbers and the gas price into a decimal string', () => {
    const r = formatReceipt({
      transactionHash: H.toUpperCase().replace('0X', '0x'),
      blockHash: '0xBB',
      blockNumber: '0x10',
      transactionIndex: '0x2',
      from: '0xAbC',
      to: null,
      contractAddress: '0xC0',
      gasUsed: '0x5208',
      cumulativeGasUsed: '0xa410',
      effectiveGasPrice: '0x1bc16d674ec80000',
      status: '0x0',
      type: '0x2',
      logs: [
        {
          address: '0xAA',
          topics: ['0x01'],
          data: '0x',
          logIndex: '0x3',
          blockNumber: '0x10',
          blockHash: '0xBB',
          transactionHash: H,
          transactionIndex: '0x2',
        },
      ],
    });
    expect(r).toMatchObject({
      blockNumber: 16,
      transactionIndex: 2,
      from: '0xabc',
      to: null,
      contractAddress: '0xc0',
      gasUsed: 21000,
      cumulativeGasUsed: 42000,
      effectiveGasPrice: '2000000000000000000',
      status: 0,
      type: 2,
    });
    expect(r.logs[0]).toMatchObject({ logIndex: 3, blockNumber: 16, blockHash: '0xbb', removed: false });
  });
});
