// Table-driven tests of the fee arithmetic and the replacement decision.
import { describe, expect, it } from 'vitest';
import { formatGwei } from '../../../src/shared/fee-words.js';
import { bumpWei, initialFees, replacementFees, type FeeFields, type NetworkFees } from '../../../src/core/domain/fees.js';
import { describeReplacement, describeSkip } from '../../../src/core/domain/describe.js';
import { decideReplacement } from '../../../src/core/domain/replacement.js';
import { GWEI, hashOf, policy, rec } from '../../support/app/core-records.js';

const quiet: NetworkFees = { baseFeeWei: 7n, gasPriceWei: 1n, priorityFeeWei: 1n };

describe('bumpWei', () => {
  const rows: [bigint, number, bigint][] = [
    [GWEI, 12.5, 1_125_000_000n],
    [1_125_000_000n, 12.5, 1_265_625_000n],
    [0n, 12.5, 1n], // +1 wei even from nothing
    [1n, 12.5, 2n], // rounding up would give 2 anyway; never equal
    [7n, 12.5, 8n], // 7.875 -> 8
    [8n, 12.5, 9n],
    [100n, 50, 150n],
    [100n, 5, 113n], // below 12.5% is raised to 12.5%: 112.5 -> 113
    [3n, 100, 6n],
  ];
  it.each(rows)('bump(%s, %s%%) = %s', (v, p, want) => {
    const got = bumpWei(v, p);
    expect(got).toBe(want);
    expect(got).toBeGreaterThan(v);
    expect(got * 1000n).toBeGreaterThanOrEqual(v * 1125n);
  });
});

describe('initialFees', () => {
  const rows: { name: string; type: FeeFields['txType']; fee: bigint; net: NetworkFees; want: FeeFields; raised: boolean }[] = [
    { name: 'legacy at 1 gwei', type: 'legacy', fee: GWEI, net: quiet, want: { txType: 'legacy', gasPrice: GWEI }, raised: false },
    {
      name: 'legacy raised to base fee',
      type: 'legacy',
      fee: GWEI,
      net: { ...quiet, baseFeeWei: 3n * GWEI },
      want: { txType: 'legacy', gasPrice: 3n * GWEI },
      raised: true,
    },
    {
      name: 'legacy, chain without base fee',
      type: 'legacy',
      fee: GWEI,
      net: { ...quiet, baseFeeWei: null },
      want: { txType: 'legacy', gasPrice: GWEI },
      raised: false,
    },
    {
      name: 'eip1559 at 1 gwei',
      type: 'eip1559',
      fee: GWEI,
      net: quiet,
      want: { txType: 'eip1559', maxFeePerGas: GWEI, maxPriorityFeePerGas: GWEI },
      raised: false,
    },
    {
      name: 'eip1559 raised to base fee keeps the tip',
      type: 'eip1559',
      fee: GWEI,
      net: { ...quiet, baseFeeWei: 2n * GWEI },
      want: { txType: 'eip1559', maxFeePerGas: 2n * GWEI, maxPriorityFeePerGas: GWEI },
      raised: true,
    },
  ];
  it.each(rows)('$name', ({ type, fee, net, want, raised }) => {
    expect(initialFees(type, fee, net)).toEqual({ fees: want, raisedToBaseFee: raised });
  });
});

describe('replacementFees', () => {
  const rows: { name: string; prev: FeeFields; net: NetworkFees; want: FeeFields }[] = [
    { name: 'legacy +12.5%', prev: { txType: 'legacy', gasPrice: GWEI }, net: quiet, want: { txType: 'legacy', gasPrice: 1_125_000_000n } },
    {
      name: 'legacy lifted just above eth_gasPrice',
      prev: { txType: 'legacy', gasPrice: GWEI },
      net: { ...quiet, gasPriceWei: 40n * GWEI },
      want: { txType: 'legacy', gasPrice: 40n * GWEI + 1n },
    },
    {
      name: 'legacy lifted to base fee',
      prev: { txType: 'legacy', gasPrice: GWEI },
      net: { ...quiet, baseFeeWei: 5n * GWEI },
      want: { txType: 'legacy', gasPrice: 5n * GWEI },
    },
    {
      name: 'legacy from 0 wei',
      prev: { txType: 'legacy', gasPrice: 0n },
      net: { baseFeeWei: 0n, gasPriceWei: 0n, priorityFeeWei: 0n },
      want: { txType: 'legacy', gasPrice: 1n },
    },
    {
      name: 'eip1559 bumps both fields',
      prev: { txType: 'eip1559', maxFeePerGas: 2n * GWEI, maxPriorityFeePerGas: GWEI },
      net: { baseFeeWei: 7n, gasPriceWei: GWEI, priorityFeeWei: 1n },
      want: { txType: 'eip1559', maxFeePerGas: 2_250_000_000n, maxPriorityFeePerGas: 1_125_000_000n },
    },
    {
      name: 'eip1559 tip lifted just above the suggested tip, max fee to base + tip',
      prev: { txType: 'eip1559', maxFeePerGas: GWEI, maxPriorityFeePerGas: GWEI },
      net: { baseFeeWei: 3n * GWEI, gasPriceWei: 5n * GWEI, priorityFeeWei: 2n * GWEI },
      want: { txType: 'eip1559', maxFeePerGas: 5n * GWEI + 1n, maxPriorityFeePerGas: 2n * GWEI + 1n },
    },
    {
      name: 'eip1559 tiny fees still rise by 1 wei each',
      prev: { txType: 'eip1559', maxFeePerGas: 1n, maxPriorityFeePerGas: 0n },
      net: { baseFeeWei: 0n, gasPriceWei: 0n, priorityFeeWei: 0n },
      want: { txType: 'eip1559', maxFeePerGas: 2n, maxPriorityFeePerGas: 1n },
    },
  ];
  it.each(rows)('$name', ({ prev, net, want }) => {
    const got = replacementFees(prev, net, 12.5);
    expect(got).toEqual(want);
    if (got.txType === 'legacy' && prev.txType === 'legacy') expect(got.gasPrice * 1000n).toBeGreaterThanOrEqual(prev.gasPrice * 1125n);
    if (got.txType === 'eip1559' && prev.txType === 'eip1559') {
      expect(got.maxFeePerGas * 1000n).toBeGreaterThanOrEqual(prev.maxFeePerGas * 1125n);
      expect(got.maxPriorityFeePerGas * 1000n).toBeGreaterThanOrEqual(prev.maxPriorityFeePerGas * 1125n);
      expect(got.maxFeePerGas).toBeGreaterThanOrEqual(got.maxPriorityFeePerGas);
    }
  });
});

describe('decideReplacement', () => {
  const stuck = rec({ n: 1, status: 'pending' });
  const rows: {
    name: string;
    tx: ReturnType<typeof rec>;
    same: ReturnType<typeof rec>[];
    net?: NetworkFees;
    pol?: Parameters<typeof policy>[0];
    want: string;
    gasPrice?: bigint;
    attempt?: number;
  }[] = [
    { name: 'first pending: replace at +12.5%', tx: stuck, same: [], want: 'replace', gasPrice: 1_125_000_000n, attempt: 1 },
    { name: 'record with no status yet (called before the transition): replace', tx: rec({ n: 1 }), same: [], want: 'replace', attempt: 1 },
    { name: 'already mined itself', tx: rec({ n: 1, status: 'receipt' }), same: [], want: 'not-stuck' },
    { name: 'already replaced', tx: rec({ n: 1, status: 'replaced' }), same: [], want: 'not-stuck' },
    { name: 'a sibling has a receipt', tx: stuck, same: [rec({ n: 2, attempt: 1, status: 'receipt' })], want: 'nonce-mined' },
    { name: 'a sibling is confirmed', tx: stuck, same: [rec({ n: 2, attempt: 1, status: 'confirmation' })], want: 'nonce-mined' },
    {
      name: 'an older attempt went pending after the newer was sent',
      tx: rec({ n: 1, status: 'pending', replacedBy: hashOf(2) }),
      same: [rec({ n: 2, attempt: 1 })],
      want: 'superseded',
    },
    { name: 'a newer attempt exists without a link', tx: stuck, same: [rec({ n: 2, attempt: 1 })], want: 'superseded' },
    { name: 'replacement limit reached', tx: rec({ n: 3, status: 'pending', attempt: 5 }), same: [], want: 'max-replacements' },
    { name: 'limit 0 disables replacement', tx: stuck, same: [], pol: { maxReplacements: 0 }, want: 'max-replacements' },
    {
      name: 'last allowed attempt',
      tx: rec({ n: 3, status: 'pending', attempt: 4, gasPrice: String(2n * GWEI) }),
      same: [],
      want: 'replace',
      gasPrice: 2_250_000_000n,
      attempt: 5,
    },
    { name: 'cap below the minimal bump', tx: stuck, same: [], pol: { maxFeeWei: String(1_100_000_000n) }, want: 'cap' },
    {
      name: 'cap exactly at the minimal bump',
      tx: stuck,
      same: [],
      pol: { maxFeeWei: String(1_125_000_000n) },
      want: 'replace',
      gasPrice: 1_125_000_000n,
    },
    { name: 'network price above the cap', tx: stuck, same: [], net: { ...quiet, gasPriceWei: 900n * GWEI }, want: 'cap' },
    {
      name: 'network price outbid by 1 wei',
      tx: stuck,
      same: [],
      net: { ...quiet, gasPriceWei: 30n * GWEI },
      want: 'replace',
      gasPrice: 30n * GWEI + 1n,
    },
    { name: 'bigger bump percent', tx: stuck, same: [], pol: { bumpPercent: 50 }, want: 'replace', gasPrice: 1_500_000_000n },
    {
      name: 'eip1559 record: max fee >= base fee + bumped tip',
      tx: rec({ n: 1, status: 'pending', txType: 'eip1559', maxPriorityFeePerGas: String(GWEI) }),
      same: [],
      want: 'replace',
      gasPrice: 1_125_000_007n,
    },
    {
      name: 'eip1559 cap applies to max fee',
      tx: rec({ n: 1, status: 'pending', txType: 'eip1559', maxPriorityFeePerGas: String(GWEI) }),
      same: [],
      pol: { maxFeeWei: String(GWEI) },
      want: 'cap',
    },
  ];
  it.each(rows)('$name', ({ tx, same, net, pol, want, gasPrice, attempt }) => {
    const d = decideReplacement(tx, same, net ?? quiet, policy(pol));
    if (d.action === 'replace') {
      expect('replace').toBe(want);
      const fee = d.fees.txType === 'legacy' ? d.fees.gasPrice : d.fees.maxFeePerGas;
      if (gasPrice !== undefined) expect(fee).toBe(gasPrice);
      if (attempt !== undefined) expect(d.attempt).toBe(attempt);
      expect(fee).toBeLessThanOrEqual(BigInt(policy(pol).maxFeeWei));
      expect(describeReplacement(d, tx.transactionHash, 'stuck')).toMatch(/^Replacing at/);
    } else {
      expect(d.reason).toBe(want);
      expect(describeSkip(d)).toMatch(/^Not replaced/);
    }
  });
});

describe('formatGwei', () => {
  it.each([
    [GWEI, '1 gwei'],
    [1_265_625_000n, '1.2656 gwei'],
    [1n, '1 wei'],
    [50n * GWEI, '50 gwei'],
    [1_800_000_001n, '1.8 gwei'],
    [1_000_000_001n, '1 gwei'],
    [1_234n * GWEI, '1,234 gwei'],
    [999_999_999_999n, '999.9999 gwei'],
  ] as const)('%s -> %s', (w, s) => expect(formatGwei(w)).toBe(s));
});
