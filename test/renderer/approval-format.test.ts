// What the approval dialog and the Settings section say, as pure text: amounts in ETH and gwei exactly, the called
// function, the time left, messages, typed data as indented rows, and the typed allowance and time-out.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  calledText,
  dataRows,
  etherText,
  feeRangeText,
  gweiText,
  integerText,
  messageShown,
  parseAllowance,
  secondsLeft,
  stillWaiting,
  timeLeftText,
} from '../../src/renderer/src/features/approvals/approval-format.js';
import { parseTimeoutSeconds, timeoutSecondsText } from '../../src/renderer/src/features/settings/approval-timeout.js';
import type { ApprovalRequest } from '../../src/shared/approvals.js';

const to = '0x' + 'b'.repeat(40);

describe('amounts', () => {
  it('writes wei as ETH and gwei with every significant decimal', () => {
    expect(etherText('0')).toBe('0 ETH');
    expect(etherText('1')).toBe('0.000000000000000001 ETH');
    expect(etherText('500000000000000000')).toBe('0.5 ETH');
    expect(etherText('1234567890123456789012')).toBe('1,234.567890123456789012 ETH');
    expect(gweiText('1000000000')).toBe('1 gwei');
    expect(gweiText('1500000001')).toBe('1.500000001 gwei');
    expect(gweiText('7')).toBe('0.000000007 gwei');
    expect(feeRangeText({ feeFromWei: '1000000000', feeCapWei: '50000000000' })).toBe('1 gwei, up to 50 gwei');
    expect(feeRangeText({ feeFromWei: '2000000000', feeCapWei: '2000000000' })).toBe('2 gwei');
    expect(integerText('21000')).toBe('21,000');
  });

  it('reads back the exact wei of any amount it writes (no float on the way)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: (1n << 200n) - 1n }), (wei) => {
        const text = etherText(wei.toString()).replace(/ ETH$/, '').replace(/,/g, '');
        expect(parseAllowance(text)).toEqual({ ok: true, wei: wei.toString() });
      }),
    );
  });

  it('takes a daily allowance in ETH exactly and refuses what is not one', () => {
    expect(parseAllowance('0.1')).toEqual({ ok: true, wei: '100000000000000000' });
    expect(parseAllowance(' 2.000000000000000001 ')).toEqual({ ok: true, wei: '2000000000000000001' });
    expect(parseAllowance('0')).toEqual({ ok: false, error: 'Enter a limit above 0 ETH, or approve without a standing rule.' });
    expect(parseAllowance('')).toMatchObject({ ok: false });
    expect(parseAllowance('1e18')).toMatchObject({ ok: false });
    expect(parseAllowance('-1')).toMatchObject({ ok: false });
    expect(parseAllowance('0.0000000000000000001')).toMatchObject({ ok: false, error: expect.stringContaining('18 decimals') });
  });
});

describe('what a transaction calls', () => {
  const tx = { to, input: '0x', selector: null, functionName: null };
  it('names a known function with its selector, else the selector, else says there is no call', () => {
    expect(calledText(tx)).toBe('none: a plain transfer');
    expect(
      calledText({ ...tx, input: '0xa9059cbb' + '0'.repeat(128), selector: '0xa9059cbb', functionName: 'transfer(address,uint256)' }),
    ).toBe('transfer(address,uint256) (0xa9059cbb)');
    expect(calledText({ ...tx, input: '0x12345678', selector: '0x12345678' })).toBe('0x12345678 (not a function the app knows)');
    expect(calledText({ ...tx, input: '0x1234', selector: null })).toBe('data without a function selector (0x1234)');
    expect(calledText({ ...tx, to: null, input: '0x6080' })).toBe('none: deploys the code in its data');
  });
});

describe('time left', () => {
  const at = Date.parse('2026-01-01T00:00:00.000Z');
  it('counts whole seconds up, never below zero, and drops requests whose time ran out', () => {
    expect(secondsLeft('2026-01-01T00:01:45.000Z', at)).toBe(105);
    expect(secondsLeft('2026-01-01T00:00:00.200Z', at)).toBe(1);
    expect(secondsLeft('2025-12-31T23:59:00.000Z', at)).toBe(0);
    expect(secondsLeft('not a date', at)).toBe(0);
    expect([timeLeftText(105), timeLeftText(45), timeLeftText(120), timeLeftText(0)]).toEqual(['1 min 45 s', '45 s', '2 min', '0 s']);
    const r = (id: string, expiresAt: string) => ({ id, expiresAt }) as ApprovalRequest;
    expect(stillWaiting([r('gone', '2026-01-01T00:00:00.000Z'), r('open', '2026-01-01T00:00:05.000Z')], at).map((x) => x.id)).toEqual([
      'open',
    ]);
  });
});

describe('messages and typed data', () => {
  it('shows a message as text when it is text, else its hex', () => {
    expect(messageShown({ text: 'Sign in to example.org\nNonce: 7', hex: '0x53' })).toEqual({
      as: 'text',
      value: 'Sign in to example.org\nNonce: 7',
    });
    expect(messageShown({ text: null, hex: '0xdeadbeef' })).toEqual({ as: 'hex', value: '0xdeadbeef' });
    expect(messageShown({ text: '', hex: '0x' })).toEqual({ as: 'hex', value: '0x' });
  });

  it('writes nested typed data as indented rows, lists keyed by index', () => {
    const message = {
      from: { name: 'Cow', wallets: [to, '0x01'] },
      contents: 'Hello, Bob!',
      amount: 12,
      ok: true,
      none: null,
      empty: [],
      blank: {},
    };
    expect(dataRows(message)).toEqual({
      rows: [
        { key: 'from', depth: 0, value: null },
        { key: 'name', depth: 1, value: 'Cow' },
        { key: 'wallets', depth: 1, value: null },
        { key: '[0]', depth: 2, value: to },
        { key: '[1]', depth: 2, value: '0x01' },
        { key: 'contents', depth: 0, value: 'Hello, Bob!' },
        { key: 'amount', depth: 0, value: '12' },
        { key: 'ok', depth: 0, value: 'true' },
        { key: 'none', depth: 0, value: 'null' },
        { key: 'empty', depth: 0, value: '[] (empty list)' },
        { key: 'blank', depth: 0, value: '{} (empty)' },
      ],
      more: 0,
    });
  });

  it('stops at the row limit and counts the rest', () => {
    const big = { list: Array.from({ length: 10 }, (_, i) => i) };
    expect(dataRows(big, 4)).toMatchObject({ rows: [{ key: 'list' }, { key: '[0]' }, { key: '[1]' }, { key: '[2]' }], more: 7 });
  });
});

describe('the approval time-out in Settings', () => {
  it('takes seconds from 5 to 3600 (to the millisecond) and shows a saved value back', () => {
    expect(parseTimeoutSeconds('120')).toEqual({ ok: true, ms: 120_000 });
    expect(parseTimeoutSeconds(' 5 ')).toEqual({ ok: true, ms: 5_000 });
    expect(parseTimeoutSeconds('7.5')).toEqual({ ok: true, ms: 7_500 });
    expect(parseTimeoutSeconds('3600')).toEqual({ ok: true, ms: 3_600_000 });
    for (const bad of ['4.999', '3600.001', '', 'abc', '-10', '1e3', '5.0001'])
      expect(parseTimeoutSeconds(bad)).toMatchObject({ ok: false });
    expect(timeoutSecondsText(120_000)).toBe('120');
    expect(timeoutSecondsText(7_500)).toBe('7.5');
  });
});
