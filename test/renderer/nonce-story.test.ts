// The line a nonce card says under its badge, from the records' facts (status, attempt, kind, gasPrice), never from a
// sentence: "Stuck" with the replacement's fee while it is on its way, "Mined after 1 replacement (+80%)" once settled.
import { describe, expect, it } from 'vitest';
import { feeIncrease, feeLine, nonceStory } from '../../src/renderer/src/features/transactions/nonce-story.js';
import { nonceState } from '../../src/renderer/src/store/nonce-state.js';
import type { NonceProblem, TxRecord } from '../../src/shared/tx-record.js';
import { rec } from '../support/app/core-records.js';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const gwei = (g: number) => String(BigInt(Math.round(g * 1e4)) * 100_000n);
const first = (p: Partial<TxRecord> = {}) => rec({ n: 1, attempt: 0, kind: 'generate', gasPrice: gwei(1), createdAt: at(0), ...p });
const replacement = (attempt: number, fee: number, p: Partial<TxRecord> = {}) =>
  rec({
    n: 1 + attempt,
    attempt,
    kind: 'replace',
    gasPrice: gwei(fee),
    replaces: '0x' + String(attempt - 1).repeat(64),
    createdAt: at(10 * attempt),
    ...p,
  });
const story = (attempts: TxRecord[]) => nonceStory(attempts, nonceState(attempts));

describe('nonceStory', () => {
  it.each<[string, TxRecord[], string | null]>([
    ['sent, waiting: the badge says it all', [first()], null],
    ['mined as sent: nothing to add', [first({ status: 'receipt' })], null],
    [
      'the tracker says pending: stuck, a replacement comes',
      [first({ status: 'pending' })],
      'Not mined in time at 1 gwei: replacing it with a higher fee.',
    ],
    [
      'a replacement on its way',
      [first({ status: 'pending' }), replacement(1, 1.8)],
      'Not mined in time at 1 gwei: replacement 1 sent at 1.8 gwei (+80%).',
    ],
    [
      'the replacement waits too',
      [first({ status: 'pending' }), replacement(1, 1.8, { status: 'pending' })],
      'Not mined in time at 1 gwei: replacement 1 sent at 1.8 gwei (+80%).',
    ],
    [
      'mined after one replacement',
      [first({ status: 'replaced' }), replacement(1, 1.8, { status: 'receipt' })],
      'Mined after 1 replacement (+80%).',
    ],
    [
      'confirmed after two',
      [first({ status: 'replaced' }), replacement(1, 1.125, { status: 'replaced' }), replacement(2, 1.265625, { status: 'confirmation' })],
      'Confirmed after 2 replacements (+26.5%).',
    ],
    [
      'a speed-up counts as a replacement',
      [first({ status: 'replaced' }), replacement(1, 1.125, { kind: 'speed-up', status: 'confirmation' })],
      'Confirmed after 1 replacement (+12.5%).',
    ],
    [
      'the first attempt won the race',
      [first({ status: 'receipt' }), replacement(1, 1.8, { status: 'replaced' })],
      'Mined as first sent, at 1 gwei, before its replacement.',
    ],
    [
      'cancelled',
      [first({ status: 'replaced' }), replacement(1, 1.125, { kind: 'cancel', status: 'confirmation' })],
      'Cancelled at 1.125 gwei (+12.5%): only the fee was paid.',
    ],
    ['taken from elsewhere: the badge says Replaced', [first({ status: 'replaced' })], null],
  ])('%s', (_name, attempts, expected) => {
    expect(story(attempts)).toBe(expected);
    // Any order of the records tells the same story.
    expect(story([...attempts].reverse())).toBe(expected);
  });

  it('a nonce that needs you speaks in its own line; a passing trouble the app retries is said here', () => {
    const problem = (reason: NonceProblem['reason'], summary: string): NonceProblem => ({ reason, summary, since: at(30) });
    expect(story([first({ status: 'pending', problem: problem('fee-cap', 'Above the cap.') })])).toBeNull();
    expect(story([first({ problem: problem('unreachable', 'The node could not be reached at 1.8 gwei.') })])).toBe(
      'The node could not be reached at 1.8 gwei.',
    );
  });
});

describe('feeIncrease', () => {
  it.each<[string, string, string | null]>([
    ['1000000000', '1800000001', '+80%'],
    ['1000000000', '1125000000', '+12.5%'],
    ['1000000000', '1000000000', '+0%'],
    ['2000000000', '1000000000', '−50%'],
    ['0', '1', null],
    ['x', '1', null],
  ])('%s -> %s: %s', (a, b, out) => expect(feeIncrease(a, b)).toBe(out));
});

describe('feeLine', () => {
  it('says what the attempt offers, how it was priced with the market at the time, and what it paid once mined', () => {
    const market = rec({
      attempt: 0,
      txType: 'eip1559',
      gasPrice: '2300000000',
      maxPriorityFeePerGas: '1700000000',
      pricedBy: { by: 'market', speed: 'normal', baseFeeWei: '100000000', tipWei: '1700000000' },
    });
    expect(feeLine([market], market)).toBe(
      'Offers up to 2.3 gwei, tip 1.7 gwei (market, normal: recent blocks tipped 1.7 gwei over a 0.1 gwei base fee)',
    );
    const mined = { ...market, status: 'receipt' as const, data: { effectiveGasPrice: '1800000000' } };
    expect(feeLine([mined], mined)).toBe(
      'Offers up to 2.3 gwei, tip 1.7 gwei (market, normal: recent blocks tipped 1.7 gwei over a 0.1 gwei base fee) · paid 1.8 gwei per gas',
    );
    const seed = rec({ attempt: 1, gasPrice: '1125000000', pricedBy: { by: 'seed' } });
    expect(feeLine([seed], seed)).toBe('Offers 1.125 gwei (seed preset)');
    const old = rec({ attempt: 0, gasPrice: '1000000000' });
    expect(feeLine([old], old)).toBe('Offers 1 gwei');
    expect(feeLine([], old)).toBeNull();
  });
});
