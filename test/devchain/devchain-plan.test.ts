// The congestion policy as pure functions: lane layout, top-up plans, and the promise that a full block leaves no room below the load's fees.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { BIG_GAS, HELD_BASE_FEE_WEI, OUTBID_LOAD_WEI, loadLanes, planTopUp, type Lane } from '../../src/devchain/congestion-plan.js';
import { DEFAULT_BLOCK_GAS_LIMIT } from '../../src/devchain/anvil-process.js';
import { repoRoot } from '../support/chain/devchain-helpers.js';

const LIMIT = DEFAULT_BLOCK_GAS_LIMIT;
const lanes = loadLanes(LIMIT);

/** What anvil does with --order fees: highest price first, skip what does not fit, keep going. */
function fill(blockGas: number, txs: { gas: number; used: number; price: bigint }[]): number {
  let used = 0;
  for (const tx of [...txs].sort((a, b) => (a.price === b.price ? 0 : a.price > b.price ? -1 : 1))) {
    if (used + tx.gas > blockGas) continue;
    used += tx.used;
  }
  return blockGas - used;
}

const loadTxs = (ls: Lane[]) =>
  ls.flatMap((l) => Array.from({ length: l.highTarget }, () => ({ gas: l.gas, used: l.gas, price: l.gasPriceWei })));

describe('congestion plan', () => {
  it('prices every load lane between the held base fee and the documented outbid level, above 1 gwei', () => {
    for (const l of lanes) {
      expect(l.gasPriceWei).toBeGreaterThan(10n ** 9n);
      expect(l.gasPriceWei).toBeLessThan(OUTBID_LOAD_WEI);
      expect(l.gasPriceWei).toBeGreaterThan(HELD_BASE_FEE_WEI);
    }
    expect(lanes.filter((l) => l.role === 'big')).toHaveLength(1);
    expect(lanes[0]).toMatchObject({ role: 'big', gas: BIG_GAS, highTarget: 12 });
    expect(lanes.at(-1)!.gas).toBe(21_000);
  });

  it.each([
    ['off', [0, 0, 0, 0, 0, 0, 0, 0], 0.1, []],
    ['high', [0, 0, 0, 0, 0, 0, 0, 0], 0.9, lanes.map((l, i) => ({ lane: i, count: l.highTarget }))],
    [
      'high',
      [9, 2, 2, 1, 2, 2, 2, 2],
      0.9,
      [
        { lane: 0, count: 3 },
        { lane: 3, count: 1 },
      ],
    ],
    ['low', [0, 0, 0, 0, 0, 0, 0, 0], 0.1, [{ lane: 0, count: 3 }]],
    ['low', [0, 0, 0, 0, 0, 0, 0, 0], 0.7, []],
    ['low', [2, 0, 0, 0, 0, 0, 0, 0], 0.1, []],
  ] as const)('%s with pending %j and roll %d tops up %j', (level, pending, roll, expected) => {
    expect(planTopUp(level, lanes, [...pending], LIMIT, () => roll)).toEqual(expected);
  });

  it('leaves less than 21,000 gas in a block whatever higher-paying traffic took first', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ gas: fc.integer({ min: 21_000, max: LIMIT }), usedPart: fc.double({ min: 0, max: 1, noNaN: true }) }), {
          maxLength: 6,
        }),
        (others) => {
          const paying = others.map((o) => ({
            gas: o.gas,
            used: 21_000 + Math.floor((o.gas - 21_000) * o.usedPart),
            price: OUTBID_LOAD_WEI,
          }));
          const left = fill(LIMIT, [...paying, ...loadTxs(lanes), { gas: 21_000, used: 21_000, price: 10n ** 9n }]);
          // The 1 gwei transaction (last in price order) only fits if 21,000 gas was left after the load.
          const withoutIt = fill(LIMIT, [...paying, ...loadTxs(lanes)]);
          expect(withoutIt).toBeLessThan(21_000);
          expect(left).toBe(withoutIt);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps the committed contract artifacts in step with contracts/*.sol', () => {
    const out = execFileSync(process.execPath, [join(repoRoot, 'scripts', 'compile-contracts.js'), '--check'], { encoding: 'utf8' });
    expect(out).toMatch(/TxdeskTiles: up to date/);
  }, 60_000);
});
