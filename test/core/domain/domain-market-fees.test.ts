// The market fee policy over fee histories (fast-check): rising, falling and spiking base fees, empty blocks, chains
// without a base fee. A first attempt pays what recent blocks included at its speed and leaves room for the base fee;
// a transaction is stuck only when blocks that included higher tips went by, or the base fee passed its max fee; a
// replacement goes to the market's price and never below the node's bump.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeStuck } from '../../../src/core/domain/describe.js';
import { bumpWei, type FeeFields, type NetworkFees } from '../../../src/core/domain/fees.js';
import {
  baseFeeAfter,
  effectiveTip,
  FULL_RATIO,
  HEADROOM_BLOCKS,
  RECENT_BUSY_BLOCKS,
  marketFees,
  marketQuote,
  marketReplacementFees,
  marketStuck,
  parseFeeHistory,
  STUCK_AFTER_BLOCKS,
  type FeeHistory,
} from '../../../src/core/domain/market-fees.js';
import { SPEEDS } from '../../../src/shared/tx-request.js';

const GWEI = 1_000_000_000n;
const gwei = (n: number) => BigInt(Math.round(n * 1e9));
const net: NetworkFees = { baseFeeWei: GWEI, gasPriceWei: 2n * GWEI, priorityFeeWei: GWEI };

/** A block: its base fee, how full, and the tips it included at the 1st/10th/50th/90th percentile (ascending). */
const block = fc.record({
  base: fc.bigInt({ min: 1n, max: 500n * GWEI }),
  full: fc.oneof(fc.constant(0), fc.double({ min: 0.01, max: 1, noNaN: true })),
  tips: fc
    .array(fc.bigInt({ min: 0n, max: 50n * GWEI }), { minLength: 4, maxLength: 4 })
    .map((t) => t.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))),
});
/** A history of 1-12 blocks: any shape of base fee (rising, falling, spiking), empty blocks reporting zero tips. */
const history: fc.Arbitrary<FeeHistory> = fc.array(block, { minLength: 1, maxLength: 12 }).chain((blocks) =>
  fc.bigInt({ min: 1n, max: 500n * GWEI }).map((next) => ({
    oldestBlock: 100,
    baseFees: [...blocks.map((b) => b.base), next],
    gasUsedRatio: blocks.map((b) => b.full),
    rewards: blocks.map((b) => (b.full === 0 ? [0n, 0n, 0n, 0n] : b.tips)),
  })),
);
const speed = fc.constantFrom(...SPEEDS);
const fees: fc.Arbitrary<FeeFields> = fc.oneof(
  fc.record({ txType: fc.constant('legacy' as const), gasPrice: fc.bigInt({ min: 1n, max: 600n * GWEI }) }),
  fc.record({ maxFeePerGas: fc.bigInt({ min: 1n, max: 600n * GWEI }), tip: fc.bigInt({ min: 0n, max: 60n * GWEI }) }).map(
    ({ maxFeePerGas, tip }): FeeFields => ({
      txType: 'eip1559',
      maxFeePerGas,
      maxPriorityFeePerGas: tip < maxFeePerGas ? tip : maxFeePerGas,
    }),
  ),
);

describe('the market price of a first attempt', () => {
  it(
    "pays what the last busy blocks included at its speed's percentile (lower when they had room, at least the newest full " +
      "block's) and leaves the speed's room over the next base fee",
    () => {
      fc.assert(
        fc.property(history, speed, (h, s) => {
          const q = marketQuote(h, net, s);
          const fees = marketFees(q, net);
          const next = h.baseFees!.at(-1)!;
          expect(q.baseFeeWei).toBe(next);
          expect(fees).toEqual({
            txType: 'eip1559',
            maxFeePerGas: baseFeeAfter(next, HEADROOM_BLOCKS[s]) + q.tipWei,
            maxPriorityFeePerGas: q.tipWei,
          });
          // It can enter the next block, and stays able to for the blocks of room it was given.
          expect(effectiveTip(fees, baseFeeAfter(next, HEADROOM_BLOCKS[s]))).toBe(q.tipWei);
          const busy = h.gasUsedRatio.flatMap((r, i) => (r > 0 ? [{ r, tips: h.rewards[i]! }] : [])).slice(-RECENT_BUSY_BLOCKS);
          if (busy.length === 0) {
            expect(q.tipWei).toBe(net.priorityFeeWei);
            return;
          }
          const contested = busy.filter((b) => b.r >= FULL_RATIO).length * 2 > busy.length;
          const index = contested ? { slow: 0, normal: 1, fast: 2 }[s] : { slow: 0, normal: 0, fast: 1 }[s];
          const column = busy.map((b) => b.tips[index]!);
          const sorted = [...column].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
          const med = sorted[Math.floor((sorted.length - 1) / 2)]!;
          const newest = busy.at(-1)!;
          const expected = newest.r >= FULL_RATIO && newest.tips[index]! > med ? newest.tips[index]! : med;
          expect(q.tipWei).toBe(expected);
        }),
      );
    },
  );

  it('asks more the faster it is asked to be mined', () => {
    fc.assert(
      fc.property(history, (h) => {
        const [slow, normal, fast] = SPEEDS.map((s) => marketFees(marketQuote(h, net, s), net)) as [FeeFields, FeeFields, FeeFields];
        const tip = (f: FeeFields) => (f.txType === 'eip1559' ? f.maxPriorityFeePerGas : f.gasPrice);
        expect(tip(slow) <= tip(normal) && tip(normal) <= tip(fast)).toBe(true);
      }),
    );
  });

  it('prices a chain without a base fee from eth_gasPrice, legacy', () => {
    const h = parseFeeHistory({
      oldestBlock: '0x1',
      baseFeePerGas: ['0x0', '0x0'],
      gasUsedRatio: [0.5],
      reward: [['0x1', '0x2', '0x3', '0x4']],
    });
    expect(h.baseFees).toBeNull();
    const legacyNet = { baseFeeWei: null, gasPriceWei: 10n * GWEI, priorityFeeWei: 0n };
    expect(marketFees(marketQuote(h, legacyNet, 'normal'), legacyNet)).toEqual({ txType: 'legacy', gasPrice: 11n * GWEI });
    expect(marketFees(marketQuote(h, legacyNet, 'slow'), legacyNet)).toEqual({ txType: 'legacy', gasPrice: 10n * GWEI });
  });
});

describe('stuck as a market fact', () => {
  it('is stuck exactly when the base fee passed its max fee, or enough full blocks included only higher tips', () => {
    fc.assert(
      fc.property(fees, history, (f, h) => {
        const v = marketStuck(f, h);
        const next = h.baseFees!.at(-1)!;
        const offered = effectiveTip(f, next);
        const busy = h.gasUsedRatio.flatMap((r, i) => (r >= FULL_RATIO ? [h.rewards[i]![0]!] : []));
        if (offered === null) {
          expect(v).toMatchObject({ stuck: true, reason: 'base-fee-above-max' });
          return;
        }
        const least = busy.length ? busy.reduce((a, b) => (b < a ? b : a)) : null;
        const outbid =
          h.gasUsedRatio.length >= STUCK_AFTER_BLOCKS && busy.length >= STUCK_AFTER_BLOCKS && least !== null && offered < least;
        expect(v.stuck).toBe(outbid);
        if (v.stuck) expect(describeStuck(v)).toMatch(/included tips of .* and more; this one offers/);
      }),
    );
  });

  it('one block without it is chance; empty blocks and blocks with room say nothing', () => {
    const f: FeeFields = { txType: 'eip1559', maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI };
    const one = { oldestBlock: 1, baseFees: [GWEI, GWEI], gasUsedRatio: [1], rewards: [[5n * GWEI, 5n * GWEI, 6n * GWEI, 7n * GWEI]] };
    expect(marketStuck(f, one).stuck).toBe(false);
    const empty = {
      oldestBlock: 1,
      baseFees: [GWEI, GWEI, GWEI, GWEI],
      gasUsedRatio: [0, 0, 0],
      rewards: [
        [0n, 0n, 0n, 0n],
        [0n, 0n, 0n, 0n],
        [0n, 0n, 0n, 0n],
      ],
    };
    expect(marketStuck(f, empty).stuck).toBe(false);
    const roomy = {
      oldestBlock: 1,
      baseFees: [GWEI, GWEI, GWEI],
      gasUsedRatio: [0.5, 0.6],
      rewards: [
        [5n * GWEI, 5n * GWEI, 6n * GWEI, 7n * GWEI],
        [5n * GWEI, 5n * GWEI, 6n * GWEI, 7n * GWEI],
      ],
    };
    expect(marketStuck(f, roomy).stuck).toBe(false);
    const outbid = {
      oldestBlock: 1,
      baseFees: [GWEI, GWEI, GWEI],
      gasUsedRatio: [1, 0.95],
      rewards: [
        [gwei(2.1), gwei(2.2), 3n * GWEI, 4n * GWEI],
        [gwei(2.5), gwei(2.6), 3n * GWEI, 4n * GWEI],
      ],
    };
    const v = marketStuck(f, outbid);
    expect(v).toEqual({ stuck: true, reason: 'outbid', blocks: 2, includedTipWei: gwei(2.1), offeredTipWei: GWEI });
    expect(describeStuck(v as Extract<typeof v, { stuck: true }>)).toBe(
      'the last 2 blocks included tips of 2.1 gwei and more; this one offers 1 gwei',
    );
  });
});

describe('a replacement under the market policy', () => {
  it("goes to the market's price for its speed, never below the node's bump, keeping its type", () => {
    fc.assert(
      fc.property(fees, history, speed, (prev, h, s) => {
        const q = marketQuote(h, net, s);
        const next = marketReplacementFees(prev, q, net, 12.5);
        expect(next.txType).toBe(prev.txType);
        if (prev.txType === 'legacy' && next.txType === 'legacy') {
          expect(next.gasPrice >= bumpWei(prev.gasPrice, 12.5)).toBe(true);
          expect(next.gasPrice >= baseFeeAfter(q.baseFeeWei!, 1) + q.tipWei).toBe(true);
        } else if (prev.txType === 'eip1559' && next.txType === 'eip1559') {
          expect(next.maxPriorityFeePerGas >= bumpWei(prev.maxPriorityFeePerGas, 12.5)).toBe(true);
          expect(next.maxFeePerGas >= bumpWei(prev.maxFeePerGas, 12.5)).toBe(true);
          expect(next.maxPriorityFeePerGas >= q.tipWei && next.maxPriorityFeePerGas <= next.maxFeePerGas).toBe(true);
          // After it, the transaction is no longer outbid in the blocks it was judged over.
          expect(effectiveTip(next, q.baseFeeWei!)).not.toBeNull();
        }
      }),
    );
  });
});
