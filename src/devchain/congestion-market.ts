// Pure policy of `market` congestion: EIP-1559's base fee rule, the calm/rush/spike schedule, and each block's seeded demand.
import type { MarketPhase } from '../shared/desktop-api.js';

const GWEI = 1_000_000_000;

/**
 * Blocks per phase. The phases run calm, rush, spike, then calm again, counted from block 0, so the phase of a block
 * depends only on its number: not on the seed, on when `market` was switched on, or on how busy the machine was.
 */
export interface MarketSchedule {
  calm: number;
  rush: number;
  spike: number;
}

/**
 * One cycle is a minute at the default 1 s blocks. Calm is the longest because after a spike it first has to bring the
 * base fee back down (at most 12.5% a block, about 15 blocks from a spike's peak); rush is long enough for the base fee
 * to climb several-fold; a spike is short, as real ones are. With 30/20/10 the base fee rose about 20-fold a cycle and
 * calm blocks were nearly empty for most of the phase (a simulation of the load; docs/devchain.md, Market congestion).
 */
export const DEFAULT_MARKET_SCHEDULE: MarketSchedule = { calm: 40, rush: 12, spike: 8 };

/** Used when no seed is given, so that two runs without one still see the same load. */
export const DEFAULT_MARKET_SEED = 1;

/** Entering `market` sets the next block's base fee to this once (about where calm settles); after that it moves by EIP-1559. */
export const MARKET_START_BASE_FEE_WEI = 1_000_000_000n;

/** A load transaction not mined within this many blocks of the one it was sent for is withdrawn: its user gave up. */
export const MARKET_LOAD_LIFETIME_BLOCKS = 3;

/** The largest seed: seeds are 32-bit, as mulberry32's state is. */
export const MAX_MARKET_SEED = 2 ** 32 - 1;

/**
 * The seed to use: `given` (an option), else `fromEnv` ($TXDESK_DEVCHAIN_SEED, which reaches the dev chain that
 * `txdesk serve`, `service --dev` and `npm start` embed), else DEFAULT_MARKET_SEED. Refuses anything but a whole number
 * from 0 to MAX_MARKET_SEED.
 */
export function marketSeed(given: number | undefined, fromEnv: string | undefined): number {
  if (given !== undefined) {
    if (!Number.isInteger(given) || given < 0 || given > MAX_MARKET_SEED)
      throw new Error(`The market seed must be a whole number from 0 to ${MAX_MARKET_SEED}, not ${String(given)}.`);
    return given;
  }
  const text = fromEnv?.trim();
  if (!text) return DEFAULT_MARKET_SEED;
  if (!/^\d{1,10}$/.test(text) || Number(text) > MAX_MARKET_SEED)
    throw new Error(`TXDESK_DEVCHAIN_SEED must be a whole number from 0 to ${MAX_MARKET_SEED}, not "${text}".`);
  return Number(text);
}

/** Refuses a schedule that would make phaseAt meaningless; returns it otherwise. */
export function checkSchedule(schedule: MarketSchedule): MarketSchedule {
  for (const phase of ['calm', 'rush', 'spike'] as const) {
    const n = schedule[phase];
    if (!Number.isInteger(n) || n < 1 || n > 100_000)
      throw new Error(`The market schedule's ${phase} phase must be a whole number of blocks from 1 to 100000, not ${String(n)}.`);
  }
  return schedule;
}

/** The phase block `blockNumber` belongs to: its position in the repeating calm, rush, spike cycle. */
export function phaseAt(blockNumber: number, schedule: MarketSchedule = DEFAULT_MARKET_SCHEDULE): MarketPhase {
  const cycle = schedule.calm + schedule.rush + schedule.spike;
  const at = ((blockNumber % cycle) + cycle) % cycle;
  if (at < schedule.calm) return 'calm';
  return at < schedule.calm + schedule.rush ? 'rush' : 'spike';
}

/** EIP-1559: the base fee moves at most 1/8 a block, in proportion to how far the block's gas was from the target. */
const BASE_FEE_MAX_CHANGE_DENOMINATOR = 8n;
/** EIP-1559: the gas target is the block gas limit divided by this. */
export const ELASTICITY_MULTIPLIER = 2n;

/**
 * The base fee of the block after one with base fee `base` that used `gasUsed` of its `gasTarget` (EIP-1559's formula,
 * integer division as in the spec; a block over its target raises the fee by at least 1 wei). anvil applies the same
 * rule itself when the base fee is not set by hand; the load uses this to price its bids for the next block.
 */
export function nextBaseFee(base: bigint, gasUsed: bigint, gasTarget: bigint): bigint {
  if (gasTarget <= 0n) throw new Error('nextBaseFee needs a gas target above 0.');
  if (gasUsed === gasTarget) return base;
  if (gasUsed > gasTarget) {
    const delta = (base * (gasUsed - gasTarget)) / gasTarget / BASE_FEE_MAX_CHANGE_DENOMINATOR;
    return base + (delta > 1n ? delta : 1n);
  }
  return base - (base * (gasTarget - gasUsed)) / gasTarget / BASE_FEE_MAX_CHANGE_DENOMINATOR;
}

/** A log-normal distribution given by its median (in gwei) and the standard deviation of its logarithm. */
export interface LogNormal {
  medianGwei: number;
  sigma: number;
}

/** What the users arriving in one phase want. */
export interface PhaseProfile {
  /** Gas the arriving users want per block, as a share of the block gas limit, drawn uniformly from this range. */
  demand: readonly [number, number];
  /** The tip each user adds to the base fee. */
  tip: LogNormal;
  /**
   * The most a user pays per gas, base fee and tip together; a user whom base fee + tip would take above it does not
   * send. This makes demand fall while the base fee is high, which is what brings it down again in calm phases.
   */
  ceiling: LogNormal;
}

/**
 * Calm fills about half a block (the EIP-1559 target, so the base fee stays where it is) while its users can afford
 * the base fee; rush fills 90-100% (the base fee climbs about 11% a block); a spike wants 1.5-2.5 blocks of gas a
 * block (full blocks, +12.5% a block, a backlog ordered by tip). With these ceilings and the default schedule the base
 * fee settles at 0.7-1.2 gwei in calm, climbs to about 3 gwei in rush and about 8 in a spike (docs/devchain.md has the
 * figures); calm users stop sending above about 2.5 gwei, rush users above about 6.
 */
export const MARKET_PROFILES: Readonly<Record<MarketPhase, PhaseProfile>> = {
  calm: { demand: [0.4, 0.6], tip: { medianGwei: 1, sigma: 0.3 }, ceiling: { medianGwei: 3.5, sigma: 0.3 } },
  rush: { demand: [0.9, 1.0], tip: { medianGwei: 2.5, sigma: 0.1 }, ceiling: { medianGwei: 9, sigma: 0.3 } },
  spike: { demand: [1.5, 2.5], tip: { medianGwei: 10, sigma: 0.35 }, ceiling: { medianGwei: 60, sigma: 0.4 } },
};

/** Gas limits of load transactions, drawn uniformly: each burns all of it (the gas sink), so blocks fill in these steps. */
export const MARKET_TX_GAS = [100_000, 200_000, 300_000] as const;

/**
 * Which of the load accounts (counted from the first, dev account 10) sends block `blockNumber`'s bids of `gas`: one
 * account per gas size per turn, MARKET_LOAD_LIFETIME_BLOCKS turns, so MARKET_LOAD_LIFETIME_BLOCKS * 3 accounts. The
 * load clears an account before its next turn, which is how bids expire.
 */
export function marketAccountIndex(blockNumber: number, gas: number): number {
  const size = MARKET_TX_GAS.indexOf(gas as (typeof MARKET_TX_GAS)[number]);
  if (size < 0) throw new Error(`${gas} is not one of the market load's gas sizes (${MARKET_TX_GAS.join(', ')}).`);
  return (blockNumber % MARKET_LOAD_LIFETIME_BLOCKS) * MARKET_TX_GAS.length + size;
}

/** How many load accounts the market load uses. */
export const MARKET_ACCOUNT_COUNT = MARKET_LOAD_LIFETIME_BLOCKS * MARKET_TX_GAS.length;

/** One user that arrives wanting a transaction in a block. */
export interface MarketUser {
  gas: number;
  tipWei: bigint;
  ceilingWei: bigint;
}

/** One load transaction to send: legacy, so what it bids (`gasPriceWei`) is what it pays and how anvil ranks it. */
export interface MarketBid {
  gas: number;
  gasPriceWei: bigint;
  tipWei: bigint;
}

export interface MarketDemandOptions {
  seed: number;
  gasLimit: number;
  schedule?: MarketSchedule;
  profiles?: Readonly<Record<MarketPhase, PhaseProfile>>;
}

/**
 * The users who arrive wanting block `blockNumber`, drawn from the block's phase with a generator seeded by (`seed`,
 * `blockNumber`) alone: the same seed gives the same users for a block whenever it is asked, in any order.
 */
export function marketDemand(blockNumber: number, opts: MarketDemandOptions): MarketUser[] {
  const profile = (opts.profiles ?? MARKET_PROFILES)[phaseAt(blockNumber, opts.schedule)];
  const random = mulberry32(blockSeed(opts.seed, blockNumber));
  const [low, high] = profile.demand;
  const wanted = Math.floor((low + (high - low) * random()) * opts.gasLimit);
  const users: MarketUser[] = [];
  for (let gas = 0; ; ) {
    const size = MARKET_TX_GAS[Math.floor(random() * MARKET_TX_GAS.length)]!;
    if (gas + size > wanted) break;
    gas += size;
    users.push({ gas: size, tipWei: drawWei(profile.tip, random), ceilingWei: drawWei(profile.ceiling, random) });
  }
  return users;
}

/**
 * What the load sends for a block whose base fee will be `baseFeeWei`: each user who can afford it bids base fee + tip
 * as a legacy gas price, highest first (the order one sender's nonces must follow, so no bid waits behind a lower one).
 */
export function marketBids(users: readonly MarketUser[], baseFeeWei: bigint): MarketBid[] {
  return users
    .filter((u) => baseFeeWei + u.tipWei <= u.ceilingWei)
    .map((u) => ({ gas: u.gas, gasPriceWei: baseFeeWei + u.tipWei, tipWei: u.tipWei }))
    .sort((a, b) => (a.gasPriceWei === b.gasPriceWei ? 0 : a.gasPriceWei > b.gasPriceWei ? -1 : 1));
}

/** A draw rounded to a thousandth of a gwei, so tips read cleanly in blocks and logs. */
function drawWei(d: LogNormal, random: () => number): bigint {
  const gwei = d.medianGwei * Math.exp(d.sigma * standardNormal(random));
  return BigInt(Math.max(1, Math.round(gwei * 1000))) * BigInt(GWEI / 1000);
}

/** Box-Muller: one standard normal draw from two uniform ones. */
function standardNormal(random: () => number): number {
  const u = 1 - random(); // (0, 1]: log(0) is not a number
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** Mixes a seed and a block number into one 32-bit seed (murmur3's finaliser), so neighbouring blocks draw unrelated numbers. */
export function blockSeed(seed: number, blockNumber: number): number {
  let h = (seed ^ Math.imul(blockNumber >>> 0, 0x9e3779b1) ^ Math.imul(Math.floor(blockNumber / 2 ** 32), 0x85ebca77)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** mulberry32: a small seeded generator of numbers in [0, 1) (the same as test/support/prng.js). */
export function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
