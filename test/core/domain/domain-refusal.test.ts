// The pure fault logic, exhaustively: which node refusal is which (a table of real node messages), the sentence and
// the retry decision for every refusal (fast-check), next-nonce planning (no gap, no reuse), and withdrawn receipts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planNextNonce, recoverNonce } from '../../../src/core/domain/nonce.js';
import { describeRefusal } from '../../../src/core/domain/describe.js';
import {
  classifyRefusal,
  decideRetry,
  formatEth,
  REASON_OF_REFUSAL,
  REFUSALS_BEFORE_CANCEL,
  type Refusal,
} from '../../../src/core/domain/refusal.js';
import { applyTrackerMessage, withdrawReceipt } from '../../../src/core/domain/transitions.js';
import { hashOf, rec } from '../../support/app/core-records.js';

describe('classifyRefusal', () => {
  const rows: [string, ReturnType<typeof classifyRefusal>][] = [
    ['already known', 'known'],
    ['Known transaction: 0xab…', 'known'],
    ['transaction already imported', 'known'],
    ['nonce too low', 'nonce-used'],
    ['Nonce too low: next nonce 5, tx nonce 3', 'nonce-used'],
    ['replacement transaction underpriced', 'underpriced'],
    ['Replacement transaction underpriced', 'underpriced'],
    ['insufficient funds for gas * price + value', 'funds'],
    ['Insufficient funds for gas * price + value: have 1 want 2', 'funds'],
    ['max fee per gas less than block base fee', 'fee-too-low'],
    ['transaction underpriced', 'fee-too-low'],
    ['fee cap less than block base fee', 'fee-too-low'],
    ['txpool is full', 'pool-full'],
    ['Too many pending transactions', 'pool-full'],
    ['exceeds block gas limit', 'refused'],
    ['transaction type not supported', 'refused'],
    ['', 'refused'],
  ];
  for (const [message, kind] of rows) it(`"${message}" is ${kind}`, () => expect(classifyRefusal(message)).toBe(kind));
});

describe('formatEth', () => {
  it('keeps six significant digits, a cost rounded up and a balance down', () => {
    expect(formatEth(30_000_000_000_000n)).toBe('0.00003');
    expect(formatEth(37_800_000_000_000n)).toBe('0.0000378');
    expect(formatEth(37_800_000_021_000n, 'up')).toBe('0.0000378001');
    expect(formatEth(37_800_000_021_000n, 'down')).toBe('0.0000378');
    expect(formatEth(10n ** 18n)).toBe('1');
    expect(formatEth(0n)).toBe('0');
    const value = (s: string) => {
      const [whole, frac = ''] = s.split('.');
      return BigInt(whole!) * 10n ** 18n + BigInt(frac.padEnd(18, '0') || '0');
    };
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), (w) => {
        const up = value(formatEth(w, 'up'));
        const down = value(formatEth(w, 'down'));
        expect(down <= w && w <= up).toBe(true);
        expect(up - down <= 10n ** BigInt(Math.max(0, w.toString().length - 6))).toBe(true);
        if (w.toString().length <= 6) expect([up, down]).toEqual([w, w]);
      }),
    );
  });
});

const refusalArb = fc.constantFrom<Refusal>('underpriced', 'fee-too-low', 'funds', 'pool-full', 'refused', 'unreachable');
const weiArb = fc.bigInt({ min: 0n, max: 10n ** 20n });

describe('refusal sentences and retries', () => {
  it('every refusal gets one sentence that says what happens next, and a problem reason', () => {
    fc.assert(
      fc.property(
        refusalArb,
        fc.string(),
        weiArb,
        weiArb,
        fc.option(weiArb, { nil: null }),
        fc.nat(1000),
        (failure, message, cost, fee, balance, nonce) => {
          const s = describeRefusal({
            failure,
            message,
            nonce,
            from: '0x' + 'a'.repeat(40),
            kind: 'replace',
            costWei: cost,
            feeWei: fee,
            balanceWei: balance,
          });
          expect(s).toMatch(/^[A-Z].*\.$/);
          expect(s.split(/\.\s+(?=[A-Z])/)).toHaveLength(1);
          expect(s).toMatch(/again|added|add funds|bumped/);
          expect(REASON_OF_REFUSAL[failure]).toBeTruthy();
          if (failure === 'funds' && balance !== null && balance < cost)
            expect(s).toContain(`Balance ${formatEth(balance)} ETH is below the ${formatEth(cost, 'up')} ETH`);
          // Never a false claim: a balance that covers this transaction alone is not called "below" it.
          if (failure === 'funds' && balance !== null && balance >= cost)
            expect(s).toContain("with the account's other pending transactions");
        },
      ),
    );
  });

  it('a retry never gives up: it waits only for funds that are short, and cancels only after repeated other refusals', () => {
    fc.assert(
      fc.property(
        refusalArb,
        fc.nat(10),
        weiArb,
        fc.option(weiArb, { nil: null }),
        weiArb,
        fc.option(weiArb, { nil: null }),
        fc.boolean(),
        (failure, refusals, cost, balance, fee, baseFee, isCancel) => {
          const a = decideRetry({ failure, refusals, costWei: cost, balanceWei: balance, feeWei: fee, baseFeeWei: baseFee, isCancel });
          if (a.action === 'wait') {
            expect(failure).toBe('funds');
            expect(balance! < cost).toBe(true);
          }
          if (failure === 'funds' && (balance === null || balance >= cost)) expect(a.action).toBe('resend');
          if (a.action === 'cancel') {
            expect(failure).toBe('refused');
            expect(refusals).toBeGreaterThanOrEqual(REFUSALS_BEFORE_CANCEL);
            expect(isCancel).toBe(false);
          }
          if (a.action === 'resign') {
            expect(failure).toBe('fee-too-low');
            expect(fee < baseFee!).toBe(true);
          }
          if (failure === 'pool-full' || failure === 'unreachable' || failure === 'underpriced') expect(a.action).toBe('resend');
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('planNextNonce', () => {
  it('takes the lowest nonce at or above the chain pending count with no record: none skipped, none reused', () => {
    fc.assert(
      fc.property(fc.nat(50), fc.uniqueArray(fc.nat(60), { maxLength: 40 }), (pending, live) => {
        const { nonce } = planNextNonce(pending, live);
        expect(nonce).toBeGreaterThanOrEqual(pending);
        expect(live).not.toContain(nonce);
        for (let n = pending; n < nonce; n++) expect(live).toContain(n);
      }),
      { numRuns: 2000 },
    );
  });

  it('counts nonces the chain used beyond ours', () => {
    expect(planNextNonce(7, [0, 1, 2])).toEqual({ nonce: 7, usedElsewhere: 4 });
    expect(planNextNonce(1, [0, 1, 2])).toEqual({ nonce: 3, usedElsewhere: 0 });
    expect(planNextNonce(0, [0, 1, 3])).toEqual({ nonce: 2, usedElsewhere: 0 });
    expect(planNextNonce(0, [])).toEqual({ nonce: 0, usedElsewhere: 0 });
  });
});

describe('withdrawn receipts', () => {
  const receipt = (n: number, block: number) => ({ transactionHash: hashOf(n), blockNumber: block, blockHash: `0xb${block}` });

  it('for any attempt that was mined: back to pending, every loser back in play, and a new receipt settles it again', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.nat(4), fc.nat(4), (attempts, winnerIdx, againIdx) => {
        const w = winnerIdx % attempts;
        const again = againIdx % attempts;
        let records = Array.from({ length: attempts }, (_, i) => rec({ n: i + 1, attempt: i, status: 'pending' }));
        const apply = (changes: { hash: string; status: NonNullable<(typeof records)[0]['status']>; data?: Record<string, unknown> }[]) =>
          (records = records.map((r) => {
            const c = changes.filter((x) => x.hash === r.transactionHash).at(-1);
            return c ? { ...r, status: c.status, data: c.data ?? r.data } : r;
          }));
        const minedT = applyTrackerMessage(
          records[w]!,
          records.filter((_, i) => i !== w),
          { type: 'receipt', result: receipt(w + 1, 5) },
        );
        apply(minedT.changes);
        const back = applyTrackerMessage(
          records[w]!,
          records.filter((_, i) => i !== w),
          { type: 'pending', result: { transactionHash: hashOf(w + 1), reorged: true } },
        );
        expect(back.stuck).toBe(true);
        apply(back.changes);
        expect(records.every((r) => r.status === 'pending')).toBe(true);
        expect(records[w]!.data).toEqual({});
        // The same news again changes nothing.
        expect(
          applyTrackerMessage(
            records[w]!,
            records.filter((_, i) => i !== w),
            { type: 'pending', result: { transactionHash: hashOf(w + 1), reorged: true } },
          ).changes,
        ).toEqual([]);
        apply(
          applyTrackerMessage(
            records[again]!,
            records.filter((_, i) => i !== again),
            { type: 'receipt', result: receipt(again + 1, 7) },
          ).changes,
        );
        expect(records.filter((r) => r.status === 'receipt')).toHaveLength(1);
        expect(records.filter((r) => r.status === 'replaced')).toHaveLength(attempts - 1);
      }),
    );
  });

  it('a confirmed nonce is final', () => {
    const a = rec({ n: 1, status: 'receipt', data: receipt(1, 5) });
    expect(withdrawReceipt(a, [rec({ n: 2, attempt: 1, status: 'confirmation' })], 'x')).toEqual([]);
  });

  it('recovery undoes a receipt only once the node is past its block and the nonce is unused', () => {
    const a = rec({ n: 1, status: 'receipt', data: receipt(1, 5) });
    const b = rec({ n: 2, attempt: 1, status: 'replaced' });
    const facts = { nonce: 0, records: [a, b], receipts: new Map(), minedNonceCount: 0, rejected: new Set<string>() };
    expect(recoverNonce({ ...facts, headBlock: 4 }).outcome).toBe('open');
    const plan = recoverNonce({ ...facts, headBlock: 6 });
    expect(plan.outcome).toBe('reorged');
    expect(plan.changes.map((c) => [c.hash, c.status])).toEqual([
      [a.transactionHash, 'pending'],
      [b.transactionHash, 'pending'],
    ]);
    expect(plan.rebroadcast).toBe(b.transactionHash);
    expect(recoverNonce({ ...facts, headBlock: 6, minedNonceCount: 1 }).outcome).toBe('used-elsewhere');
  });
});
