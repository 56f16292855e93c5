// `txdesk service --dev`: a dev chain, the data service on it with open sign-up, and a dev account whose clientId
// goes into the ready line (docs/cli.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevchain, type Devchain } from '../devchain/index.js';
import { createLogger, type Logger } from '../lib/log.js';
import type { CongestionLevel } from '../shared/desktop-api.js';
import { startService, type RunningService } from './index.js';
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
  blockTimeSeconds?: number;
  rateLimitPerMinute?: number;
  tokenTtlSeconds?: number;
  log?: Logger;
}

export interface DevService {
  service: RunningService;
  devchain: Devchain;
  clientId: string;
  /** The dev account; its password is new at every start and only its hash is stored. */
  devAccount: { email: string; password: string; clientId: string };
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

  let devchain: Devchain;
  try {
    devchain = await startDevchain({
      port: opts.nodePort ?? 0,
      ...(opts.blockTimeSeconds !== undefined ? { blockTimeSeconds: opts.blockTimeSeconds } : {}),
      ...(opts.congestion !== undefined ? { congestion: opts.congestion } : {}),
      log: log.child('devchain'),
    });
  } catch (e) {
    removeTemp();
    throw e;
  }

  let service: RunningService;
  try {
    service = await startService({
      nodeUrl: devchain.nodeUrl,
      dataDir,
      port: opts.port ?? DEFAULT_SERVICE_PORT,
      platform: 'ethereum',
      network: 'local',
      openSignup: true,
      confirmations: 0,
      ...(opts.rateLimitPerMinute !== undefined ? { rateLimitPerMinute: opts.rateLimitPerMinute } : {}),
      ...(opts.tokenTtlSeconds !== undefined ? { tokenTtlSeconds: opts.tokenTtlSeconds } : {}),
      log,
    });
  } catch (e) {
    await devchain.stop();
    removeTemp();
    throw e;
  }

  let devAccount: DevService['devAccount'];
  try {
    devAccount = await service.accounts.ensureDevAccount();
    // The samples are minted before the service starts; wait until they are listed so the first page is not empty.
    // A dev chain is tiny, so this takes well under a second; past the bound, start anyway and let indexing go on.
    const bound = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), CATCH_UP_BOUND_MS).unref());
    if ((await Promise.race([service.caughtUp().then(() => 'done' as const), bound])) === 'late') {
      log.warn(`the index has not caught up with the dev chain after ${CATCH_UP_BOUND_MS / 1000} s; starting anyway`);
    }
  } catch (e) {
    await service.stop();
    await devchain.stop();
    removeTemp();
    throw e;
  }

  let stopping: Promise<void> | undefined;
  return {
    service,
    devchain,
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
    }),
    stop: () =>
      (stopping ??= (async () => {
        await service.stop();
        await devchain.stop();
        removeTemp();
      })()),
  };
}
