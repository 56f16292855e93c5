// The congestion simulator's I/O side: after every block it holds the base fee low and tops up the load lanes' pool
// transactions, or under `market` lets the base fee move and sends the next block's seeded demand.
import type { CongestionLevel } from '../shared/desktop-api.js';
import { silentLogger, type Logger } from '../lib/log.js';
import { jsonRpcCall } from '../lib/json-rpc.js';
import { sendTx } from './devchain-tx.js';
import { HELD_BASE_FEE_WEI, loadLanes, planTopUp, type Lane } from './congestion-plan.js';
import {
  DEFAULT_MARKET_SCHEDULE,
  DEFAULT_MARKET_SEED,
  ELASTICITY_MULTIPLIER,
  MARKET_ACCOUNT_COUNT,
  MARKET_START_BASE_FEE_WEI,
  MARKET_TX_GAS,
  marketAccountIndex,
  marketBids,
  marketDemand,
  nextBaseFee,
  type MarketSchedule,
} from './congestion-market.js';

export interface CongestionLoadOptions {
  url: string;
  /** The gas sink contract every load transaction calls. */
  sink: string;
  /** One account per lane; never handed to apps. */
  loadAccounts: string[];
  blockGasLimit: number;
  level: CongestionLevel;
  /** `market`: the seed of every block's demand (DEFAULT_MARKET_SEED unless set). */
  seed?: number;
  /** `market`: blocks per phase (DEFAULT_MARKET_SCHEDULE unless set). */
  schedule?: MarketSchedule;
  pollMs?: number;
  log?: Logger;
  random?: () => number;
}

export interface CongestionLoad {
  readonly level: CongestionLevel;
  setLevel(level: CongestionLevel): void;
  /** Resolves after the next block has been handled (tests use it to wait for the load to be in place). */
  nextRound(): Promise<void>;
  stop(): Promise<void>;
}

interface RpcBlock {
  number: string;
  gasUsed: string;
  gasLimit: string;
  baseFeePerGas?: string;
}

/** A market load account whose balance falls below this is topped up, so a chain left running for days keeps its load. */
const MARKET_ACCOUNT_LOW_WEI = 1_000n * 10n ** 18n;
const MARKET_ACCOUNT_REFILL_WEI = 10_000n * 10n ** 18n;

interface TxpoolContent {
  pending: Record<string, Record<string, unknown>>;
  queued: Record<string, Record<string, unknown>>;
}

export function startCongestionLoad(opts: CongestionLoadOptions): CongestionLoad {
  const log = opts.log ?? silentLogger;
  const random = opts.random ?? Math.random;
  const lanes: Lane[] = loadLanes(opts.blockGasLimit);
  if (opts.loadAccounts.length < lanes.length) throw new Error(`The congestion load needs ${lanes.length} accounts.`);
  const laneAccounts = lanes.map((_, i) => opts.loadAccounts[i]!.toLowerCase());
  // Block n's demand for each gas size is sent from one account (n mod lifetime, size) as one nonce sequence, highest
  // bid first. One size per account because anvil, after skipping a transaction that does not fit the block, still
  // tries the same sender's next nonces and drops from the pool those that do fit (nonce too high); with one size, what
  // does not fit is followed only by what does not fit either. An account is cleared before its next turn, so what was
  // not mined within the lifetime is withdrawn and never holds up new bids.
  if (opts.loadAccounts.length < MARKET_ACCOUNT_COUNT) throw new Error(`The market load needs ${MARKET_ACCOUNT_COUNT} accounts.`);
  const marketAccounts = opts.loadAccounts.slice(0, MARKET_ACCOUNT_COUNT).map((a) => a.toLowerCase());
  const allLoadAccounts = [...new Set([...laneAccounts, ...marketAccounts])];
  const seed = opts.seed ?? DEFAULT_MARKET_SEED;
  const schedule = opts.schedule ?? DEFAULT_MARKET_SCHEDULE;

  let level = opts.level;
  let levelChanged = false;
  let lastBlock = -1;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let waiters: (() => void)[] = [];
  let failures = 0;
  /** True while `market` runs; entering it sets the base fee once, to where the market starts. */
  let marketStarted = false;

  const pendingCounts = async (): Promise<number[]> => {
    const pool = await jsonRpcCall<TxpoolContent>(opts.url, 'txpool_content', []);
    const count = (m: Record<string, Record<string, unknown>> | undefined, who: string) => {
      const entry = Object.entries(m ?? {}).find(([addr]) => addr.toLowerCase() === who);
      return entry ? Object.keys(entry[1]).length : 0;
    };
    return laneAccounts.map((a) => count(pool.pending, a) + count(pool.queued, a));
  };

  const clearLoad = async () => {
    for (const a of allLoadAccounts) await jsonRpcCall(opts.url, 'anvil_removePoolTransactions', [a]);
  };

  const setNextBaseFee = (wei: bigint) => jsonRpcCall(opts.url, 'anvil_setNextBlockBaseFeePerGas', [`0x${wei.toString(16)}`]);

  /** Sends the demand that arrives for the block after `head`, each bid at that block's base fee + its tip. */
  const marketRound = async (head: RpcBlock) => {
    const target = Number(BigInt(head.number)) + 1;
    let baseFee: bigint;
    if (!marketStarted) {
      marketStarted = true;
      baseFee = MARKET_START_BASE_FEE_WEI;
      await setNextBaseFee(baseFee);
    } else {
      // anvil applies the same rule to the block it mines next (test/devchain/devchain-market.test.ts checks).
      baseFee = nextBaseFee(BigInt(head.baseFeePerGas ?? '0x0'), BigInt(head.gasUsed), BigInt(head.gasLimit) / ELASTICITY_MULTIPLIER);
    }
    const bids = marketBids(marketDemand(target, { seed, gasLimit: opts.blockGasLimit, schedule }), baseFee);
    await Promise.all(
      MARKET_TX_GAS.map(async (gas) => {
        const from = marketAccounts[marketAccountIndex(target, gas)]!;
        await jsonRpcCall(opts.url, 'anvil_removePoolTransactions', [from]);
        const balance = BigInt(await jsonRpcCall<string>(opts.url, 'eth_getBalance', [from, 'latest']));
        if (balance < MARKET_ACCOUNT_LOW_WEI)
          await jsonRpcCall(opts.url, 'anvil_setBalance', [from, `0x${MARKET_ACCOUNT_REFILL_WEI.toString(16)}`]);
        let nonce = Number(BigInt(await jsonRpcCall<string>(opts.url, 'eth_getTransactionCount', [from, 'latest'])));
        for (const bid of bids.filter((b) => b.gas === gas)) {
          if (stopped || level !== 'market') return;
          try {
            await sendTx(opts.url, { from, to: opts.sink, gas, gasPrice: bid.gasPriceWei, nonce: nonce++ });
          } catch (e) {
            // Late (the block was mined and the base fee rose past the rest of the bids): the rest would only wait behind a gap.
            log.debug?.(`market load for block ${target}: ${e instanceof Error ? e.message : String(e)}`);
            return;
          }
        }
      }),
    );
  };

  const round = async () => {
    const head = await jsonRpcCall<RpcBlock>(opts.url, 'eth_getBlockByNumber', ['latest', false]);
    const block = Number(BigInt(head.number));
    if (block === lastBlock && !levelChanged) return;
    const isNewBlock = block !== lastBlock;
    const changed = levelChanged;
    lastBlock = block;
    if (levelChanged) {
      levelChanged = false;
      await clearLoad();
    }
    if (level === 'market') {
      await marketRound(head);
      return wake();
    }
    marketStarted = false;
    // Full blocks would raise the base fee 12.5% a block, and anvil refuses or drops what falls below it (docs/devchain.md).
    if (isNewBlock || changed) await setNextBaseFee(HELD_BASE_FEE_WEI);
    const plan = planTopUp(level, lanes, level === 'off' ? [] : await pendingCounts(), opts.blockGasLimit, random);
    await Promise.all(
      plan.map(async ({ lane, count }) => {
        const l = lanes[lane]!;
        // Sequential per account: anvil assigns consecutive nonces in arrival order.
        for (let i = 0; i < count && !stopped; i++) {
          await sendTx(opts.url, { from: laneAccounts[lane]!, to: opts.sink, gas: l.gas, gasPrice: l.gasPriceWei });
        }
      }),
    );
    wake();
  };

  const wake = () => {
    const w = waiters;
    waiters = [];
    for (const resolve of w) resolve();
  };

  const tick = () => {
    if (stopped) return;
    running = round()
      .then(
        () => {
          failures = 0;
        },
        (e: unknown) => {
          // Transient while anvil starts or stops; say so once in a while, not every poll.
          if (failures++ % 20 === 0 && !stopped) log.warn(`congestion load: ${e instanceof Error ? e.message : String(e)}`);
        },
      )
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, opts.pollMs ?? 200);
      });
  };
  tick();

  return {
    get level() {
      return level;
    },
    setLevel(next) {
      if (next === level) return;
      level = next;
      levelChanged = true;
      log.info(`congestion ${next}`);
      if (timer && !stopped) {
        clearTimeout(timer);
        timer = undefined;
        void running.then(() => {
          if (!timer && !stopped) tick();
        });
      }
    },
    nextRound: () => new Promise<void>((resolve) => waiters.push(resolve)),
    async stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      await running;
      for (const resolve of waiters) resolve();
      waiters = [];
    },
  };
}
