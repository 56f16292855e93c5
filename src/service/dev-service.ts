// `txdesk service --dev`: two dev chains (ethereum/local, the default, and ethereum/local-2, so several networks are
// visible with no setup), the data service on both with open sign-up, and a dev account whose clientId goes into the
// ready line (docs/cli.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEV_CHAIN_ID_2, startDevchain, type Devchain, type MarketSchedule } from '../devchain/devchain.js';
import { createLogger, type Logger } from '../lib/log.js';
import type { CongestionLevel } from '../shared/desktop-api.js';
import { startService } from './start-service.js';
import type { RunningService } from './service-options.js';
import { DEFAULT_SERVICE_PORT } from '../shared/defaults.js';

const CATCH_UP_BOUND_MS = 60_000;

export interface DevServiceOptions {
  /** Port of the data service; 4000 unless set, 0 picks a free one. */
  port?: number;
  /** Port of the dev chain's node; a free one unless set. */
  nodePort?: number;
  /** Kept after stop; a temporary directory (removed by stop) unless set. */
  dataDir?: string;
  congestion?: CongestionLevel;
  /** Blocks per phase of the `market` load (tests use short phases); the dev chain's default unless set. */
  marketSchedule?: MarketSchedule;
  blockTimeSeconds?: number;
  rateLimitPerMinute?: number;
  tokenTtlSeconds?: number;
  /** Also run ethereum/local-2 on a second dev chain (chain 31338); true unless set (tests that need one chain save its start). */
  secondChain?: boolean;
  log?: Logger;
}

/** One dev network: its chain and where the service serves it. */
export interface DevNetwork {
  platform: string;
  network: string;
  chainId: number;
  nodeUrl: string;
  isDefault: boolean;
  devchain: Devchain;
}

export interface DevService {
  service: RunningService;
  /** The default network's chain (ethereum/local). */
  devchain: Devchain;
  /** Every dev network, the default first. */
  networks: DevNetwork[];
  clientId: string;
  /**
   * The dev account; its password and its API secret (which manages its webhooks) are new at every start and only
   * their hashes are stored. `txdesk service --dev` prints the API secret in its ready line; the embedded default
   * hands the core only the clientId, as the app needs no more.
   */
  devAccount: { email: string; password: string; clientId: string; apiSecret: string };
  /** The `--json` ready line of docs/cli.md. */
  readyInfo(): Record<string, unknown>;
  stop(): Promise<void>;
}

export async function startDevService(opts: DevServiceOptions = {}): Promise<DevService> {
  const log = opts.log ?? createLogger('service');
  const tempDir = opts.dataDir === undefined ? mkdtempSync(join(tmpdir(), 'txdesk-dev-service-')) : undefined;
  const dataDir = opts.dataDir ?? tempDir!;
  const removeTemp = () => {
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  };

  // The second chain carries the samples too, without background load; both start at once.
  const started = await Promise.allSettled([
    startDevchain({
      port: opts.nodePort ?? 0,
      ...(opts.blockTimeSeconds !== undefined ? { blockTimeSeconds: opts.blockTimeSeconds } : {}),
      ...(opts.congestion !== undefined ? { congestion: opts.congestion } : {}),
      ...(opts.marketSchedule !== undefined ? { marketSchedule: opts.marketSchedule } : {}),
      log: log.child('devchain'),
    }),
    ...(opts.secondChain === false
      ? []
      : [
          startDevchain({
            chainId: DEV_CHAIN_ID_2,
            ...(opts.blockTimeSeconds !== undefined ? { blockTimeSeconds: opts.blockTimeSeconds } : {}),
            progress: false,
            log: log.child('devchain-2'),
          }),
        ]),
  ]);
  const chains = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const stopChains = () => Promise.all(chains.map((c) => c.stop()));
  const failed = started.find((r) => r.status === 'rejected');
  if (failed) {
    await stopChains();
    removeTemp();
    throw failed.reason;
  }
  const devchain = chains[0]!;
  const networks: DevNetwork[] = chains.map((c, i) => ({
    platform: 'ethereum',
    network: i === 0 ? 'local' : 'local-2',
    chainId: c.chainId,
    nodeUrl: c.nodeUrl,
    isDefault: i === 0,
    devchain: c,
  }));

  let service: RunningService;
  try {
    service = await startService({
      networks: networks.map((n) => ({
        platform: n.platform,
        network: n.network,
        nodeUrls: [n.nodeUrl],
        chainId: n.chainId,
        indexerLag: 0,
      })),
      dataDir,
      port: opts.port ?? DEFAULT_SERVICE_PORT,
      openSignup: true,
      // A dev receiver runs on this machine.
      allowPrivateWebhooks: true,
      ...(opts.rateLimitPerMinute !== undefined ? { rateLimitPerMinute: opts.rateLimitPerMinute } : {}),
      ...(opts.tokenTtlSeconds !== undefined ? { tokenTtlSeconds: opts.tokenTtlSeconds } : {}),
      log,
    });
  } catch (e) {
    await stopChains();
    removeTemp();
    throw e;
  }

  let devAccount: DevService['devAccount'];
  try {
    const account = await service.accounts.ensureDevAccount();
    devAccount = { ...account, apiSecret: (await service.accounts.replaceApiSecret(account.email)).apiSecret };
    // The samples are minted before the service starts; wait until they are listed so the first page is not empty.
    // A dev chain is tiny, so this takes well under a second; past the bound, start anyway and let indexing go on.
    const bound = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), CATCH_UP_BOUND_MS).unref());
    const allCaughtUp = Promise.all(service.networks.map((n) => n.caughtUp())).then(() => 'done' as const);
    if ((await Promise.race([allCaughtUp, bound])) === 'late') {
      log.warn(`the index has not caught up with the dev chain after ${CATCH_UP_BOUND_MS / 1000} s; starting anyway`);
    }
  } catch (e) {
    await service.stop();
    await stopChains();
    removeTemp();
    throw e;
  }

  let stopping: Promise<void> | undefined;
  return {
    service,
    devchain,
    networks,
    clientId: devAccount.clientId,
    devAccount,
    readyInfo: () => ({
      ready: true,
      serviceUrl: service.url,
      nodeUrl: devchain.nodeUrl,
      chainId: service.chainId,
      platform: service.platform,
      network: service.network,
      indexerLag: service.confirmations,
      clientId: devAccount.clientId,
      metadataUrl: devchain.metadataUrl,
      networks: networks.map((n, i) => ({
        platform: n.platform,
        network: n.network,
        chainId: n.chainId,
        nodeUrl: n.nodeUrl,
        state: service.networks[i]!.state(),
        default: n.isDefault,
      })),
    }),
    stop: () =>
      (stopping ??= (async () => {
        await service.stop();
        await stopChains();
        removeTemp();
      })()),
  };
}
