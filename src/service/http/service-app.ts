// The data service's HTTP API as one Hono app: every route with its OpenAPI description (GET /openapi.json is written
// from them), 405 and 404 in the error envelope, and the request listener the node server runs.
import type { IncomingMessage, RequestListener } from 'node:http';
import { OpenAPIHono } from '@hono/zod-openapi';
import { errorResponse, mountRoutes, nodeListener, type DocumentedRoute, type NodeEnv } from '../../lib/hono-kit.js';
import type { Logger } from '../../lib/log.js';
import { TxdeskError } from '../../shared/errors.js';
import { databaseUnreachable } from '../db/pg-pool.js';
import { serviceRoutes, trackerUpgradeHint, type HealthSource } from './service-routes.js';

const info = {
  title: 'txdesk data service',
  version: '1.0.0',
  description:
    'ERC-721 and ERC-1155 token listing, accounts and client IDs. Every error is `{ "error": { "code", "message" } }`. ' +
    'The transaction tracker is a WebSocket at /tracker/{platform}/{network}?clientId=… (JSON-RPC 2.0, docs/api.md).',
};

/** Told of every answered request: its route template (`/tracker/{platform}/{network}`, `unmatched` for 404s and 405s). */
export type RequestObserver = (method: string, route: string, status: number, seconds: number) => void;

export interface ServiceAppOptions {
  /** Request counts and timings for GET /metrics (service-metrics.ts `observe`). */
  observe?: RequestObserver;
}

export interface ServiceApp {
  listener: RequestListener;
  /** The OpenAPI 3.1 document of every route, with `origin` as its server. */
  document(): object;
}

/** `origin` is the service's public URL, else its listening address: the base of page links and of the document. */
export function createServiceApp(
  health: HealthSource,
  routes: readonly DocumentedRoute[],
  origin: () => string,
  log: Logger,
  options: ServiceAppOptions = {},
): ServiceApp {
  const app = new OpenAPIHono<NodeEnv>();
  let doc: object | undefined;
  // Written once, on the first request for it: the routes and the origin are fixed once the server listens.
  const document = () => (doc ??= app.getOpenAPI31Document({ openapi: '3.1.0', info, servers: [{ url: origin() }] }));
  const allRoutes = [...serviceRoutes(health, document), ...routes, trackerUpgradeHint()];
  const { observe } = options;
  const timed = observe ? timeRequests(allRoutes, observe) : null;
  const servedForOtherMethod = mountRoutes(app, timed?.routes ?? allRoutes);
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'A session token: the jwtToken of POST /users/v1/login.',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'apiSecret', {
    type: 'http',
    scheme: 'bearer',
    description:
      "The account's API secret (txdesk_sk_…, POST /users/v1/api-secret): the long-lived credential of programs that manage webhooks.",
  });
  app.notFound((c) => {
    const { pathname } = new URL(c.req.url);
    if (servedForOtherMethod(c.req.method, pathname))
      throw new TxdeskError('METHOD_NOT_ALLOWED', `Method ${c.req.method} is not allowed on ${pathname}.`);
    throw noEndpoint(c.req.method, pathname);
  });
  app.onError((e, c) => {
    if (databaseUnreachable(e)) {
      // Not a bug: the shared database is down or restarting. Clients may retry; the cause is logged once per request.
      log.warn(`${c.req.method} ${new URL(c.req.url).pathname}: the database is not answering (${(e as Error).message})`);
      return errorResponse(
        new TxdeskError('UPSTREAM_UNAVAILABLE', "The service's database is not answering; try again in a few seconds."),
        c,
        (m) => log.error(m),
      );
    }
    return errorResponse(e, c, (m) => log.error(m));
  });
  const listener = nodeListener(app, (m) => log.error(m));
  return { listener: timed ? timed.listener(listener) : listener, document };
}

/**
 * Times requests around the whole app (routes, 404, errors alike) and names each by the template of the route that
 * took it, never by its path: a path holds addresses and ids, and a label per address would grow without bound.
 */
function timeRequests(routes: readonly DocumentedRoute[], observe: RequestObserver) {
  const templateOf = new WeakMap<IncomingMessage, string>();
  return {
    routes: routes.map(
      ({ doc, handler }): DocumentedRoute => ({
        doc,
        handler: (c) => {
          templateOf.set(c.env.incoming, doc.path);
          return handler(c);
        },
      }),
    ),
    listener:
      (inner: RequestListener): RequestListener =>
      (req, res) => {
        const started = performance.now();
        // 'close' comes after the answer is sent and also when the client goes away first; the latter is counted as
        // nginx does, 499, so a slow route that clients give up on still shows in the latencies.
        res.once('close', () =>
          observe(
            req.method ?? 'GET',
            templateOf.get(req) ?? 'unmatched',
            res.writableFinished ? res.statusCode : 499,
            (performance.now() - started) / 1000,
          ),
        );
        return inner(req, res);
      },
  };
}

export const noEndpoint = (method: string, pathname: string) =>
  new TxdeskError('NOT_FOUND', `There is no endpoint ${method} ${pathname.slice(0, 200)}; see /openapi.json for the API.`);
