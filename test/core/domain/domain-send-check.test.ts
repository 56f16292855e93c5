// The checks before signing, as data: revert data decoded against ethers' own encoding (every Error string, every
// panic code, any custom error), the sentences, the funds shortfall at the fee cap, and a first attempt at the fees a
// tool gave.
import { AbiCoder, id } from 'ethers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeRevert, describeRevert, PANIC_MEANINGS } from '../../../src/core/domain/revert.js';
import { describeNews, describeRequestRefusal } from '../../../src/core/domain/describe.js';
import { isRevertAnswer } from '../../../src/lib/json-rpc.js';
import { firstAttemptFees, fundsShortfall } from '../../../src/core/domain/send-check.js';

const abi = AbiCoder.defaultAbiCoder();
const errorData = (message: string) => `0x08c379a0${abi.encode(['string'], [message]).slice(2)}`;
const panicData = (code: bigint) => `0x4e487b71${abi.encode(['uint256'], [code]).slice(2)}`;

describe('decodeRevert', () => {
  it('reads any Error(string) as ethers encodes it', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (m) => {
        expect(decodeRevert(errorData(m))).toEqual({ kind: 'error', message: m });
      }),
    );
  });

  it('reads any Panic(uint256), and names the known codes', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }), (c) => {
        expect(decodeRevert(panicData(c))).toEqual({ kind: 'panic', code: c });
      }),
    );
    for (const [code, meaning] of Object.entries(PANIC_MEANINGS))
      expect(describeRevert(decodeRevert(panicData(BigInt(code))))).toContain(meaning);
    expect(describeRevert({ kind: 'panic', code: 0x99n })).toContain('Panic(0x99): an unknown panic code');
  });

  it('gives a custom error by its selector, and nothing for no data', () => {
    const selector = id('NotAllowed(address)').slice(0, 10);
    const data = `${selector}${abi.encode(['address'], ['0x' + '1'.repeat(40)]).slice(2)}`;
    expect(decodeRevert(data)).toEqual({ kind: 'custom', selector, data });
    expect(describeRevert(decodeRevert(data))).toContain(`custom error ${selector}`);
    for (const none of [undefined, null, '0x', '0x1234', 'nope', 42]) expect(decodeRevert(none)).toEqual({ kind: 'none' });
    expect(describeRevert({ kind: 'none' }, 'execution reverted')).toContain('"execution reverted"');
  });

  it('treats a truncated Error(string) as a custom error rather than inventing text', () => {
    const whole = errorData('hello');
    expect(decodeRevert(whole.slice(0, whole.length - 64)).kind).toBe('custom');
  });

  it('tells a revert answer by code 3 or its wording', () => {
    expect(isRevertAnswer({ code: 3, message: 'anything' })).toBe(true);
    expect(isRevertAnswer({ code: -32000, message: 'execution reverted: no' })).toBe(true);
    expect(isRevertAnswer({ code: -32000, message: 'insufficient funds for gas * price + value' })).toBe(false);
  });
});

describe('fundsShortfall', () => {
  const base = { from: '0x' + 'a'.repeat(40), gasLimit: 21_000n, capWei: 10n ** 9n };
  it('is what value plus the gas limit at the cap needs beyond the balance, or null', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 24n }),
        fc.bigInt({ min: 0n, max: 10n ** 24n }),
        fc.bigInt({ min: 21_000n, max: 30_000_000n }),
        (balanceWei, valueWei, gasLimit) => {
          const f = { ...base, balanceWei, valueWei, gasLimit };
          const need = valueWei + gasLimit * base.capWei;
          expect(fundsShortfall(f)).toBe(balanceWei >= need ? null : need - balanceWei);
        },
      ),
    );
  });

  it('says how much to add', () => {
    const f = { ...base, balanceWei: 10n ** 18n, valueWei: 10n ** 18n };
    expect(describeRequestRefusal({ code: 'funds', ...f, missingWei: fundsShortfall(f)! })).toContain('add 0.000021 ETH');
  });
});

describe('firstAttemptFees with the fees a tool gave', () => {
  const policy = {
    pricing: 'seed',
    speed: 'normal',
    txType: 'legacy',
    initialFeeWei: '1000000000',
    bumpPercent: 12.5,
    maxFeeWei: '200000000000',
    maxReplacements: 10,
    timeoutMs: 10_000,
    confirmations: 1,
  } as const;
  const wei = fc.bigInt({ min: 0n, max: 300_000_000_000n });
  const net = fc.record({ baseFeeWei: fc.option(wei, { nil: null }), gasPriceWei: wei, priorityFeeWei: wei });

  it('uses them as given, raised only to the base fee, and refuses them above the cap naming it', () => {
    fc.assert(
      fc.property(
        net,
        fc.oneof(
          fc.record({ gasPrice: wei }),
          fc.record({ maxFeePerGas: fc.option(wei, { nil: undefined }), maxPriorityFeePerGas: fc.option(wei, { nil: undefined }) }),
        ),
        (n, given) => {
          const out = firstAttemptFees(policy, n, given);
          const base = n.baseFeeWei ?? 0n;
          if ('code' in out) {
            expect(out.code === 'given-fee-above-cap' || out.code === 'price-above-cap').toBe(true);
            expect(out).toMatchObject({ capWei: 200_000_000_000n });
            expect((out as { feeWei: bigint }).feeWei > 200_000_000_000n).toBe(true);
            expect(describeRequestRefusal(out)).toMatch(/fee cap of 200 gwei/);
            return;
          }
          const { fees } = out;
          if ('gasPrice' in given) {
            expect(fees).toEqual({ txType: 'legacy', gasPrice: given.gasPrice > base ? given.gasPrice : base });
            return;
          }
          expect(fees.txType).toBe('eip1559');
          if (fees.txType !== 'eip1559') return;
          // Never below what a node accepts, never a tip above the max fee, and a given max fee kept unless below the base.
          expect(fees.maxFeePerGas >= base).toBe(true);
          expect(fees.maxPriorityFeePerGas <= fees.maxFeePerGas).toBe(true);
          if (given.maxFeePerGas !== undefined) expect(fees.maxFeePerGas).toBe(given.maxFeePerGas > base ? given.maxFeePerGas : base);
          else expect(fees.maxFeePerGas).toBe(maxOf(2n * base + (given.maxPriorityFeePerGas ?? n.priorityFeeWei), base));
          if (given.maxPriorityFeePerGas !== undefined && given.maxPriorityFeePerGas <= fees.maxFeePerGas)
            expect(fees.maxPriorityFeePerGas).toBe(given.maxPriorityFeePerGas);
        },
      ),
    );
  });

  it("without given fees prices as the policy does; the 'signed' sentence says whose fee it was", () => {
    const n = { baseFeeWei: 100_000_000n, gasPriceWei: 1_100_000_000n, priorityFeeWei: 1_000_000_000n };
    expect(firstAttemptFees(policy, n)).toEqual({ fees: { txType: 'legacy', gasPrice: 1_000_000_000n }, raisedFromWei: null });
    expect(firstAttemptFees(policy, n, { gasPrice: 50_000_000n })).toEqual({
      fees: { txType: 'legacy', gasPrice: 100_000_000n },
      raisedFromWei: 50_000_000n,
    });
    expect(describeNews({ code: 'signed', nonce: 3, feeWei: 1_500_000_000n, raisedFromWei: null, given: true })).toBe(
      'Signed nonce 3 at 1.5 gwei, the fee the request gave.',
    );
  });
});

const maxOf = (a: bigint, b: bigint) => (a > b ? a : b);
