// The data service: one HTTP server (listing API, accounts, /health, /openapi.json) plus the tracker's WebSocket on the
// same port, the ERC-721 indexer behind it, all in one SQLite database under the data dir; or, with `database`,
// accounts, token index and tracker in a PostgreSQL database that any number of instances share (docs/deploy.md).
import type { Server } from 'node:http';
import { z } from 'zod';
import { DEFAULT_SERVICE_PORT } from '../shared/defaults.js';
import { TxdeskError } from '../shared/errors.js';
import { describeIssues } from '../lib/zod-issues.js';
import { createLogger, type Logger } from '../lib/log.js';
import { createShutdown } from '../lib/shutdown.js';
import type { Db } from '../lib/sqlite.js';
import { createAccounts, type Accounts } from './accounts/index.js';
import { openBackend } from './backend.js';
import { startLeaderIndexer, startLocalIndexer } from './db/indexer-leadership.js';
import { shareRateLimits } from './db/pg-rate-limits.js';
import { databaseUrlProblem } from './db/service-database.js';
import { createRateLimiter } from '../lib/http-rate-limit.js';
import { publicUrlProblem } from './http/service-hosts.js';
import { closeServer, createServiceServer, listen } from './http/service-server.js';
import { createServiceApp } from './http/service-app.js';
import type { HealthSource } from './http/service-routes.js';
import { defaultConfirmations, defaultNetwork, fetchChainId } from './http/service-node.js';
import { startIndexer } from './indexer/index.js';
import { createListingEndpoints, listingRoutes } from './listing/listing-routes.js';
import { attachTracker } from './tracker/index.js';

export { startDevService, type DevService, type DevServiceOptions } from './dev-service.js';
export type { Accounts } from './accounts/index.js';

export { DEFAULT_SERVICE_PORT };
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 6000;
/** Token refreshes per clientId and minute: each costs the node an eth_call. */
export const DEFAULT_REFRESH_RATE_LIMIT_PER_MINUTE = 30;

export interface ServiceOptions {
  nodeUrl: string;
  /** Where `service.sqlite` lives; needed without `database`, unused with it (a fleet instance keeps no files). */
  dataDir?: string;
  /**
   * postgres:// URL of a database shared by every instance: accounts, sessions, the token index, trackings,
   * subscriptions and messages live there, and one instance (by advisory lock) indexes and one watches receipts.
   * SQLite in `dataDir` unless set.
   */
  database?: string;
  /** 4000 unless set; 0 picks a free port. */
  port?: number;
  /** 127.0.0.1 unless set. */
  host?: string;
  /**
   * The URL clients reach the service at (e.g. https://txdesk.example.com behind a proxy): its host is answered
   * besides loopback, and page links and OpenAPI servers are built from it. The listening address unless set.
   */
  publicUrl?: string;
  /** Blocks the indexer stays behind the head: 0 on dev chains (31337, 1337), else 12. */
  confirmations?: number;
  /** Lets anyone create an account with POST /users/v1/signup; off unless set. */
  openSignup?: boolean;
  platform?: string;
  /** Derived from the chain id unless set (1 = mainnet, 31337 = local, ...). */
  network?: string;
  minAckTimeoutMs?: number;
  /** Listing requests per clientId per minute (burst: one minute's worth); <= 0 or Infinity disables the limit. */
  rateLimitPerMinute?: number;
  /** POST .../tokens/{id}/refresh per clientId and minute (default 30). */
  refreshRateLimitPerMinute?: number;
  /** Session token lifetime; 7 days unless set. */
  tokenTtlSeconds?: number;
  /** Sign-up/login/passwd requests per client IP per minute; 120 unless set, <= 0 disables. */
  authRateLimitPerMinute?: number;
  log?: Logger;
}

export type ServiceRole = 'indexer-leader' | 'watcher-leader' | 'follower';

export interface RunningService {
  url: string;
  nodeUrl: string;
  chainId: number;
  platform: string;
  network: string;
  confirmations: number;
  accounts: Accounts;
  server: Server;
  /** The SQLite database of a single instance; null on a fleet instance (its state is all in PostgreSQL). */
  db: Db | null;
  /** Resolves when the indexer has reached the head (minus confirmations) once. */
  caughtUp(): Promise<void>;
  /** Zeros on an instance that does not index (another instance holds the indexer lock). */
  indexerStatus(): { indexedBlock: number; headBlock: number };
  /** What this instance does in a fleet; both leaders when it runs alone. */
  roles(): ServiceRole[];
  stop(): Promise<void>;
}

/** Options come from code (CLI, app core, tests); a bad one is a clear error before anything starts. */
const optionsSchema = z
  .looseObject({
    nodeUrl: z.string().min(1),
    dataDir: z.string().min(1).optional(),
    database: z
      .string()
      .refine((v) => databaseUrlProblem(v) === null, { error: (i) => databaseUrlProblem(String(i.input)) ?? 'invalid' })
      .optional(),
    port: z.number().int().min(0).max(65535).optional(),
    host: z.string().min(1).optional(),
    publicUrl: z
      .string()
      .refine((v) => publicUrlProblem(v) === null, { error: (i) => publicUrlProblem(String(i.input)) ?? 'invalid' })
      .optional(),
    confirmations: z.number().int().min(0).max(10_000).optional(),
    openSignup: z.boolean().optional(),
    platform: z.string().regex(/^[a-z0-9-]{1,40}$/, { error: 'must be 1 to 40 lowercase letters, digits or dashes' }).optional(),
    network: z.string().regex(/^[a-z0-9-]{1,40}$/, { error: 'must be 1 to 40 lowercase letters, digits or dashes' }).optional(),
    minAckTimeoutMs: z.number().int().min(1).optional(),
    rateLimitPerMinute: z.number().min(0).optional(),
    refreshRateLimitPerMinute: z.number().min(0).optional(),
    tokenTtlSeconds: z.number().int().min(1).optional(),
    authRateLimitPerMinute: z.number().min(0).optional(),
  })
  .refine((o) => o.database !== undefined || o.dataDir !== undefined, {
    error: "The service option 'dataDir' is required without 'database': the folder where SQLite keeps the service's state.",
    path: ['dataDir'],
  });

export async function startService(opts: ServiceOptions): Promise<RunningService> {
  const checked = optionsSchema.safeParse(opts, { reportInput: true });
  if (!checked.success) throw new TxdeskError('INVALID_PARAMETER', describeIssues(checked.error.issues, 'service option'));
  const log = opts.log ?? createLogger('service');
  const chainId = await fetchChainId(opts.nodeUrl);
  const platform = opts.platform ?? 'ethereum';
  const network = opts.network ?? defaultNetwork(chainId);
  const confirmations = opts.confirmations ?? defaultConfirmations(chainId);
  const host = opts.host ?? '127.0.0.1';

  // Everything started registers its undo here, so a failure half-way and stop() undo exactly what exists, newest first.
  const shutdown = createShutdown((e) => log.warn(`while stopping: ${e instanceof Error ? e.message : String(e)}`));

  try {
    const backend = await openBackend({ ...opts, log }, shutdown);
    const { shared } = backend;
    const accounts = await createAccounts(backend.accounts, {
      openSignup: opts.openSignup ?? false,
      ...(opts.tokenTtlSeconds !== undefined ? { tokenTtlSeconds: opts.tokenTtlSeconds } : {}),
      ...(opts.authRateLimitPerMinute !== undefined ? { authRateLimitPerMinute: opts.authRateLimitPerMinute } : {}),
    });
    backend.onClientIdCreated((id) => accounts.learnClientId(id));

    // In a fleet the leader writes the index and every instance's listing reads it.
    const runIndexer = () => startIndexer({ store: backend.index, nodeUrl: opts.nodeUrl, confirmations, log: log.child('indexer') });
    const indexerRole = shared ? startLeaderIndexer(shared.url, runIndexer, log.child('indexer')) : await startLocalIndexer(runIndexer);
    shutdown.add(() => indexerRole.stop());
    const indexer = {
      status: () => indexerRole.current()?.status() ?? { indexedBlock: 0, headBlock: 0 },
      truncatedRanges: () => indexerRole.current()?.truncatedRanges() ?? [],
      refreshToken(contract: string, id: bigint): Promise<boolean> {
        const running = indexerRole.current();
        if (!running) throw new TxdeskError('UPSTREAM_UNAVAILABLE', 'This instance does not index tokens (another one holds the indexer role); send the refresh to the indexing instance, or retry later.');
        return running.refreshToken(contract, id);
      },
    };
    let outboxDepth: number | null = null;
    let watcherRole: () => boolean = () => false;
    const roles = (): ServiceRole[] => {
      const out: ServiceRole[] = [];
      if (indexerRole.isLeader()) out.push('indexer-leader');
      if (watcherRole()) out.push('watcher-leader');
      return out.length > 0 ? out : ['follower'];
    };

    const health: HealthSource = {
      chainId,
      platform,
      network,
      confirmations,
      status: () => {
        const st = indexerRole.current()?.status() ?? null;
        return {
          ...indexer.status(),
          truncatedRanges: indexer.truncatedRanges(),
          roles: roles(),
          store: backend.kind,
          /** Blocks between the node's head and the indexed tip; null on an instance that does not index. */
          indexLagBlocks: st ? Math.max(0, st.headBlock - st.indexedBlock) : null,
          /** Un-acked deliveries of every subscription, as last counted (every 2 s). */
          outboxDepth,
        };
      },
    };
    const limiters = {
      listing: createRateLimiter(opts.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE),
      refresh: createRateLimiter(
        opts.refreshRateLimitPerMinute ?? DEFAULT_REFRESH_RATE_LIMIT_PER_MINUTE,
        (s) => `Too many token refreshes for this clientId; try again in ${s} s.`,
      ),
    };
    if (shared) {
      // Per-clientId limits hold across the fleet (approximately: see docs/deploy.md).
      const exchange = await shareRateLimits(shared.pool, shared.instance, limiters, log.child('rate-limits'));
      shutdown.add(() => exchange.stop());
    }
    const listing = createListingEndpoints({
      reads: backend.listing,
      isClientId: (id) => accounts.isKnownClientId(id),
      limiter: limiters.listing,
      refreshLimiter: limiters.refresh,
      refreshToken: (contract, id) => indexer.refreshToken(contract, id),
    });

    const publicUrl = opts.publicUrl ? new URL(opts.publicUrl).origin : undefined;
    // The app and the server refer to each other: page links need the listening address, known once it listens.
    const origin = () => publicUrl ?? http.url();
    const app = createServiceApp(health, [...accounts.routes(), ...listingRoutes(listing, origin)], origin, log);
    const http = createServiceServer(app.listener, host, publicUrl ? { publicUrl } : {});
    await listen(http.server, opts.port ?? DEFAULT_SERVICE_PORT, host);
    shutdown.add(() => closeServer(http.server));
    const url = http.url();

    const tracker = await attachTracker(http.server, {
      store: backend.tracker,
      ...(shared ? { shared } : {}),
      nodeUrl: opts.nodeUrl,
      platform,
      network,
      isClientId: (id) => accounts.isClientId(id),
      checkHost: (req) => http.checkHost(req),
      ...(opts.minAckTimeoutMs !== undefined ? { minAckTimeoutMs: opts.minAckTimeoutMs } : {}),
      log,
    });
    shutdown.add(() => tracker.stop());
    watcherRole = () => tracker.isWatcher();
    const countOutbox = () =>
      backend.tracker.outboxDepth().then(
        (n) => void (outboxDepth = n),
        () => void (outboxDepth = null),
      );
    await countOutbox();
    const outboxTimer = setInterval(() => void countOutbox(), 2_000);
    outboxTimer.unref();
    shutdown.add(() => clearInterval(outboxTimer));

    log.info(`data service for ${platform}/${network} (chain ${chainId}) on ${url}${publicUrl ? ` (public URL ${publicUrl})` : ''}, indexing ${confirmations} blocks behind the head`);
    return {
      url,
      nodeUrl: opts.nodeUrl,
      chainId,
      platform,
      network,
      confirmations,
      accounts,
      server: http.server,
      db: backend.db,
      caughtUp: () => indexerRole.caughtUp(),
      indexerStatus: () => indexer.status(),
      roles,
      stop: () => shutdown.run(),
    };
  } catch (e) {
    await shutdown.run();
    throw e;
  }
}
