// The one way the renderer writes an ETH amount (balances, the Send form's hint and button, what a nonce sends): the
// unit by size so nothing is a row of zeros, four significant decimals rounded toward zero for balances, every digit
// for an amount sent; and the text Max puts in the amount field reads back to the same wei.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseEtherToWei, weiToEtherInput } from '../../src/renderer/src/lib/eth-amount.js';
import { formatEthAmount } from '../../src/renderer/src/lib/format.js';

const ETH = 10n ** 18n;

describe('formatEthAmount', () => {
  it.each<[string, bigint, string, string]>([
    ['nothing', 0n, '0 ETH', '0 ETH'],
    ['1 wei', 1n, '1 wei', '1 wei'],
    ['just under the gwei line', 99_999n, '99,999 wei', '99,999 wei'],
    ['a fraction of a gwei', 1_500_000n, '0.0015 gwei', '0.0015 gwei'],
    ['1 gwei', 10n ** 9n, '1 gwei', '1 gwei'],
    ['many decimals of gwei', 1_234_567_891_234n, '1,234.5678 gwei', '1,234.567891234 gwei'],
    ['just under 0.00001 ETH', 10n ** 13n - 1n, '9,999.9999 gwei', '9,999.999999999 gwei'],
    ['0.00001 ETH', 10n ** 13n, '0.00001 ETH', '0.00001 ETH'],
    ['a fee of 21,000 gas at 1 gwei', 21_000n * 10n ** 9n, '0.000021 ETH', '0.000021 ETH'],
    ['four significant decimals below 1', 12_345_678_900_000_000n, '0.01234 ETH', '0.0123456789 ETH'],
    ['0.125', ETH / 8n, '0.125 ETH', '0.125 ETH'],
    ['a balance after gas, rounded down', 99n * ETH + 989_499_999_999_999_999n, '99.9894 ETH', '99.989499999999999999 ETH'],
    ['a million', 1_000_000n * ETH, '1,000,000 ETH', '1,000,000 ETH'],
  ])('%s', (_name, wei, short, exact) => {
    expect(formatEthAmount(wei)).toBe(short);
    expect(formatEthAmount(wei.toString(), 'exact')).toBe(exact);
  });

  it('says nothing for what is not an amount', () => {
    expect(formatEthAmount(null)).toBe('—');
    expect(formatEthAmount('abc')).toBe('—');
  });

  it('never reads larger than the amount (short), and reads exactly the amount (exact)', () => {
    const toWei = (text: string): bigint => {
      const [n, unit] = text.replace(/,/g, '').split(' ') as [string, string];
      const [whole = '0', frac = ''] = n.split('.');
      const decimals = unit === 'ETH' ? 18 : unit === 'gwei' ? 9 : 0;
      return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
    };
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 27n }), (wei) => {
        expect(toWei(formatEthAmount(wei))).toBeLessThanOrEqual(wei);
        expect(toWei(formatEthAmount(wei, 'exact'))).toBe(wei);
      }),
    );
  });
});

describe('weiToEtherInput: what Max fills in', () => {
  it('reads back to the same wei, without thousands separators', () => {
    expect(weiToEtherInput(1234n * ETH + 5n)).toBe('1234.000000000000000005');
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), (wei) => {
        expect(parseEtherToWei(weiToEtherInput(wei))).toEqual({ ok: true, wei: wei.toString() });
      }),
    );
  });
});
