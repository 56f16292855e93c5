// The `market` congestion policy as pure functions: EIP-1559's base fee rule, the phase schedule, the seeded demand per
// phase, and a simulated market over whole cycles.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DEFAULT_MARKET_SCHEDULE,
  DEFAULT_MARKET_SEED,
  MARKET_LOAD_LIFETIME_BLOCKS,
  MARKET_PROFILES,
  MARKET_START_BASE_FEE_WEI,
  MARKET_TX_GAS,
  MAX_MARKET_SEED,
  blockSeed,
  checkSchedule,
  marketBids,
  marketDemand,
  marketSeed,
  nextBaseFee,
  phaseAt,
  type MarketSchedule,
  type MarketUser,
} from '../../src/devchain/congestion-market.js';
import { DEFAULT_BLOCK_GAS_LIMIT } from '../../src/devchain/anvil-process.js';
import { marketPhases, type MarketPhase } from '../../src/shared/desktop-api.js';

const GWEI = 1_000_000_000n;
const LIMIT = DEFAULT_BLOCK_GAS_LIMIT;
const TARGET = BigInt(LIMIT / 2);
const gwei = (wei: bigint) => Number(wei) / 1e9;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** EIP-1559's pseudo-code, transcribed on its own, to hold nextBaseFee against. */
function specBaseFee(parentBase: bigint, parentGasUsed: bigint, parentGasTarget: bigint): bigint {
  if (parentGasUsed === parentGasTarget) return parentBase;
  if (parentGasUsed > parentGasTarget) {
    const gasUsedDelta = parentGasUsed - parentGasTarget;
    const baseFeeDelta = (parentBase * gasUsedDelta) / parentGasTarget / 8n;
    return parentBase + (baseFeeDelta > 1n ? baseFeeDelta : 1n);
  }
  const gasUsedDelta = parentGasTarget - parentGasUsed;
  return parentBase - (parentBase * gasUsedDelta) / parentGasTarget / 8n;
}

describe('nextBaseFee', () => {
  // The last rows were read from anvil 1.7.1 (--order fees, 6M gas limit, base fee not set by hand).
  it.each([
    ['at the target', 10n * GWEI, 3_000_000n, 10n * GWEI],
    ['a full block: +12.5%', 8n * GWEI, 6_000_000n, 9n * GWEI],
    ['an empty block: -12.5%', 8n * GWEI, 0n, 7n * GWEI],
    ['a quarter full: -6.25%', 16n * GWEI, 1_500_000n, 15n * GWEI],
    ['one gas over the target on a tiny base fee: +1 wei at least', 7n, 3_000_001n, 8n],
    ['anvil: empty after 1 gwei', GWEI, 0n, 875_000_000n],
    ['anvil: full after 0.875 gwei', 875_000_000n, 6_000_000n, 984_375_000n],
    ['anvil: full after 1.107421875 gwei', 1_107_421_875n, 6_000_000n, 1_245_849_609n],
    ['anvil: 1.5M after 1.40158081 gwei', 1_401_580_810n, 1_500_000n, 1_313_982_010n],
  ])('%s', (_, base, used, next) => {
    expect(nextBaseFee(base, used, TARGET)).toBe(next);
  });

  it('follows the EIP-1559 pseudo-code for any base fee and fullness, moving at most 1/8', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.bigInt({ min: 0n, max: 2n * TARGET }), (base, used) => {
        const next = nextBaseFee(base, used, TARGET);
        expect(next).toBe(specBaseFee(base, used, TARGET));
        expect(next * 8n).toBeGreaterThanOrEqual(base * 7n);
        expect(next * 8n).toBeLessThanOrEqual(base * 9n + 8n);
        if (used > TARGET) expect(next).toBeGreaterThan(base);
        if (used < TARGET) expect(next).toBeLessThanOrEqual(base);
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses a gas target of 0', () => {
    expect(() => nextBaseFee(GWEI, 0n, 0n)).toThrow(/gas target above 0/);
  });
});

describe('phaseAt', () => {
  it.each([
    [0, 'calm'],
    [39, 'calm'],
    [40, 'rush'],
    [51, 'rush'],
    [52, 'spike'],
    [59, 'spike'],
    [60, 'calm'],
    [60 * 1000 + 45, 'rush'],
  ] as const)('block %d of the default schedule is %s', (block, phase) => {
    expect(phaseAt(block, DEFAULT_MARKET_SCHEDULE)).toBe(phase);
    expect(phaseAt(block)).toBe(phase);
  });

  it('cycles calm, rush, spike with each phase as many blocks long as the schedule says', () => {
    const schedules = fc.record({
      calm: fc.integer({ min: 1, max: 50 }),
      rush: fc.integer({ min: 1, max: 50 }),
      spike: fc.integer({ min: 1, max: 50 }),
    });
    fc.assert(
      fc.property(schedules, fc.integer({ min: 0, max: 1_000_000 }), (schedule: MarketSchedule, from) => {
        const cycle = schedule.calm + schedule.rush + schedule.spike;
        // Runs of one phase, over two whole cycles from any block.
        const runs: { phase: MarketPhase; length: number }[] = [];
        for (let b = from; b < from + 2 * cycle; b++) {
          const phase = phaseAt(b, schedule);
          if (runs.at(-1)?.phase === phase) runs.at(-1)!.length++;
          else runs.push({ phase, length: 1 });
        }
        for (let i = 1; i < runs.length; i++) {
          expect(marketPhases[(marketPhases.indexOf(runs[i - 1]!.phase) + 1) % 3]).toBe(runs[i]!.phase);
        }
        for (const run of runs.slice(1, -1)) expect(run.length).toBe(schedule[run.phase]);
        expect(phaseAt(from + cycle, schedule)).toBe(phaseAt(from, schedule));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a schedule with a phase that is not a whole number of blocks from 1', () => {
    expect(checkSchedule({ calm: 6, rush: 8, spike: 5 })).toEqual({ calm: 6, rush: 8, spike: 5 });
    for (const bad of [
      { calm: 0, rush: 8, spike: 5 },
      { calm: 6, rush: 1.5, spike: 5 },
      { calm: 6, rush: 8, spike: Number.NaN },
    ]) {
      expect(() => checkSchedule(bad)).toThrow(/whole number of blocks/);
    }
  });
});

describe('marketSeed', () => {
  it.each([
    [7, undefined, 7],
    [7, '9', 7],
    [undefined, ' 42 ', 42],
    [undefined, '', DEFAULT_MARKET_SEED],
    [undefined, undefined, DEFAULT_MARKET_SEED],
    [undefined, String(MAX_MARKET_SEED), MAX_MARKET_SEED],
  ] as const)('option %j, env %j -> %d', (given, env, seed) => {
    expect(marketSeed(given, env)).toBe(seed);
  });

  it.each([[-1], [1.5], [MAX_MARKET_SEED + 1]])('refuses the option %d', (given) => {
    expect(() => marketSeed(given, undefined)).toThrow(/whole number from 0 to 4294967295/);
  });

  it.each([['x'], ['-3'], ['1e3'], ['4294967296']])('refuses TXDESK_DEVCHAIN_SEED=%j', (env) => {
    expect(() => marketSeed(undefined, env)).toThrow(/TXDESK_DEVCHAIN_SEED must be a whole number/);
  });
});

describe('marketDemand', () => {
  const demand = (block: number, seed = 7) => marketDemand(block, { seed, gasLimit: LIMIT });

  it('gives the same users for a block and seed whenever it is asked, and other users for another seed', () => {
    const forward = Array.from({ length: 60 }, (_, i) => demand(1000 + i));
    const backward = Array.from({ length: 60 }, (_, i) => demand(1059 - i)).reverse();
    expect(backward).toEqual(forward);
    expect(blockSeed(7, 1000)).not.toBe(blockSeed(7, 1001));
    const other = Array.from({ length: 60 }, (_, i) => demand(1000 + i, 8));
    expect(other).not.toEqual(forward);
    // Not merely shifted: the two seeds agree on hardly any block.
    const same = (a: MarketUser[], b: MarketUser[]) =>
      a.length === b.length && a.every((u, j) => u.gas === b[j]!.gas && u.tipWei === b[j]!.tipWei);
    expect(forward.filter((users, i) => same(users, other[i]!)).length).toBeLessThan(3);
  });

  it("wants the phase's share of the block in gas, in the load's transaction sizes", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: MAX_MARKET_SEED }), (block, seed) => {
        const users = marketDemand(block, { seed, gasLimit: LIMIT });
        const [low, high] = MARKET_PROFILES[phaseAt(block)].demand;
        const gas = users.reduce((sum, u) => sum + u.gas, 0);
        expect(gas).toBeLessThanOrEqual(high * LIMIT);
        expect(gas).toBeGreaterThan(low * LIMIT - Math.max(...MARKET_TX_GAS));
        for (const u of users) {
          expect(MARKET_TX_GAS).toContain(u.gas);
          expect(u.tipWei).toBeGreaterThan(0n);
          expect(u.tipWei % 1_000_000n).toBe(0n); // a thousandth of a gwei
        }
      }),
      { numRuns: 300 },
    );
  });

  it('draws tips around 1 gwei in calm, 2-3 gwei in rush and 5-20 gwei in a spike', () => {
    const tips: Record<MarketPhase, number[]> = { calm: [], rush: [], spike: [] };
    for (let block = 0; block < 600; block++) {
      for (const u of demand(block, 3)) tips[phaseAt(block)].push(gwei(u.tipWei));
    }
    const share = (xs: number[], lo: number, hi: number) => xs.filter((x) => x >= lo && x <= hi).length / xs.length;
    expect(median(tips.calm)).toBeCloseTo(1, 1);
    expect(share(tips.calm, 0.5, 2)).toBeGreaterThan(0.95);
    expect(median(tips.rush)).toBeCloseTo(2.5, 1);
    expect(share(tips.rush, 2, 3)).toBeGreaterThan(0.9);
    expect(Math.abs(median(tips.spike) - 10)).toBeLessThan(0.5);
    expect(share(tips.spike, 5, 20)).toBeGreaterThan(0.9);
    // Each phase outbids the one before, most of the time.
    expect(share(tips.rush, median(tips.calm), Infinity)).toBeGreaterThan(0.99);
    expect(share(tips.spike, median(tips.rush), Infinity)).toBeGreaterThan(0.99);
  });
});

describe('marketBids', () => {
  const users: MarketUser[] = [
    { gas: 100_000, tipWei: GWEI, ceilingWei: 5n * GWEI },
    { gas: 200_000, tipWei: 3n * GWEI, ceilingWei: 5n * GWEI },
    { gas: 300_000, tipWei: 2n * GWEI, ceilingWei: 10n * GWEI },
    { gas: 100_000, tipWei: 2n * GWEI, ceilingWei: 4n * GWEI },
  ];

  it.each([
    // base fee, the bids as [gas, gas price in gwei], highest first
    [
      GWEI,
      [
        [200_000, 4],
        [300_000, 3],
        [100_000, 3],
        [100_000, 2],
      ],
    ],
    [
      2n * GWEI,
      [
        [200_000, 5],
        [300_000, 4],
        [100_000, 4],
        [100_000, 3],
      ],
    ],
    [
      3n * GWEI,
      [
        [300_000, 5],
        [100_000, 4],
      ],
    ],
    [9n * GWEI, []],
  ] as const)('at a base fee of %d wei, bids base fee + tip where the user can afford it', (base, expected) => {
    const bids = marketBids(users, base);
    expect(bids.map((b) => [b.gas, gwei(b.gasPriceWei)])).toEqual(expected);
    for (const b of bids) expect(b.gasPriceWei - base).toBe(b.tipWei);
  });
});

/**
 * The market over whole cycles, with what anvil does: each block takes the pool's bids highest first, skips what does
 * not fit, drops what is below the base fee, and its fullness sets the next base fee; the load withdraws what was not
 * mined within its lifetime.
 */
function simulate(seed: number, blocks: number, schedule = DEFAULT_MARKET_SCHEDULE) {
  let baseFee = MARKET_START_BASE_FEE_WEI;
  let pool: { target: number; gas: number; price: bigint }[] = [];
  const out: { block: number; phase: MarketPhase; baseFee: bigint; fullness: number }[] = [];
  const start = 3 * (schedule.calm + schedule.rush + schedule.spike);
  for (let block = start; block < start + blocks; block++) {
    pool = pool.filter((tx) => tx.target > block - MARKET_LOAD_LIFETIME_BLOCKS);
    for (const bid of marketBids(marketDemand(block, { seed, gasLimit: LIMIT, schedule }), baseFee))
      pool.push({ target: block, gas: bid.gas, price: bid.gasPriceWei });
    pool.sort((a, b) => (a.price === b.price ? 0 : a.price > b.price ? -1 : 1));
    let used = 0;
    pool = pool.filter((tx) => {
      if (tx.price < baseFee) return false;
      if (used + tx.gas > LIMIT) return true;
      used += tx.gas;
      return false;
    });
    out.push({ block, phase: phaseAt(block, schedule), baseFee, fullness: used / LIMIT });
    baseFee = nextBaseFee(baseFee, BigInt(used), TARGET);
  }
  return out;
}

describe('the default schedule and profiles, simulated', () => {
  it.each([1, 2, 3, 4])('seed %d: the base fee climbs in rush and spikes, comes back down in calm, and blocks fill per phase', (seed) => {
    const cycle = DEFAULT_MARKET_SCHEDULE.calm + DEFAULT_MARKET_SCHEDULE.rush + DEFAULT_MARKET_SCHEDULE.spike;
    const run = simulate(seed, 4 * cycle);
    for (let c = 1; c < 4; c++) {
      const blocks = run.slice(c * cycle, (c + 1) * cycle);
      const phase = (p: MarketPhase) => blocks.filter((b) => b.phase === p);
      const calm = phase('calm');
      const rush = phase('rush');
      const spike = phase('spike');
      const avg = (bs: typeof blocks) => bs.reduce((s, b) => s + b.fullness, 0) / bs.length;
      // Calm: the spike's backlog drains in the first blocks, then the base fee falls to where calm users can pay it.
      expect(calm.at(-1)!.baseFee).toBeLessThan(calm[0]!.baseFee / 4n);
      expect(gwei(calm.at(-1)!.baseFee)).toBeLessThan(2);
      const settled = calm.slice(-10);
      expect(avg(settled)).toBeGreaterThan(0.3);
      expect(avg(settled)).toBeLessThan(0.6);
      // Rush: nearly full blocks; the base fee climbs several-fold.
      expect(avg(rush)).toBeGreaterThan(0.85);
      expect(rush.at(-1)!.baseFee).toBeGreaterThan(2n * rush[0]!.baseFee);
      // Spike: full blocks; +12.5% a block.
      for (const b of spike) expect(b.fullness).toBeGreaterThan(0.95);
      expect(spike.at(-1)!.baseFee).toBeGreaterThan((spike[0]!.baseFee * 22n) / 10n);
    }
  });
});
