// The data service's HTTP API as one Hono app: every route with its OpenAPI description (GET /openapi.json is written
// from them), 405 and 404 in the error envelope, and the request listener the node server runs.
import type { RequestListener } from 'node:http';
import { OpenAPIHono } from '@hono/zod-openapi';
import { errorResponse, mountRoutes, nodeListener, type DocumentedRoute, type NodeEnv } from '../../lib/hono-kit.js';
import type { Logger } from '../../lib/log.js';
import { TxdeskError } from '../../shared/errors.js';
import { databaseUnreachable } from '../db/pg-pool.js';
import { serviceRoutes, type HealthSource } from './service-routes.js';

const info = {
  title: 'txdesk data service',
  version: '1.0.0',
  description:
    'ERC-721 and ERC-1155 token listing, accounts and client IDs. Every error is `{ "error": { "code", "message" } }`. ' +
    'The transaction tracker is a WebSocket at /tracker/{platform}/{network}?clientId=… (JSON-RPC 2.0, docs/api.md).',
};

export interface ServiceApp {
  listener: RequestListener;
  /** The OpenAPI 3.1 document of every route, with `origin` as its server. */
  document(): object;
}

/** `origin` is the service's public URL, else its listening address: the base of page links and of the document. */
export function createServiceApp(health: HealthSource, routes: readonly DocumentedRoute[], origin: () => string, log: Logger): ServiceApp {
  const app = new OpenAPIHono<NodeEnv>();
  let doc: object | undefined;
  // Written once, on the first request for it: the routes and the origin are fixed once the server listens.
  const document = () => (doc ??= app.getOpenAPI31Document({ openapi: '3.1.0', info, servers: [{ url: origin() }] }));
  const servedForOtherMethod = mountRoutes(app, [...serviceRoutes(health, document), ...routes]);
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  app.notFound((c) => {
    const { pathname } = new URL(c.req.url);
    if (servedForOtherMethod(c.req.method, pathname)) throw new TxdeskError('METHOD_NOT_ALLOWED', `Method ${c.req.method} is not allowed on ${pathname}.`);
    throw noEndpoint(c.req.method, pathname);
  });
  app.onError((e, c) => {
    if (databaseUnreachable(e)) {
      // Not a bug: the shared database is down or restarting. Clients may retry; the cause is logged once per request.
      log.warn(`${c.req.method} ${new URL(c.req.url).pathname}: the database is not answering (${(e as Error).message})`);
      return errorResponse(new TxdeskError('UPSTREAM_UNAVAILABLE', "The service's database is not answering; try again in a few seconds."), c, (m) => log.error(m));
    }
    return errorResponse(e, c, (m) => log.error(m));
  });
  return { listener: nodeListener(app, (m) => log.error(m)), document };
}

export const noEndpoint = (method: string, pathname: string) =>
  new TxdeskError('NOT_FOUND', `There is no endpoint ${method} ${pathname.slice(0, 200)}; see /openapi.json for the API.`);
