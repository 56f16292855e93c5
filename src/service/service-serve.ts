// The last phase of the data service's start-up: every route (accounts, networks, listing, webhooks, /metrics) on one
// Hono app, the HTTP server listening, and the trackers' WebSocket upgrades routed by network on the same port.
import { createRateLimiter } from '../lib/http-rate-limit.js';
import type { Accounts } from './accounts/accounts.js';
import type { Backend } from './backend.js';
import { createServiceApp } from './http/service-app.js';
import { createServiceMetrics, type ServiceMetrics } from './http/service-metrics.js';
import type { HealthSource } from './http/service-routes.js';
import { closeServer, createServiceServer, listen, type ServiceServer } from './http/service-server.js';
import { listingRoutes, type PickListing } from './listing/listing-routes.js';
import { networkRoutes } from './network/network-routes.js';
import type { ServedNetwork } from './network/served-network.js';
import { DEFAULT_SERVICE_PORT, WEBHOOK_TESTS_PER_MINUTE } from './service-options.js';
import type { ServiceLimiters, ServiceStartContext, ServiceWebhooks } from './service-startup-phases.js';
import { routeTrackerUpgrades, type TrackerRoute } from './tracker/tracker-ws-router.js';
import { webhookRoutes } from './webhooks/webhook-routes.js';

/** What the routes are built from: the earlier phases' results. */
export interface ServedParts {
  networks: readonly ServedNetwork[];
  accounts: Accounts;
  store: Backend['kind'];
  webhooks: ServiceWebhooks;
  limiters: ServiceLimiters;
  pickListing: PickListing;
  health: HealthSource;
}

/** Prometheus' view of every network, read when it scrapes. */
function metricsOf({ networks, store, webhooks }: ServedParts): ServiceMetrics {
  return createServiceMetrics({
    store,
    networks: () =>
      networks.map((n) => {
        const r = n.report();
        const inUse = r.node.inUse === null ? null : { index: r.node.inUse, url: r.node.nodes[r.node.inUse]?.url ?? '' };
        const nodeBudgets = r.node.nodes.map((x, index) => ({
          index,
          url: x.url,
          requestsPerSecond: x.requestsPerSecond,
          backPressure: x.backPressure,
        }));
        return {
          ...r,
          receiptsDelivered: n.receiptsDelivered(),
          webhookDeliveries: webhooks.counts(n.key),
          nodeErrors: n.errorCounts(),
          nodeInUse: inUse,
          nodeBudgets,
        };
      }),
  });
}

/** Listens with every route and the trackers' upgrades; returns the server and the public URL, when one was given. */
export async function serveHttp(
  { opts, log, shutdown }: ServiceStartContext,
  parts: ServedParts,
  host: string,
): Promise<{ http: ServiceServer; publicUrl: string | undefined }> {
  const { networks, accounts, webhooks, limiters } = parts;
  const publicUrl = opts.publicUrl ? new URL(opts.publicUrl).origin : undefined;
  // The app and the server refer to each other: page links need the listening address, known once it listens.
  const origin = () => publicUrl ?? http.url();
  const metrics = metricsOf(parts);
  const routes = [
    ...accounts.routes(),
    ...networkRoutes(() => networks.map((n) => n.report())),
    ...listingRoutes(parts.pickListing, origin),
    ...webhookRoutes({
      webhooks,
      authorize: (authorization) => accounts.authorizeManagement(authorization, 'Managing webhooks'),
      limiter: limiters.listing,
      testLimiter: createRateLimiter(WEBHOOK_TESTS_PER_MINUTE, (s) => `Too many webhook tests for this clientId; try again in ${s} s.`),
    }),
    metrics.route,
  ];
  const app = createServiceApp(parts.health, routes, origin, log, { observe: metrics.observe });
  const http = createServiceServer(app.listener, host, publicUrl ? { publicUrl } : {});
  await listen(http.server, opts.port ?? DEFAULT_SERVICE_PORT, host);
  shutdown.add(() => closeServer(http.server));
  const trackerRoutes = new Map<string, TrackerRoute>(networks.map((n) => [n.key, n.trackerRoute]));
  shutdown.add(routeTrackerUpgrades(http.server, trackerRoutes, (req) => http.checkHost(req)));
  // The trackers' sockets close before the server does (stop() runs once; the earlier registration covers a failed start).
  shutdown.add(() => Promise.all(networks.map((n) => n.stop())));
  return { http, publicUrl };
}
