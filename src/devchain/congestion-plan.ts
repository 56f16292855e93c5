// Pure policy of the congestion simulator: the fee levels, the load's lanes, and how many load transactions to top up per block.
import type { CongestionLevel } from '../shared/desktop-api.js';

const GWEI = 1_000_000_000n;

/** Held every block with anvil_setNextBlockBaseFeePerGas, so a 1 gwei transaction is always accepted into the pool. */
export const HELD_BASE_FEE_WEI = GWEI / 10n; // 0.1 gwei
/** The load never pays this much; any transaction priced at or above it outbids the whole load. */
export const OUTBID_LOAD_WEI = 2n * GWEI;

/**
 * A lane is one load account sending one kind of transaction: the same gas limit and gas price every time.
 * Anvil (--order fees) fills a block in price order and skips what no longer fits, so "big" lanes fill the block
 * and the "filler" lanes, priced lower and halving in size down to 21,000 gas, close any gap left when other
 * (higher-paying) transactions took part of the block: after them, less than 21,000 gas remains, so no
 * transaction priced below the load fits.
 */
export interface Lane {
  role: 'big' | 'filler';
  gas: number;
  gasPriceWei: bigint;
  /** Load transactions this lane keeps in the pool under `high`. */
  highTarget: number;
}

export const BIG_GAS = 2_000_000;

export function loadLanes(blockGasLimit: number): Lane[] {
  const bigsPerBlock = Math.max(1, Math.floor(blockGasLimit / BIG_GAS));
  const lanes: Lane[] = [
    // Four blocks' worth, so top-ups that come late (a busy machine) never leave a block with room.
    { role: 'big', gas: BIG_GAS, gasPriceWei: 1_800_000_000n, highTarget: 4 * bigsPerBlock },
  ];
  // Sizes halve from BIG_GAS/2 while above 21,000, then 21,000; each is at most twice the next, so filling greedily
  // in this order leaves less than 21,000 gas (the least any transaction needs).
  const sizes: number[] = [];
  for (let g = BIG_GAS / 2; g > 21_000; g = Math.floor(g / 2)) sizes.push(g);
  sizes.push(21_000);
  sizes.forEach((gas, i) => {
    lanes.push({ role: 'filler', gas, gasPriceWei: 1_700_000_000n - BigInt(i) * 40_000_000n, highTarget: 2 });
  });
  return lanes;
}

export interface TopUp {
  lane: number;
  count: number;
}

/**
 * How many transactions each lane must add after a block, given what it still has pending.
 * `low`: on about `lowChance` of blocks, one block's worth of big transactions (a 1 gwei transaction then waits that
 * block); `high`: every lane back to its target, so every block is full of load.
 */
export function planTopUp(
  level: CongestionLevel,
  lanes: Lane[],
  pending: number[],
  blockGasLimit: number,
  random: () => number,
  lowChance = 0.5,
): TopUp[] {
  if (level === 'off') return [];
  if (level === 'low') {
    const big = lanes.findIndex((l) => l.role === 'big');
    if (big < 0 || (pending[big] ?? 0) > 0 || random() >= lowChance) return [];
    return [{ lane: big, count: Math.max(1, Math.floor(blockGasLimit / lanes[big]!.gas)) }];
  }
  return lanes.map((lane, i) => ({ lane: i, count: Math.max(0, lane.highTarget - (pending[i] ?? 0)) })).filter((t) => t.count > 0);
}
