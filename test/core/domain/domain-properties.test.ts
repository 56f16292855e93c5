// Properties of the record transitions over random message sequences (fast-check): duplicates never change
// anything, at most one attempt of a nonce counts as mined (and then all others are replaced), a confirmation is final.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyTrackerMessage, type TrackerNews } from '../../../src/core/domain/transitions.js';
import type { TxRecord } from '../../../src/shared/tx-record.js';
import { hashOf, rec } from '../../support/app/core-records.js';

const ATTEMPTS = 4;
const WINNER = 2; // the attempt the chain finally confirms; receipts may name any attempt (reorgs)

const messageArb = fc.oneof(
  fc.record({ type: fc.constant('pending' as const), i: fc.integer({ min: 0, max: ATTEMPTS - 1 }) }),
  fc.record({ type: fc.constant('receipt' as const), i: fc.integer({ min: 0, max: ATTEMPTS - 1 }), block: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ type: fc.constant('confirmation' as const), i: fc.constant(WINNER), block: fc.integer({ min: 1, max: 3 }) }),
);

function toMessage(m: { type: TrackerNews['type']; i: number; block?: number }): TrackerNews {
  const h = hashOf(m.i + 1);
  return m.type === 'pending'
    ? { type: 'pending', result: { transactionHash: h } }
    : { type: m.type, result: { transactionHash: h, blockNumber: m.block, blockHash: `0xb${m.block}` } };
}

function apply(records: TxRecord[], m: TrackerNews): { next: TxRecord[]; changed: number } {
  const target = records.find((r) => r.transactionHash === m.result.transactionHash)!;
  const t = applyTrackerMessage(
    target,
    records.filter((r) => r !== target),
    m,
  );
  const next = records.map((r) => {
    const c = t.changes.filter((x) => x.hash === r.transactionHash).at(-1);
    return c ? { ...r, status: c.status, data: c.data ?? r.data } : r;
  });
  return { next, changed: t.changes.length };
}

describe('transition properties', () => {
  it('hold for every sequence of messages about one nonce', () => {
    fc.assert(
      fc.property(fc.array(messageArb, { maxLength: 30 }), (seq) => {
        let records = Array.from({ length: ATTEMPTS }, (_, i) => rec({ n: i + 1, attempt: i }));
        let confirmed = false;
        for (const raw of seq) {
          const m = toMessage(raw);
          records = apply(records, m).next;
          // The same message again, right away: nothing changes.
          expect(apply(records, m).changed).toBe(0);
          const mined = records.filter((r) => r.status === 'receipt' || r.status === 'confirmation');
          expect(mined.length).toBeLessThanOrEqual(1);
          if (raw.type === 'confirmation') confirmed = true;
          if (confirmed) {
            expect(records[WINNER]!.status).toBe('confirmation');
            for (const r of records) if (r !== records[WINNER]) expect(r.status).toBe('replaced');
          }
          // While one attempt counts as mined, every other attempt of the nonce has lost.
          if (mined.length === 1) for (const r of records) if (r !== mined[0]) expect(r.status).toBe('replaced');
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('fee properties', () => {
  const wei = fc.bigInt({ min: 0n, max: 10n ** 24n });
  it('every replacement fee field rises >= 12.5% and >= 1 wei, and never undercuts the network', async () => {
    const { replacementFees } = await import('../../../src/core/domain/fees.js');
    fc.assert(
      fc.property(
        wei,
        wei,
        wei,
        fc.option(wei, { nil: null }),
        wei,
        fc.double({ min: 12.5, max: 300, noNaN: true }),
        (maxFee, tipRaw, gasPrice, base, prio, pct) => {
          const tip = tipRaw > maxFee ? maxFee : tipRaw;
          const net = { baseFeeWei: base, gasPriceWei: gasPrice, priorityFeeWei: prio };
          const l = replacementFees({ txType: 'legacy', gasPrice: maxFee }, net, pct);
          if (l.txType !== 'legacy') throw new Error('type changed');
          expect(l.gasPrice * 1000n).toBeGreaterThanOrEqual(maxFee * 1125n);
          expect(l.gasPrice).toBeGreaterThan(maxFee);
          expect(l.gasPrice).toBeGreaterThan(gasPrice);
          expect(l.gasPrice).toBeGreaterThanOrEqual(base ?? 0n);
          const e = replacementFees({ txType: 'eip1559', maxFeePerGas: maxFee, maxPriorityFeePerGas: tip }, net, pct);
          if (e.txType !== 'eip1559') throw new Error('type changed');
          expect(e.maxFeePerGas * 1000n).toBeGreaterThanOrEqual(maxFee * 1125n);
          expect(e.maxPriorityFeePerGas * 1000n).toBeGreaterThanOrEqual(tip * 1125n);
          expect(e.maxFeePerGas).toBeGreaterThan(maxFee);
          expect(e.maxPriorityFeePerGas).toBeGreaterThan(tip);
          expect(e.maxPriorityFeePerGas).toBeGreaterThan(prio);
          expect(e.maxFeePerGas).toBeGreaterThanOrEqual((base ?? 0n) + e.maxPriorityFeePerGas);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
