// The localhost server (port 3000 by default): every call of the contract table (shared/desktop-api.ts) as a thin
// wrapper around the core's DesktopApi, the SSE stream, the listing proxy and the renderer's static files. Binds
// 127.0.0.1 only, checks Host and Origin before anything else runs, then the API token on every state-changing request
// (app-server-auth.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Router, readJsonBody, sendError, sendJson, type Handler } from '../../../lib/http-kit.js';
import type { Logger } from '../../../lib/log.js';
import { appRouteList, desktopMethods, extraRoutes, splitRoute, type ArgPlace, type CallMethod, type CallSpec } from '../../../shared/desktop-api.js';
import { TxdeskError } from '../../../shared/errors.js';
import type { CoreApi } from '../../services/desktop-api-core.js';
import { tokenImageHeaders } from '../net/token-image.js';
import { checkSettingsPatch, checkToken, createLogin, keyRouteNames, keyRoutesOff, type AppServerAuth } from './app-server-auth.js';
import { buildAppOpenApi } from './app-openapi.js';
import { guardRequest } from './app-server-guard.js';
import { createSseHub } from './app-server-sse.js';
import { createStaticHandler } from './app-server-static.js';

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

const field = (body: unknown, name: string): unknown => (body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined);

/** One call of the table over HTTP: arguments from the path, the body or one body field; the core checks them. */
function callHandler(api: CoreApi, method: CallMethod): Handler {
  const spec: CallSpec = desktopMethods[method];
  const places = spec.args as readonly ArgPlace[];
  return async ({ req, res, params }) => {
    const needsBody = places.some((p) => p.startsWith('body'));
    const body = !needsBody ? undefined : places.includes('body?') ? await readJsonBody(req).catch(() => undefined) : await readJsonBody(req);
    const args = places.map((place) => {
      if (place.startsWith('path:')) return params[place.slice(5)] ?? '';
      if (place.startsWith('body.')) return field(body, place.slice(5));
      if (place === 'body' || place === 'body?') return body;
      throw new Error(`${method}: a ${place} argument needs its own HTTP handler`);
    });
    const value = await (api[method] as (...a: unknown[]) => Promise<unknown>)(...args);
    sendJson(res, spec.status ?? 200, spec.reply ?? value ?? null);
  };
}

/** Routes that are more than a call: the listing proxy, the settings check, the event stream and token images. */
function specialHandlers(api: CoreApi, sse: ReturnType<typeof createSseHub>, origin: () => string, auth: AppServerAuth) {
  return {
    // The service's own query validation and pagination links answer unchanged: the caller's query string goes as is.
    async listTokens({ params, url, res }) {
      const answer = await api.proxyTokens(params.address ?? '', url.searchParams, origin());
      sendJson(res, answer.status, answer.body);
    },
    async updateSettings({ req, res }) {
      const body = await readJsonBody(req);
      const refused = checkSettingsPatch(body, auth);
      if (refused) throw refused;
      sendJson(res, 200, await api.updateSettings(body as never));
    },
    events({ res }) {
      if (!sse.attach(res)) throw new TxdeskError('RATE_LIMITED', 'Too many event streams are open; close some tabs and retry.');
    },
    openApi: () => buildAppOpenApi(origin()),
    async tokenImage({ req, res, url }) {
      // Only the app's own page (or a tool) may use the proxy: other sites' <img> tags would otherwise turn it into theirs.
      const site = req.headers['sec-fetch-site'];
      if (site === 'cross-site' || site === 'same-site') throw new TxdeskError('FORBIDDEN', 'Token images are served to the app\'s own page only; open the app at its own address.');
      const image = await api.fetchTokenImage(url.searchParams.get('url') ?? undefined);
      res.writeHead(200, tokenImageHeaders(image));
      res.end(req.method === 'HEAD' ? undefined : image.body);
    },
  } satisfies Partial<Record<CallMethod | keyof typeof extraRoutes, Handler>>;
}

/** Every route of the app's localhost API, by name: the table's calls, then the extra routes. */
export function appRoutes(api: CoreApi, sse: ReturnType<typeof createSseHub>, origin: () => string, auth: AppServerAuth): { name: string; route: string; handler: Handler }[] {
  const special: Partial<Record<string, Handler>> = specialHandlers(api, sse, origin, auth);
  return appRouteList.map(({ name, route }) => {
    const handler = special[name] ?? (name in extraRoutes ? undefined : callHandler(api, name as CallMethod));
    if (!handler) throw new Error(`the app route ${name} has no handler`);
    return { name, route, handler };
  });
}

export async function startAppServer(o: AppServerOptions): Promise<AppServer> {
  const sse = createSseHub();
  const unsubscribe = [
    o.api.onTransactionChanged((r) => sse.send('tx', r)),
    o.api.onDevchainStatus((s) => sse.send('devchain', s)),
    o.api.onAppStatus((s) => sse.send('status', s)),
  ];
  let port = o.port ?? 3000;
  const origin = () => `http://127.0.0.1:${port}`;
  const router = new Router();
  const refuse: Handler = () => {
    throw keyRoutesOff('Key management');
  };
  for (const { name, route, handler } of appRoutes(o.api, sse, origin, o.auth)) {
    const { method, path } = splitRoute(route);
    router.add(method, path, keyRouteNames.has(name) && !o.auth.keyRoutes ? refuse : handler);
  }
  const login = createLogin(o.auth, () => port);
  const serveStatic = createStaticHandler(o.rendererDir);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const refused = guardRequest(req.method ?? 'GET', req.headers, port);
    if (refused) return sendError(res, refused);
    const method = req.method ?? 'GET';
    const url = URL.parse(req.url ?? '/', origin());
    if (url && login.handle(method, url, req.headers, res)) return;
    if (req.method === 'OPTIONS') {
      // Same-origin pages never preflight; answer without any Access-Control-* header so no other origin gets a yes.
      res.writeHead(204, { allow: 'GET, HEAD, POST, PUT, PATCH, OPTIONS', 'content-length': 0 });
      return void res.end();
    }
    const unauthorized = checkToken(method, req.headers, o.auth, port);
    if (unauthorized) return sendError(res, unauthorized);
    const handled = await router.handle(req, res, origin());
    if (handled) return;
    const pathname = new URL(req.url ?? '/', origin()).pathname;
    if (pathname.startsWith('/api/') || pathname.startsWith('/nft/')) {
      return sendError(res, new TxdeskError('NOT_FOUND', `There is no API route ${req.method} ${pathname}; see docs/app.md for the list.`));
    }
    serveStatic(req, res, pathname);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e) => sendError(res, e, (m) => o.log.error(m)));
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'EADDRINUSE' ? new Error(`Port ${port} on 127.0.0.1 is already in use; stop the other program or pass --port N (0 picks a free port).`) : e),
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
