// The localhost server (port 3000 by default) on Hono: every call of the contract table (shared/desktop-api.ts) as a
// thin wrapper around the core's DesktopApi, the SSE stream, the listing proxy and the renderer's static files. Binds
// 127.0.0.1 only; Host and Origin are checked before anything else runs; the login page and the renderer's files answer
// without the API token, every other request needs it or the login cookie (app-server-auth.ts); then Hono routes it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { OpenAPIHono } from '@hono/zod-openapi';
import { errorResponse, json, mountRoutes, nodeListener, type NodeEnv, type RouteHandler as Handler } from '../../../lib/hono-kit.js';
import { readJsonBody, sendError, sendJson } from '../../../lib/http-kit.js';
import type { Logger } from '../../../lib/log.js';
import {
  appRouteList,
  desktopMethods,
  extraRoutes,
  splitRoute,
  type ArgPlace,
  type CallMethod,
  type CallSpec,
} from '../../../shared/desktop-api.js';
import { TxdeskError } from '../../../shared/errors.js';
import type { CoreApi } from '../../services/desktop-api-core.js';
import { tokenImageHeaders } from '../net/token-image.js';
import {
  checkSettingsPatch,
  checkToken,
  createLogin,
  hasSession,
  keyRouteNames,
  keyRoutesOff,
  opensWithoutToken,
  unauthorizedHeaders,
  type AppServerAuth,
} from './app-server-auth.js';
import { appOpenApiInfo, appRouteDoc } from './app-openapi.js';
import { guardRequest } from './app-server-guard.js';
import { createSseHub } from './app-server-sse.js';
import { handleRpc } from './app-server-rpc.js';
import { createStaticHandler } from './app-server-static.js';
import { DEFAULT_APP_PORT } from '../../../shared/defaults.js';

export interface AppServerOptions {
  api: CoreApi;
  /** 3000 unless set; 0 picks a free port. */
  port?: number;
  rendererDir: string;
  /** The API token and whether key routes are open over HTTP. */
  auth: AppServerAuth;
  log: Logger;
}

export interface AppServer {
  url: string;
  /** `url` with the one-time login of the browser UI. */
  loginUrl: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

const field = (body: unknown, name: string): unknown =>
  body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;

/** One call of the table over HTTP: arguments from the path, the body or one body field; the core checks them. */
function callHandler(api: CoreApi, method: CallMethod): Handler {
  const spec: CallSpec = desktopMethods[method];
  const places = spec.args as readonly ArgPlace[];
  const needsBody = places.some((p) => p.startsWith('body'));
  return async (c) => {
    const req = c.env.incoming;
    const body = needsBody ? await readJsonBody(req) : undefined;
    const args = places.map((place) => {
      if (place.startsWith('path:')) return c.req.param(place.slice(5)) ?? '';
      if (place.startsWith('body.')) return field(body, place.slice(5));
      if (place === 'body' || place === 'body?') return body;
      throw new Error(`${method}: a ${place} argument needs its own HTTP handler`);
    });
    const value = await (api[method] as (...a: unknown[]) => Promise<unknown>)(...args);
    return json(c, spec.status ?? 200, spec.reply ?? value ?? null);
  };
}

/** Routes that are more than a call: the listing proxy, the settings check, the event stream, images, this API's description. */
function specialHandlers(api: CoreApi, sse: ReturnType<typeof createSseHub>, origin: () => string, auth: AppServerAuth) {
  const port = () => Number(new URL(origin()).port);
  return {
    // A tool holds the bearer token too: only the app's own page (its login cookie) may answer a request.
    async decideApproval(c) {
      if (!hasSession(c.env.incoming.headers, auth, port())) {
        throw new TxdeskError(
          'FORBIDDEN',
          "Approve or decline requests in the txdesk window (the app's page); a tool's API token cannot answer them.",
        );
      }
      await api.decideApproval(c.req.param('id') ?? '', (await readJsonBody(c.env.incoming)) as never);
      return json(c, 200, desktopMethods.decideApproval.reply);
    },
    // The service's own query validation and pagination links answer unchanged: the caller's query string goes as is.
    async listTokens(c) {
      const answer = await api.proxyTokens(c.req.param('address') ?? '', new URL(c.req.url).searchParams, origin());
      return json(c, answer.status, answer.body, answer.headers);
    },
    async updateSettings(c) {
      const body = await readJsonBody(c.env.incoming);
      const refused = checkSettingsPatch(body, auth);
      if (refused) throw refused;
      return json(c, 200, await api.updateSettings(body as never));
    },
    events(c) {
      if (!sse.attach(c.env.outgoing)) throw new TxdeskError('RATE_LIMITED', 'Too many event streams are open; close some tabs and retry.');
      return RESPONSE_ALREADY_SENT;
    },
    async tokenImage(c) {
      // Only the app's own page (or a tool) may use the proxy: other sites' <img> tags would otherwise turn it into theirs.
      const site = c.req.header('sec-fetch-site');
      if (site === 'cross-site' || site === 'same-site')
        throw new TxdeskError('FORBIDDEN', "Token images are served to the app's own page only; open the app at its own address.");
      const image = await api.fetchTokenImage(c.req.query('url'));
      return new Response(c.req.method === 'HEAD' ? null : new Uint8Array(image.body), { status: 200, headers: tokenImageHeaders(image) });
    },
    async rpc(c) {
      await handleRpc(c.env.incoming, c.env.outgoing, { call: api.rpc, auth, port: port() });
      return RESPONSE_ALREADY_SENT;
    },
  } satisfies Partial<Record<CallMethod | keyof typeof extraRoutes, Handler>>;
}

/** The Hono app's own OpenAPI document (every route below registers its schemas) as GET /api/openapi.json. */
const openApiHandler = (app: OpenAPIHono<NodeEnv>, origin: () => string): Handler => {
  // Every route needs the token, so the document says so once, for all of them.
  app.openAPIRegistry.registerComponent('securitySchemes', 'apiToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'The token in <data dir>/api-token.',
  });
  return (c) =>
    json(
      c,
      200,
      app.getOpenAPI31Document({ openapi: '3.1.0', info: appOpenApiInfo, servers: [{ url: origin() }], security: [{ apiToken: [] }] }),
    );
};

/**
 * The Hono app: one route per entry (its handler, and its schemas for the OpenAPI document), key routes refused unless
 * opened, 405 and 404 in the envelope, static files last.
 */
function honoApp(
  o: AppServerOptions,
  sse: ReturnType<typeof createSseHub>,
  origin: () => string,
  serveStatic: ReturnType<typeof createStaticHandler>,
): OpenAPIHono<NodeEnv> {
  const app = new OpenAPIHono<NodeEnv>();
  const refuse: Handler = () => {
    throw keyRoutesOff('Key management');
  };
  const special: Partial<Record<string, Handler>> = {
    ...specialHandlers(o.api, sse, origin, o.auth),
    openApi: openApiHandler(app, origin),
  };
  // Every route of the app's localhost API by name, with its handler: the table's calls, then the extra routes. The
  // descriptions only document: arguments are checked once, by the core (a route's own validator would check twice).
  const routes = appRouteList.map(({ name, route }) => {
    const handler = special[name] ?? (name in extraRoutes ? undefined : callHandler(o.api, name as CallMethod));
    if (!handler) throw new Error(`the app route ${name} has no handler`);
    return { doc: appRouteDoc(name, route), handler: keyRouteNames.has(name) && !o.auth.keyRoutes ? refuse : handler };
  });
  const servedForOtherMethod = mountRoutes(app, routes);
  app.notFound((c) => {
    const { pathname } = new URL(c.req.url);
    if (servedForOtherMethod(c.req.method, pathname)) {
      throw new TxdeskError('METHOD_NOT_ALLOWED', `Method ${c.req.method} is not allowed on ${pathname}.`);
    }
    if (pathname.startsWith('/api/') || pathname.startsWith('/nft/')) {
      throw new TxdeskError('NOT_FOUND', `There is no API route ${c.req.method} ${pathname}; see docs/app.md for the list.`);
    }
    serveStatic(c.env.incoming, c.env.outgoing, pathname);
    return RESPONSE_ALREADY_SENT;
  });
  app.onError((e, c) => errorResponse(e, c, (m) => o.log.error(m)));
  return app;
}

export async function startAppServer(o: AppServerOptions): Promise<AppServer> {
  const sse = createSseHub();
  const unsubscribe = [
    o.api.onTransactionChanged((r) => sse.send('tx', r)),
    o.api.onDevchainStatus((s) => sse.send('devchain', s)),
    o.api.onAppStatus((s) => sse.send('status', s)),
    o.api.onSettingsChanged((s) => sse.send('settings', s)),
    o.api.onApprovalsChanged((a) => sse.send('approvals', a)),
    o.api.onNetworkChanged((i) => sse.send('network', i)),
  ];
  let port = o.port ?? DEFAULT_APP_PORT;
  const origin = () => `http://127.0.0.1:${port}`;
  const serveStatic = createStaticHandler(o.rendererDir);
  const listener = nodeListener(honoApp(o, sse, origin, serveStatic), (m) => o.log.error(m));
  const login = createLogin(o.auth, () => port);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const refused = guardRequest(req.method ?? 'GET', req.headers, port);
    if (refused) return sendError(res, refused);
    const method = req.method ?? 'GET';
    const url = URL.parse(req.url ?? '/', origin());

    // JSON-RPC (`POST /rpc`) goes to its route before the token check below: it answers a missing or wrong token
    // itself, as JSON-RPC error 4100 (app-server-rpc.ts), not as this API's 401 envelope.
    if (url?.pathname === splitRoute(extraRoutes.rpc).path) return listener(req, res);

    // The login link, the login page and its form answer without the token: they are how a browser gets its cookie.
    if (url && (await login.handle(req, method, url, res))) return;
    if (method === 'OPTIONS') {
      // Same-origin pages never preflight; answer without any Access-Control-* header so no other origin gets a yes.
      res.writeHead(204, { allow: 'GET, HEAD, POST, PUT, PATCH, OPTIONS', 'content-length': 0 });
      return void res.end();
    }
    if (!url) return sendError(res, new TxdeskError('BAD_REQUEST', 'The request URL could not be parsed; check its encoding.'));
    // The renderer's files answer without the token (they hold nothing of the user's); served here, outside Hono, so no
    // path that reaches the API's routes ever skips the check below.
    if (opensWithoutToken(method, url.pathname)) return serveStatic(req, res, url.pathname);
    const unauthorized = checkToken(method, req.headers, o.auth, port);
    if (unauthorized) return sendJson(res, unauthorized.status, unauthorized.toBody(), unauthorizedHeaders);
    await listener(req, res);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e) => sendError(res, e, (m) => o.log.error(m)));
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'EADDRINUSE'
          ? new Error(`Port ${port} on 127.0.0.1 is already in use; stop the other program or pass --port N (0 picks a free port).`)
          : e,
      ),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;

  return {
    url: origin(),
    loginUrl: login.url(origin()),
    port,
    server,
    async close() {
      unsubscribe.forEach((u) => u());
      sse.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
