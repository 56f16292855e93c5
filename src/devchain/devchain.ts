// The embedded dev chain: anvil with sample ERC-721 collections, token metadata on loopback, and a congestion simulator.
import { getAddress, isAddress } from 'ethers';
import type { CongestionLevel, DevchainStatus } from '../shared/desktop-api.js';
import { congestionSchema } from '../shared/desktop-schemas.js';
import { createLogger, type Logger } from '../lib/log.js';
import { DEFAULT_BLOCK_GAS_LIMIT, DEV_CHAIN_ID, startAnvil } from './anvil-process.js';
import { APP_ACCOUNT_COUNT, TOTAL_ACCOUNT_COUNT, devAccounts, type DevAccount } from './dev-accounts.js';
import { startMetadataServer } from './metadata-server.js';
import {
  deploySamples,
  dropsAbi,
  gemsAbi,
  GIVE_DROPS,
  GIVE_GEMS,
  mintGas,
  tilesAbi,
  type SampleCollection,
  type SampleDeployment,
} from './sample-deploy.js';
import { startCongestionLoad, type CongestionLoad } from './congestion-load.js';
import { HELD_BASE_FEE_WEI } from './congestion-plan.js';
import { DEFAULT_MARKET_SCHEDULE, checkSchedule, marketSeed, phaseAt, type MarketSchedule } from './congestion-market.js';
import { jsonRpcCall } from '../lib/json-rpc.js';
import { opsGasPriceWei, sendTx, waitReceipts } from './devchain-tx.js';
import { createProgress } from './devchain-progress.js';

export {
  startAnvil,
  DEV_CHAIN_ID,
  DEV_CHAIN_ID_2,
  DEV_MNEMONIC,
  DEFAULT_BLOCK_GAS_LIMIT,
  type RunningAnvil,
  type StartAnvilOptions,
} from './anvil-process.js';
export { HELD_BASE_FEE_WEI, OUTBID_LOAD_WEI } from './congestion-plan.js';
export {
  DEFAULT_MARKET_SCHEDULE,
  DEFAULT_MARKET_SEED,
  MARKET_ACCOUNT_COUNT,
  MARKET_LOAD_LIFETIME_BLOCKS,
  MARKET_PROFILES,
  MARKET_START_BASE_FEE_WEI,
  MARKET_TX_GAS,
  marketAccountIndex,
  marketBids,
  marketDemand,
  nextBaseFee,
  phaseAt,
  type MarketBid,
  type MarketSchedule,
  type MarketUser,
} from './congestion-market.js';
export { OPS_GAS_PRICE_WEI } from './devchain-tx.js';
export type { DevAccount } from './dev-accounts.js';
export type { SampleCollection } from './sample-deploy.js';
export type { CongestionLevel, MarketPhase } from '../shared/desktop-api.js';

export interface StartDevchainOptions {
  /** anvil's port; 0 or absent = a free port. */
  port?: number;
  /** Seconds per block; default 1. */
  blockTimeSeconds?: number;
  congestion?: CongestionLevel;
  /** Seed of the `market` load: a whole number below 2^32; else $TXDESK_DEVCHAIN_SEED, else DEFAULT_MARKET_SEED. */
  seed?: number;
  /** Blocks per phase of the `market` load; DEFAULT_MARKET_SCHEDULE unless set (tests use short phases). */
  marketSchedule?: MarketSchedule;
  /** DEV_CHAIN_ID unless set. */
  chainId?: number;
  log?: Logger;
  /** Deployment progress on stderr; default: when stderr is a TTY. */
  progress?: boolean;
}

export interface DevchainReadyInfo {
  ready: true;
  nodeUrl: string;
  chainId: number;
  metadataUrl: string;
  collections: SampleCollection[];
  erc20: SampleDeployment['erc20'];
  accounts: string[];
  congestion: CongestionLevel;
  /** What the `market` load is drawn from, whatever the level now: phaseAt(block, schedule) is a block's phase. */
  market: { seed: number; schedule: MarketSchedule };
}

export interface Devchain {
  nodeUrl: string;
  chainId: number;
  metadataUrl: string;
  collections: SampleCollection[];
  /** The sample ERC-20 (not an ERC-721: the indexer must ignore it). */
  erc20: SampleDeployment['erc20'];
  /** Funded dev accounts for apps and tests; index 0 deployed the samples and mints for giveTokens. */
  accounts: DevAccount[];
  /** Pid of the anvil process (for tests that check nothing outlives its parent). */
  anvilPid: number;
  readonly congestion: CongestionLevel;
  setCongestion(level: CongestionLevel): void;
  /** The seed and schedule of the `market` load (the same whatever the level now). */
  readonly market: { seed: number; schedule: MarketSchedule };
  /** Adds `wei` to the balance of `address` (anvil_setBalance: instant, no transaction). */
  fund(address: string, wei: bigint): Promise<void>;
  /** Mints `count` new tokens of the full collection (Txdesk Tiles) to `address`; resolves once they are mined. */
  giveTokens(address: string, count: number): Promise<void>;
  /**
   * Gives `address` tokens of the other sample standards: GIVE_DROPS Txdesk Drops in one ConsecutiveTransfer and
   * GIVE_GEMS of Txdesk Gems (ERC-1155) in one TransferBatch.
   */
  giveOtherStandards(address: string): Promise<void>;
  /** Head block, its base fee and the congestion level (with the block's phase under `market`), for a dev chain panel. */
  status(): Promise<DevchainStatus>;
  readyInfo(): DevchainReadyInfo;
  stop(): Promise<void>;
}

export async function startDevchain(opts: StartDevchainOptions = {}): Promise<Devchain> {
  const log = opts.log ?? createLogger('devchain');
  const initial = congestionSchema.parse(opts.congestion ?? 'off');
  const market = {
    seed: marketSeed(opts.seed, process.env.TXDESK_DEVCHAIN_SEED),
    schedule: checkSchedule(opts.marketSchedule ?? DEFAULT_MARKET_SCHEDULE),
  };
  const progress = createProgress(opts.progress ?? process.stderr.isTTY === true);
  const stops: (() => Promise<void>)[] = [];
  let stopping: Promise<void> | undefined;
  const stopAll = () => {
    stopping ??= (async () => {
      for (const s of stops.splice(0).reverse()) {
        try {
          await s();
        } catch (e) {
          log.warn(`stopping: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    })();
    return stopping;
  };

  try {
    const metadata = await startMetadataServer({ log });
    stops.push(metadata.stop);
    const anvil = await startAnvil({
      port: opts.port ?? 0,
      blockTimeSeconds: opts.blockTimeSeconds ?? 1,
      gasLimit: DEFAULT_BLOCK_GAS_LIMIT,
      baseFeeWei: HELD_BASE_FEE_WEI,
      accounts: TOTAL_ACCOUNT_COUNT,
      ...(opts.chainId !== undefined ? { chainId: opts.chainId } : {}),
      log,
    });
    stops.push(anvil.stop);
    const url = anvil.url;
    const chainId = opts.chainId ?? DEV_CHAIN_ID;

    const all = devAccounts(TOTAL_ACCOUNT_COUNT);
    const accounts = all.slice(0, APP_ACCOUNT_COUNT);
    const samples = await deploySamples(url, accounts, metadata.url, (label, done, total) => progress(label, done, total));
    progress.done(`sample collections deployed (${samples.collections.map((c) => c.symbol).join(', ')})`);
    for (const c of samples.collections) metadata.addCollection(c.address, c.name);
    log.info(
      `deployed ${samples.collections.map((c) => `${c.symbol} ${c.address}`).join(', ')}; ${samples.erc20.symbol} ${samples.erc20.address}`,
    );

    const load: CongestionLoad = startCongestionLoad({
      url,
      sink: samples.gasSink,
      loadAccounts: all.slice(APP_ACCOUNT_COUNT).map((a) => a.address),
      blockGasLimit: DEFAULT_BLOCK_GAS_LIMIT,
      level: initial,
      seed: market.seed,
      schedule: market.schedule,
      log,
    });
    stops.push(load.stop);

    const deployer = accounts[0]!.address;
    const full = samples.collections.find((c) => c.kind === 'full')!;
    const drops = samples.collections.find((c) => c.kind === 'batch-minted')!;
    const gems = samples.collections.find((c) => c.kind === 'multi')!;
    // One at a time: minting shares account 0's nonce sequence, funding reads then writes a balance.
    let queue: Promise<unknown> = Promise.resolve();
    const serial = <T>(job: () => Promise<T>): Promise<T> => {
      const next = queue.then(job, job);
      queue = next.catch(() => undefined);
      return next;
    };
    const checkAddress = (address: string): string => {
      if (typeof address !== 'string' || !isAddress(address))
        throw new Error(`"${String(address)}" is not an address: pass 0x followed by 40 hex digits.`);
      return getAddress(address);
    };
    // The dev chain's own work outbids any load, `market` spikes included, so tokens arrive in the next block.
    const opsGasPrice = async () =>
      opsGasPriceWei(
        BigInt((await jsonRpcCall<{ baseFeePerGas?: string }>(url, 'eth_getBlockByNumber', ['latest', false])).baseFeePerGas ?? '0x0'),
      );

    const devchain: Devchain = {
      nodeUrl: url,
      chainId,
      metadataUrl: metadata.url,
      collections: samples.collections,
      erc20: samples.erc20,
      accounts,
      anvilPid: anvil.pid,
      get congestion() {
        return load.level;
      },
      setCongestion(level) {
        load.setLevel(congestionSchema.parse(level));
      },
      market,
      async fund(address, wei) {
        const to = checkAddress(address);
        if (typeof wei !== 'bigint' || wei < 0n) throw new Error('fund() takes a non-negative amount of wei as a bigint.');
        return serial(async () => {
          const balance = BigInt(await jsonRpcCall<string>(url, 'eth_getBalance', [to, 'latest']));
          await jsonRpcCall(url, 'anvil_setBalance', [to, `0x${(balance + wei).toString(16)}`]);
        });
      },
      async giveTokens(address, count) {
        const to = checkAddress(address);
        if (!Number.isInteger(count) || count < 1 || count > 1000)
          throw new Error('giveTokens() takes a whole number of tokens from 1 to 1000.');
        return serial(async () => {
          const hashes: string[] = [];
          const gasPrice = await opsGasPrice();
          for (let left = count; left > 0; left -= 50) {
            const n = Math.min(50, left);
            hashes.push(
              await sendTx(url, {
                from: deployer,
                to: full.address,
                data: tilesAbi.encodeFunctionData('mint', [to, n]),
                gas: mintGas(n),
                gasPrice,
              }),
            );
          }
          await waitReceipts(url, hashes, { timeoutMs: 120_000 });
        });
      },
      async giveOtherStandards(address) {
        const to = checkAddress(address);
        return serial(async () => {
          const gasPrice = await opsGasPrice();
          const hashes = [
            await sendTx(url, {
              from: deployer,
              to: drops.address,
              data: dropsAbi.encodeFunctionData('mintConsecutive', [to, GIVE_DROPS]),
              gas: 150_000,
              gasPrice,
            }),
            await sendTx(url, {
              from: deployer,
              to: gems.address,
              data: gemsAbi.encodeFunctionData('mintBatch', [to, GIVE_GEMS.ids, GIVE_GEMS.amounts]),
              gas: 250_000,
              gasPrice,
            }),
          ];
          await waitReceipts(url, hashes, { timeoutMs: 120_000 });
        });
      },
      async status() {
        const block = await jsonRpcCall<{ number: string; baseFeePerGas?: string }>(url, 'eth_getBlockByNumber', ['latest', false]);
        const blockNumber = Number(BigInt(block.number));
        const congestion = load.level;
        return {
          blockNumber,
          baseFeeWei: BigInt(block.baseFeePerGas ?? '0x0').toString(),
          congestion,
          ...(congestion === 'market' ? { marketPhase: phaseAt(blockNumber, market.schedule) } : {}),
        };
      },
      readyInfo() {
        return {
          ready: true,
          nodeUrl: url,
          chainId,
          metadataUrl: metadata.url,
          collections: samples.collections,
          erc20: samples.erc20,
          accounts: accounts.map((a) => a.address),
          congestion: load.level,
          market,
        };
      },
      stop: stopAll,
    };
    return devchain;
  } catch (e) {
    progress.done();
    await stopAll();
    throw e;
  }
}
