// The phases of the data service's start-up, in the order start-service.ts runs them. Each takes what it needs, returns
// what later phases need, and registers the undo of each thing it starts right after starting it, so stop() and a
// failure half-way undo exactly what exists, newest first (docs/code-organisation.md, "Start-up and shutdown").
import type { Logger } from '../lib/log.js';
import { createRateLimiter, type SharedRateLimiter } from '../lib/http-rate-limit.js';
import type { Shutdown } from '../lib/shutdown.js';
import { TxdeskError } from '../shared/errors.js';
import { createAccounts, type Accounts } from './accounts/accounts.js';
import { openBackend, type Backend } from './backend.js';
import { shareRateLimits } from './db/pg-rate-limits.js';
import { defaultConfirmations, defaultNetwork, waitForChainId } from './http/service-node.js';
import type { HealthSource } from './http/service-routes.js';
import { createListingEndpoints, type ListingEndpoints, type PickListing } from './listing/listing-routes.js';
import { networkKey, type NetworkConfig } from './network/network-config.js';
import { startServedNetwork, type ServedNetwork } from './network/served-network.js';
import { startWebhooks } from './webhooks/webhook-service.js';
import {
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  DEFAULT_REFRESH_RATE_LIMIT_PER_MINUTE,
  type ServiceOptions,
  type ServiceRole,
} from './service-options.js';

/** What every phase may use. */
export interface ServiceStartContext {
  opts: ServiceOptions;
  log: Logger;
  shutdown: Shutdown;
}

/**
 * The networks served. The one-network short form becomes a list: its chain id is read first (the network's name can
 * follow from it), waited for while the node does not give it (down, or pushing back), since a node that is away is no
 * reason to exit.
 */
export async function nameNetworks({ opts, log }: Pick<ServiceStartContext, 'opts' | 'log'>): Promise<NetworkConfig[]> {
  if (opts.networks)
    return opts.networks.map((n) =>
      n.indexerLag === undefined && opts.confirmations !== undefined ? { ...n, indexerLag: opts.confirmations } : n,
    );
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

/** The backend (the SQLite file, or the fleet's pool and LISTEN connection) and the accounts kept in it. */
export async function openAccounts({ opts, log, shutdown }: ServiceStartContext): Promise<{ backend: Backend; accounts: Accounts }> {
  const backend = await openBackend({ ...opts, log }, shutdown);
  const accounts = await createAccounts(backend.accounts, {
    openSignup: opts.openSignup ?? false,
    ...(opts.tokenTtlSeconds !== undefined ? { tokenTtlSeconds: opts.tokenTtlSeconds } : {}),
    ...(opts.authRateLimitPerMinute !== undefined ? { authRateLimitPerMinute: opts.authRateLimitPerMinute } : {}),
  });
  backend.onClientIdCreated((id) => accounts.learnClientId(id));
  return { backend, accounts };
}

/**
 * Every network at once; each waits for its first round of node probes, and one whose nodes do not answer keeps trying
 * on its own. `onTrackerStored` is how a network's tracker nudges the webhooks, which start after the networks exist.
 */
export function startNetworks(
  { opts, log, shutdown }: ServiceStartContext,
  configs: NetworkConfig[],
  { backend, accounts }: { backend: Backend; accounts: Accounts },
  onTrackerStored: (key: string) => void,
): Promise<ServedNetwork[]> {
  return Promise.all(
    configs.map(async (config, i) => {
      const served = await startServedNetwork({
        config,
        isDefault: i === 0,
        stores: await backend.openNetwork(networkKey(config), i === 0),
        isClientId: (id) => accounts.isClientId(id),
        ...(opts.minAckTimeoutMs !== undefined ? { minAckTimeoutMs: opts.minAckTimeoutMs } : {}),
        ...(opts.probeMs !== undefined ? { probeMs: opts.probeMs } : {}),
        ...(opts.probeTimeoutMs !== undefined ? { probeTimeoutMs: opts.probeTimeoutMs } : {}),
        onTrackerStored: () => onTrackerStored(networkKey(config)),
        log,
      });
      shutdown.add(() => served.stop());
      return served;
    }),
  );
}

/**
 * Refuses to start when no network can be served. A network whose nodes are away or pushing back starts by itself once
 * one answers, and its listing answers from what it has indexed meanwhile: no reason to exit. A wrong chain everywhere
 * is: waiting does not fix a configuration.
 */
export function refuseWhenNoneServes(networks: readonly ServedNetwork[], log: Logger): void {
  if (networks.every((n) => n.state() === 'wrong-chain')) {
    throw new TxdeskError(
      'UPSTREAM_UNAVAILABLE',
      `No network could be started: ${networks.map((n) => `${n.key}: ${n.report().reason.replace(/\.$/, '')}`).join('; ')}.`,
    );
  }
  // (A network stopped for a wrong chain has had its line from the node watch.)
  for (const n of networks.filter((x) => x.state() === 'starting' || x.state() === 'unreachable')) {
    log.warn(
      `${n.key} is not served yet (${n.report().reason.replace(/\.$/, '')}); it starts by itself when a node of its chain ` +
        `answers, and its listing answers from what is indexed meanwhile.`,
    );
  }
}

export type ServiceWebhooks = ReturnType<typeof startWebhooks>;

/** The webhooks of every network: deliveries, retries and the address-activity scan. */
export function startServiceWebhooks(
  { opts, log, shutdown }: ServiceStartContext,
  networks: readonly ServedNetwork[],
  alone: boolean,
): ServiceWebhooks {
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
    alone,
    log: log.child('webhooks'),
    ...(opts.maxWebhooksPerClient !== undefined ? { maxWebhooksPerClient: opts.maxWebhooksPerClient } : {}),
    ...(opts.webhookDeliveriesPerSecond !== undefined ? { perClientPerSecond: opts.webhookDeliveriesPerSecond } : {}),
    ...opts.webhookTuning,
  });
  shutdown.add(() => webhooks.stop());
  return webhooks;
}

export interface ServiceLimiters {
  listing: SharedRateLimiter;
  refresh: SharedRateLimiter;
}

/**
 * The per-clientId request limits; on a fleet they hold across instances (approximately: see docs/deploy.md), as do the
 * `alsoShared` ones (the webhooks' deliveries per second).
 */
export async function startRateLimits(
  { opts, log, shutdown }: ServiceStartContext,
  shared: Backend['shared'],
  alsoShared: Record<string, SharedRateLimiter> = {},
): Promise<ServiceLimiters> {
  const limiters = {
    listing: createRateLimiter(opts.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE),
    refresh: createRateLimiter(
      opts.refreshRateLimitPerMinute ?? DEFAULT_REFRESH_RATE_LIMIT_PER_MINUTE,
      (s) => `Too many token refreshes for this clientId; try again in ${s} s.`,
    ),
  };
  if (shared) {
    const exchange = await shareRateLimits(shared.pool, shared.instance, { ...alsoShared, ...limiters }, log.child('rate-limits'));
    shutdown.add(() => exchange.stop());
  }
  return limiters;
}

/**
 * The listing endpoints, one set per network and path, so page links keep the path a page was asked for: the seed paths
 * (/nft/v1/...) answer for the default network, /nft/v1/{platform}/{network}/... for each.
 */
export function listingEndpoints(networks: readonly ServedNetwork[], accounts: Accounts, limiters: ServiceLimiters): PickListing {
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
  const seedListing = endpointsOf(networks[0]!, '/nft/v1');
  const scopedListing = new Map(networks.map((n) => [n.key, endpointsOf(n, `/nft/v1/${n.key}`)]));
  const served = networks.map((n) => n.key).join(', ');
  return (net) => {
    if (!net) return seedListing;
    const found = scopedListing.get(networkKey(net));
    if (!found)
      throw new TxdeskError(
        'NOT_FOUND',
        `This service does not serve ${networkKey(net).slice(0, 90)}; it serves ${served} (GET /nft/v1/networks lists them).`,
      );
    return found;
  };
}

/** What this instance does for the default network in a fleet; both leaders when it runs alone. */
export function rolesOf(main: ServedNetwork): () => ServiceRole[] {
  return () => {
    const held = main.roles();
    return held.length > 0 ? held : ['follower'];
  };
}

/** /health's view of the service: the default network's figures, and every network's report. */
export function healthOf(networks: readonly ServedNetwork[], store: Backend['kind'], roles: () => ServiceRole[]): HealthSource {
  const main = networks[0]!;
  return {
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
        store,
        indexLagBlocks: r.indexLagBlocks,
        outboxDepth: r.outboxDepth,
        networks: networks.map((n) => n.report()),
      };
    },
  };
}
