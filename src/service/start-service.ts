// The data service: one HTTP server (listing API, accounts, /health, /openapi.json) plus the tracker's WebSocket on the
// same port, for any number of networks, each with its own indexer and receipt watcher (network/served-network.ts);
// state in SQLite under the data dir, or, with `database`, in a PostgreSQL database that any number of instances
// share (docs/deploy.md). startService runs the phases of service-startup-phases.ts and service-serve.ts in order.
import { createLogger } from '../lib/log.js';
import { createShutdown } from '../lib/shutdown.js';
import { serveHttp } from './service-serve.js';
import { checkServiceOptions, type RunningService, type ServiceOptions } from './service-options.js';
import {
  healthOf,
  listingEndpoints,
  nameNetworks,
  openAccounts,
  refuseWhenNoneServes,
  rolesOf,
  startNetworks,
  startRateLimits,
  startServiceWebhooks,
  type ServiceStartContext,
} from './service-startup-phases.js';

export async function startService(opts: ServiceOptions): Promise<RunningService> {
  checkServiceOptions(opts);
  const log = opts.log ?? createLogger('service');
  const configs = await nameNetworks({ opts, log });
  const host = opts.host ?? '127.0.0.1';

  // Everything started registers its undo here, so a failure half-way and stop() undo exactly what exists, newest first.
  const shutdown = createShutdown((e) => log.warn(`while stopping: ${e instanceof Error ? e.message : String(e)}`));
  const c: ServiceStartContext = { opts, log, shutdown };
  try {
    const { backend, accounts } = await openAccounts(c);
    // The trackers nudge the webhooks, which start once the networks exist: bound late.
    let nudgeWebhooks: (key: string) => void = () => {};
    const networks = await startNetworks(c, configs, { backend, accounts }, (key) => nudgeWebhooks(key));
    refuseWhenNoneServes(networks, log);
    const webhooks = startServiceWebhooks(c, networks, backend.shared === null);
    nudgeWebhooks = (key) => webhooks.nudge(key);
    const main = networks[0]!;
    const roles = rolesOf(main);
    const health = healthOf(networks, backend.kind, roles);
    const limiters = await startRateLimits(c, backend.shared, webhooks.rateLimiters());
    const pickListing = listingEndpoints(networks, accounts, limiters);
    const { http, publicUrl } = await serveHttp(
      c,
      { networks, accounts, store: backend.kind, webhooks, limiters, pickListing, health },
      host,
    );

    const url = http.url();
    log.info(`data service for ${networks.map((n) => n.key).join(', ')} on ${url}${publicUrl ? ` (public URL ${publicUrl})` : ''}`);
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
