// The data service: one HTTP server (listing API, accounts, /health, /openapi.json) plus the tracker's WebSocket on the
// same port, for any number of networks, each with its own indexer and receipt watcher (network/served-network.ts);
// state in SQLite under the data dir, or, with `database`, in a PostgreSQL database that any number of instances
// share (docs/deploy.md).
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
import { shareRateLimits } from './db/pg-rate-limits.js';
import { databaseUrlProblem } from './db/service-database.js';
import { createRateLimiter } from '../lib/http-rate-limit.js';
import { publicUrlProblem } from './http/service-hosts.js';
import { closeServer, createServiceServer, listen } from './http/service-server.js';
import { createServiceApp } from './http/service-app.js';
import { createServiceMetrics } from './http/service-metrics.js';
import type { HealthSource } from './http/service-routes.js';
import { defaultConfirmations, defaultNetwork, waitForChainId } from './http/service-node.js';
import { createListingEndpoints, listingRoutes, type ListingEndpoints } from './listing/listing-routes.js';
import { networkKey, networkListSchema, type NetworkConfig } from './network/network-config.js';
import { networkRoutes } from './network/network-routes.js';
import { startServedNetwork, type ServedNetwork } from './network/served-network.js';
import { routeTrackerUpgrades, type TrackerRoute } from './tracker/tracker-ws-router.js';
import { startWebhooks, type WebhooksOptions } from './webhooks/index.js';
import { webhookRoutes } from './webhooks/webhook-routes.js';

export { startDevService, type DevService, type DevServiceOptions } from './dev-service.js';
export type { Accounts } from './accounts/index.js';
export type { NetworkConfig } from './network/network-config.js';
export type { ServedNetwork, NetworkReport } from './network/served-network.js';

export { DEFAULT_SERVICE_PORT };
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 6000;
/** Token refreshes per clientId and minute: each costs the node an eth_call. */
export const DEFAULT_REFRESH_RATE_LIMIT_PER_MINUTE = 30;
/** Webhook tests per clientId and minute (per instance): each sends a request to a URL the client chose. */
export const WEBHOOK_TESTS_PER_MINUTE = 30;

export interface ServiceOptions {
  /** The one-network short form (`--node`): its network is `platform`/`network`; give this or `networks`. */
  nodeUrl?: string;
  /** Every network served (`--network`, `--config`); the first is the default. */
  networks?: NetworkConfig[];
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
  /** Blocks the indexer stays behind the head: 0 on dev chains (31337, 1337), else 12; with `networks`, for those that set none. */
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
  /** Node probing period and timeout per probe (node-watch.ts defaults unless set; tests shorten them). */
  probeMs?: number;
  probeTimeoutMs?: number;
  /** Lets webhooks reach loopback, private and link-local addresses (`--allow-private-webhooks`, on with `--dev`). */
  allowPrivateWebhooks?: boolean;
  /** Webhooks per clientId (default 20) and deliveries per second per clientId and network (default 50). */
  maxWebhooksPerClient?: number;
  webhookDeliveriesPerSecond?: number;
  /** Tests shorten the webhooks' backoff, retry window, timeout and polls. */
  webhookTuning?: Pick<WebhooksOptions, 'backoff' | 'retryWindowMs' | 'timeoutMs' | 'pollMs' | 'activityPollMs' | 'lookup'>;
  /**
   * Ends a start that is still waiting for its node (`nodeUrl` whose chain id is not known yet): the start rejects
   * with the signal's reason. The CLI aborts it on Ctrl-C.
   */
  signal?: AbortSignal;
  log?: Logger;
}

export type ServiceRole = 'indexer-leader' | 'watcher-leader' | 'follower';

export interface RunningService {
  url: string;
  /** The default network's first node, chain id, names and indexer lag. */
  nodeUrl: string;
  chainId: number;
  platform: string;
  network: string;
  confirmations: number;
  /** Every network served, the default first. */
  networks: ServedNetwork[];
  accounts: Accounts;
  server: Server;
  /** The SQLite database of a single instance; null on a fleet instance (its state is all in PostgreSQL). */
  db: Db | null;
  /** Resolves when the default network's indexer has reached the head (minus confirmations) once. */
  caughtUp(): Promise<void>;
  /** The default network's; zeros on an instance that does not index it (another instance holds its indexer lock). */
  indexerStatus(): { indexedBlock: number; headBlock: number };
  /** What this instance does for the default network in a fleet; both leaders when it runs alone. */
  roles(): ServiceRole[];
  stop(): Promise<void>;
}

/** Options come from code (CLI, app core, tests); a bad one is a clear error before anything starts. */
const optionsSchema = z
  .looseObject({
    nodeUrl: z.string().min(1).optional(),
    networks: networkListSchema.optional(),
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
    allowPrivateWebhooks: z.boolean().optional(),
    maxWebhooksPerClient: z.number().int().min(0).optional(),
    webhookDeliveriesPerSecond: z.number().min(0).optional(),
  })
  .refine((o) => (o.nodeUrl === undefined) !== (o.networks === undefined), {
    error: "Give the service either 'nodeUrl' (one network) or 'networks', not both and not neither.",
    path: ['networks'],
  })
  .refine((o) => o.database !== undefined || o.dataDir !== undefined, {
    error: "The service option 'dataDir' is required without 'database': the folder where SQLite keeps the service's state.",
    path: ['dataDir'],
  });

/**
 * The one-network short form becomes a list: its chain id is read first (the network's name can follow from it),
 * waited for while the node does not give it (down, or pushing back), since a node that is away is no reason to exit.
 */
async function networksOf(opts: ServiceOptions, log: Logger): Promise<NetworkConfig[]> {
  if (opts.networks) return opts.networks.map((n) => (n.indexerLag === undefined && opts.confirmations !== undefined ? { ...n, indexerLag: opts.confirmations } : n));
  const chainId = await waitForChainId(opts.nodeUrl!, log, opts.signal);
  return [
    {
      platform: opts.platform ?? 'ethereum',
      network: opts.network ?? defaultNetwork(chainId),
      nodeUrls: [opts.nodeUrl!],
      chainId,
      indexerLag: opts.confirmations ?? defaultConfirmations(chainId),
    },
  ];
}

export async function startService(opts: ServiceOptions): Promise<RunningService> {
  const checked = optionsSchema.safeParse(opts, { reportInput: true });
  if (!checked.success) throw new TxdeskError('INVALID_PARAMETER', describeIssues(checked.error.issues, 'service option'));
  const log = opts.log ?? createLogger('service');
  const configs = await networksOf(opts, log);
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

    // Each network waits for its first round of node probes; one whose nodes do not answer keeps trying on its own.
    // Webhooks start once the networks exist; the tracker's nudges reach them through this late binding.
    let nudgeWebhooks: (key: string) => void = () => {};
    const networks = await Promise.all(
      configs.map(async (config, i) => {
        const served = await startServedNetwork({
          config,
          isDefault: i === 0,
          stores: await backend.openNetwork(networkKey(config), i === 0),
          isClientId: (id) => accounts.isClientId(id),
          ...(opts.minAckTimeoutMs !== undefined ? { minAckTimeoutMs: opts.minAckTimeoutMs } : {}),
          ...(opts.probeMs !== undefined ? { probeMs: opts.probeMs } : {}),
          ...(opts.probeTimeoutMs !== undefined ? { probeTimeoutMs: opts.probeTimeoutMs } : {}),
          onTrackerStored: () => nudgeWebhooks(networkKey(config)),
          log,
        });
        shutdown.add(() => served.stop());
        return served;
      }),
    );
    // A network whose nodes are away or pushing back starts by itself once one answers, and its listing answers from
    // what it has indexed meanwhile: no reason to exit. A wrong chain everywhere is: waiting does not fix a configuration.
    if (networks.every((n) => n.state() === 'wrong-chain')) {
      throw new TxdeskError('UPSTREAM_UNAVAILABLE', `No network could be started: ${networks.map((n) => `${n.key}: ${n.report().reason.replace(/\.$/, '')}`).join('; ')}.`);
    }
    // (A network stopped for a wrong chain has had its line from the node watch.)
    for (const n of networks.filter((x) => x.state() === 'starting' || x.state() === 'unreachable')) {
      log.warn(`${n.key} is not served yet (${n.report().reason.replace(/\.$/, '')}); it starts by itself when a node of its chain answers, and its listing answers from what is indexed meanwhile.`);
    }
    const main = networks[0]!;
    const webhooks = startWebhooks({
      networks: networks.map((n) => ({
        key: n.key,
        platform: n.platform,
        network: n.network,
        store: n.stores.webhooks,
        index: n.stores.index,
        nodeUrl: () => n.nodeUrl(),
        activityStart: async () => (await n.stores.index.tip()) ?? Math.max(-1, (n.report().headBlock ?? 0) - (n.confirmations() ?? 0)),
      })),
      allowPrivate: opts.allowPrivateWebhooks ?? false,
      alone: shared === null,
      log: log.child('webhooks'),
      ...(opts.maxWebhooksPerClient !== undefined ? { maxWebhooksPerClient: opts.maxWebhooksPerClient } : {}),
      ...(opts.webhookDeliveriesPerSecond !== undefined ? { perClientPerSecond: opts.webhookDeliveriesPerSecond } : {}),
      ...opts.webhookTuning,
    });
    shutdown.add(() => webhooks.stop());
    nudgeWebhooks = (key) => webhooks.nudge(key);

    const roles = (): ServiceRole[] => {
      const held = main.roles();
      return held.length > 0 ? held : ['follower'];
    };
    const health: HealthSource = {
      get chainId() {
        return main.chainId() ?? 0;
      },
      platform: main.platform,
      network: main.network,
      get confirmations() {
        return main.confirmations() ?? 0;
      },
      status: () => {
        const r = main.report();
        return {
          ...main.indexerStatus(),
          truncatedRanges: main.truncatedRanges(),
          roles: roles(),
          store: backend.kind,
          indexLagBlocks: r.indexLagBlocks,
          outboxDepth: r.outboxDepth,
          networks: networks.map((n) => n.report()),
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
    // One set of endpoints per network and path: page links keep the path a page was asked for.
    const endpointsOf = (n: ServedNetwork, pathPrefix: string): ListingEndpoints =>
      createListingEndpoints({
        reads: n.stores.listing,
        isClientId: (id) => accounts.isKnownClientId(id),
        limiter: limiters.listing,
        refreshLimiter: limiters.refresh,
        refreshToken: (contract, id) => n.refreshToken(contract, id),
        pathPrefix,
        unavailable: () => n.listingRefusal(),
        indexHeaders: () => n.listingHeaders(),
      });
    const seedListing = endpointsOf(main, '/nft/v1');
    const scopedListing = new Map(networks.map((n) => [n.key, endpointsOf(n, `/nft/v1/${n.key}`)]));
    const served = networks.map((n) => n.key).join(', ');
    const pick = (net: { platform: string; network: string } | null): ListingEndpoints => {
      if (!net) return seedListing;
      const found = scopedListing.get(networkKey(net));
      if (!found) throw new TxdeskError('NOT_FOUND', `This service does not serve ${networkKey(net).slice(0, 90)}; it serves ${served} (GET /nft/v1/networks lists them).`);
      return found;
    };

    const publicUrl = opts.publicUrl ? new URL(opts.publicUrl).origin : undefined;
    // The app and the server refer to each other: page links need the listening address, known once it listens.
    const origin = () => publicUrl ?? http.url();
    const metrics = createServiceMetrics({
      store: backend.kind,
      networks: () =>
        networks.map((n) => {
          const r = n.report();
          const inUse = r.node.inUse === null ? null : { index: r.node.inUse, url: r.node.nodes[r.node.inUse]?.url ?? '' };
          const nodeBudgets = r.node.nodes.map((x, index) => ({ index, url: x.url, requestsPerSecond: x.requestsPerSecond, backPressure: x.backPressure }));
          return { ...r, receiptsDelivered: n.receiptsDelivered(), webhookDeliveries: webhooks.counts(n.key), nodeErrors: n.errorCounts(), nodeInUse: inUse, nodeBudgets };
        }),
    });
    const routes = [
      ...accounts.routes(),
      ...networkRoutes(() => networks.map((n) => n.report())),
      ...listingRoutes(pick, origin),
      ...webhookRoutes({
        webhooks,
        authorize: (authorization) => accounts.authorizeManagement(authorization, 'Managing webhooks'),
        limiter: limiters.listing,
        testLimiter: createRateLimiter(WEBHOOK_TESTS_PER_MINUTE, (s) => `Too many webhook tests for this clientId; try again in ${s} s.`),
      }),
      metrics.route,
    ];
    const app = createServiceApp(health, routes, origin, log, { observe: metrics.observe });
    const http = createServiceServer(app.listener, host, publicUrl ? { publicUrl } : {});
    await listen(http.server, opts.port ?? DEFAULT_SERVICE_PORT, host);
    shutdown.add(() => closeServer(http.server));
    const url = http.url();
    const trackerRoutes = new Map<string, TrackerRoute>(networks.map((n) => [n.key, n.trackerRoute]));
    shutdown.add(routeTrackerUpgrades(http.server, trackerRoutes, (req) => http.checkHost(req)));
    // The trackers' sockets close before the server does (stop() runs once; the earlier registration covers a failed start).
    shutdown.add(() => Promise.all(networks.map((n) => n.stop())));

    log.info(`data service for ${served} on ${url}${publicUrl ? ` (public URL ${publicUrl})` : ''}`);
    return {
      url,
      nodeUrl: configs[0]!.nodeUrls[0]!,
      chainId: health.chainId,
      platform: main.platform,
      network: main.network,
      confirmations: health.confirmations,
      networks,
      accounts,
      server: http.server,
      db: backend.db,
      caughtUp: () => main.caughtUp(),
      indexerStatus: () => main.indexerStatus(),
      roles,
      stop: () => shutdown.run(),
    };
  } catch (e) {
    await shutdown.run();
    throw e;
  }
}
