// The congestion simulator's I/O side: after every block it holds the base fee low and tops up the load lanes' pool transactions.
import type { CongestionLevel } from '../shared/desktop-api.js';
import { silentLogger, type Logger } from '../lib/log.js';
import { jsonRpcCall } from '../lib/json-rpc.js';
import { sendTx } from './devchain-tx.js';
import { HELD_BASE_FEE_WEI, loadLanes, planTopUp, type Lane } from './congestion-plan.js';

export interface CongestionLoadOptions {
  url: string;
  /** The gas sink contract every load transaction calls. */
  sink: string;
  /** One account per lane; never handed to apps. */
  loadAccounts: string[];
  blockGasLimit: number;
  level: CongestionLevel;
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

  let level = opts.level;
  let levelChanged = false;
  let lastBlock = -1;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let waiters: (() => void)[] = [];
  let failures = 0;

  const pendingCounts = async (): Promise<number[]> => {
    const pool = await jsonRpcCall<TxpoolContent>(opts.url, 'txpool_content', []);
    const count = (m: Record<string, Record<string, unknown>> | undefined, who: string) => {
      const entry = Object.entries(m ?? {}).find(([addr]) => addr.toLowerCase() === who);
      return entry ? Object.keys(entry[1]).length : 0;
    };
    return laneAccounts.map((a) => count(pool.pending, a) + count(pool.queued, a));
  };

  const clearLoad = async () => {
    for (const a of laneAccounts) await jsonRpcCall(opts.url, 'anvil_removePoolTransactions', [a]);
  };

  const round = async () => {
    const block = Number(BigInt(await jsonRpcCall<string>(opts.url, 'eth_blockNumber', [])));
    if (block === lastBlock && !levelChanged) return;
    const isNewBlock = block !== lastBlock;
    lastBlock = block;
    // Full blocks would raise the base fee 12.5% a block, and anvil refuses or drops what falls below it (docs/devchain.md).
    if (isNewBlock) await jsonRpcCall(opts.url, 'anvil_setNextBlockBaseFeePerGas', [`0x${HELD_BASE_FEE_WEI.toString(16)}`]);
    if (levelChanged) {
      levelChanged = false;
      await clearLoad();
    }
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
    const w = waiters;
    waiters = [];
    for (const resolve of w) resolve();
  };

  const tick = () => {
    if (stopped) return;
    running = round().then(
      () => { failures = 0; },
      (e: unknown) => {
        // Transient while anvil starts or stops; say so once in a while, not every poll.
        if (failures++ % 20 === 0 && !stopped) log.warn(`congestion load: ${e instanceof Error ? e.message : String(e)}`);
      },
    ).finally(() => {
      if (!stopped) timer = setTimeout(tick, opts.pollMs ?? 200);
    });
  };
  tick();

  return {
    get level() { return level; },
    setLevel(next) {
      if (next === level) return;
      level = next;
      levelChanged = true;
      log.info(`congestion ${next}`);
      if (timer && !stopped) { clearTimeout(timer); timer = undefined; void running.then(() => { if (!timer && !stopped) tick(); }); }
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
