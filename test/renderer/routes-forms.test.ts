// The URL hash round-trips every view and filter and survives anything typed into it; settings errors land on their
// field in plain words; fees and ages are written one way.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coreRefusal } from '../support/app/core-refusal.js';
import { apiErrorToFields, checkNetwork, plain } from '../../src/renderer/src/features/settings/field-errors.js';
import { parsePolicyForm } from '../../src/renderer/src/features/settings/policy-form.js';
import { formatAge, formatFee, formatFullDate } from '../../src/renderer/src/lib/format.js';
import { formatGwei } from '../../src/shared/fee-words.js';
import { explorerUrl } from '../../src/renderer/src/lib/explorer.js';
import { defaultRoute, formatRoute, parseRoute, type Route } from '../../src/renderer/src/routing/routes.js';
import { PAGE_SIZES } from '../../src/renderer/src/store/token-logic.js';

const hex = (n: number) => fc.array(fc.constantFrom(...'0123456789abcdef'), { minLength: n, maxLength: n }).map((a) => a.join(''));

describe('hash routes', () => {
  it('round-trips every route', () => {
    const route = fc.record({
      view: fc.constantFrom('transactions' as const, 'tokens' as const, 'settings' as const),
      tx: fc.option(hex(64).map((h) => `0x${h}`)),
      tokens: fc.record({
        owner: fc.oneof(
          fc.constant(''),
          hex(40).map((h) => `0x${h}`),
        ),
        contracts: fc.uniqueArray(
          hex(40).map((h) => `0x${h}`),
          { maxLength: 4 },
        ),
        orderBy: fc.constantFrom('transfer_block_number' as const, 'token_id' as const, 'contract_address' as const),
        direction: fc.constantFrom('asc' as const, 'desc' as const),
        size: fc.constantFrom(...PAGE_SIZES),
        page: fc.nat(500),
      }),
    });
    fc.assert(
      fc.property(route, (r: Route) => {
        const back = parseRoute(formatRoute(r));
        expect(back.view).toBe(r.view);
        if (r.view === 'transactions') expect(back.tx).toBe(r.tx);
        if (r.view === 'tokens') expect(back.tokens).toEqual(r.tokens);
      }),
    );
  });

  it('falls back to defaults for anything else, never throwing', () => {
    fc.assert(fc.property(fc.string(), (s) => void parseRoute(`#/${s}`)));
    expect(parseRoute('')).toEqual(defaultRoute);
    expect(parseRoute('#/nowhere?tx=0x12')).toEqual(defaultRoute);
    expect(parseRoute('#/tokens?owner=bob&size=7&page=-1&order=price').tokens).toEqual(defaultRoute.tokens);
    expect(formatRoute(defaultRoute)).toBe('#/transactions');
  });
});

describe('settings errors point at their field', () => {
  it('checks every network field and says what to enter', () => {
    const e = checkNetwork({ nodeUrl: 'ftp://x', serviceUrl: 'nope', platform: 'Ethereum!', network: 'sepolia' });
    expect(Object.keys(e).sort()).toEqual(['nodeUrl', 'platform', 'serviceUrl']);
    expect(Object.values(e).join(' ')).not.toMatch(/[/^$]\[|regex|pattern/);
    expect(checkNetwork({ nodeUrl: 'wss://n.example', serviceUrl: 'https://s.example', platform: 'ethereum', network: 'sepolia' })).toEqual(
      {},
    );
  });

  it('maps a refusal of the core to the field, without validator text', () => {
    // The core's own sentences, from its validating face.
    const refusal = (patch: unknown) => coreRefusal('updateSettings', [patch]);
    const r = apiErrorToFields(refusal({ platform: 'Ethereum!' }), ['platform', 'network']);
    expect(Object.keys(r.fields)).toEqual(['platform']);
    expect(r.fields.platform).toMatch(/lowercase letters, digits and dashes/);
    expect(r.form).toBeNull();
    const policy = apiErrorToFields(refusal({ policy: { bumpPercent: 5 } }), ['bumpPercent']);
    expect(Object.keys(policy.fields)).toEqual(['bumpPercent']);
    const other = apiErrorToFields({ code: 'UPSTREAM_UNAVAILABLE', message: 'The data service could not be reached; retry.' }, [
      'clientId',
    ]);
    expect(other).toEqual({ fields: {}, form: 'The data service could not be reached; retry.' });
    expect(plain('network: Invalid string: must match pattern /^[a-z0-9-]{1,40}$/')).toBe('network: is not in the expected form');
  });

  it('marks every invalid policy field at once', () => {
    const r = parsePolicyForm({
      pricing: 'seed',
      speed: 'normal',
      txType: 'legacy',
      initialFee: '0',
      bumpPercent: '5',
      maxFee: 'x',
      maxReplacements: '1.5',
      timeoutSeconds: '0',
      confirmations: '0',
    });
    expect('errors' in r && Object.keys(r.errors).sort()).toEqual([
      'bumpPercent',
      'confirmations',
      'initialFee',
      'maxFee',
      'maxReplacements',
      'timeoutSeconds',
    ]);
    const ok = parsePolicyForm({
      pricing: 'market',
      speed: 'fast',
      txType: 'eip1559',
      initialFee: '1',
      bumpPercent: '12.5',
      maxFee: '50',
      maxReplacements: '3',
      timeoutSeconds: '10',
      confirmations: '2',
    });
    expect(ok).toEqual({
      patch: {
        pricing: 'market',
        speed: 'fast',
        txType: 'eip1559',
        initialFeeWei: '1000000000',
        bumpPercent: 12.5,
        maxFeeWei: '50000000000',
        maxReplacements: 3,
        timeoutMs: 10000,
        confirmations: 2,
      },
    });
  });
});

describe('one way to write fees, ages and explorer links', () => {
  it.each([
    ['1800000000', '1.8 gwei'],
    ['1800000001', '1.8 gwei'],
    ['1265625000', '1.2656 gwei'],
    ['1000000000', '1 gwei'],
    ['7', '7 wei'],
    ['99999', '99999 wei'],
    ['1234000000000', '1,234 gwei'],
  ])('formatFee(%s) = %s', (wei, text) => expect(formatFee(wei)).toBe(text));

  it('writes a fee the one way the core writes it in its sentences (shared/fee-words.ts)', () => {
    for (const wei of ['1800000001', '1265625000', '7', '1234000000000']) expect(formatFee(wei)).toBe(formatGwei(BigInt(wei)));
  });

  it('writes ages in the largest whole unit, and the full date with its zone', () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    expect([5_000, 190_000, 3 * 3600_000, 50 * 3600_000].map((ms) => formatAge(new Date(now - ms).toISOString(), now))).toEqual([
      '5 s',
      '3 min',
      '3 h',
      '2 days',
    ]);
    expect(formatFullDate('2026-01-01T12:00:00.000Z', 'UTC')).toBe('1 Jan 2026, 12:00:00 UTC');
  });

  it('links to an explorer only where there is a known one', () => {
    expect(explorerUrl(1, 'tx', '0xab')).toBe('https://etherscan.io/tx/0xab');
    expect(explorerUrl(11155111, 'address', '0xcd')).toBe('https://sepolia.etherscan.io/address/0xcd');
    expect(explorerUrl(31337, 'tx', '0xab')).toBeNull();
    expect(explorerUrl(undefined, 'tx', '0xab')).toBeNull();
  });
});
