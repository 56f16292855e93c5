// The localhost server (port 3000 by default): every route of `httpRoutes` as a thin wrapper around the core's
// DesktopApi, the SSE stream, the listing proxy and the renderer's static files. Binds 127.0.0.1 only, checks Host and
// Origin before anything else runs, then the API token on every state-changing request (app-server-auth.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Router, readJsonBody, sendError, sendJson, type Handler, type Method } from '../../../lib/http-kit.js';
import type { Logger } from '../../../lib/log.js';
import { httpRoutes } from '../../../shared/desktop-api.js';
import { TxdeskError } from '../../../shared/errors.js';
import type { CoreApi } from '../../services/desktop-api-core.js';
import { tokenImageHeaders } from '../../services/token-image.js';
import { checkSettingsPatch, checkToken, createLogin, keyRouteNames, keyRoutesOff, type AppServerAuth } from './app-server-auth.js';
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

function routeHandlers(api: CoreApi, sse: ReturnType<typeof createSseHub>, origin: () => string, auth: AppServerAuth): Record<keyof typeof httpRoutes, Handler> {
  return {
    getAppInfo: () => api.getAppInfo(),
    listTransactions: () => api.listTransactions(),
    getTransaction: ({ params }) => api.getTransaction(params.hash ?? ''),
    async generateTransaction({ res }) {
      sendJson(res, 201, await api.generateTransaction());
    },
    async cancelTransaction({ params, res }) {
      sendJson(res, 202, await api.cancelTransaction(params.hash ?? ''));
    },
    async speedUpTransaction({ params, res }) {
      sendJson(res, 202, await api.speedUpTransaction(params.hash ?? ''));
    },
    events({ res }) {
      if (!sse.attach(res)) throw new TxdeskError('RATE_LIMITED', 'Too many event streams are open; close some tabs and retry.');
    },
    async listTokens({ params, url, res }) {
      const answer = await api.proxyTokens(params.address ?? '', url.searchParams, origin());
      sendJson(res, answer.status, answer.body);
    },
    resolveTokenMetadata: async ({ req }) => api.resolveTokenMetadata(field(await readJsonBody(req), 'uris') as string[]),
    async refreshToken({ params, res }) {
      await api.refreshToken(params.contract ?? '', params.id ?? '');
      sendJson(res, 202, { accepted: true });
    },
    async tokenImage({ req, res, url }) {
      // Only the app's own page (or a tool) may use the proxy: other sites' <img> tags would otherwise turn it into theirs.
      const site = req.headers['sec-fetch-site'];
      if (site === 'cross-site' || site === 'same-site') throw new TxdeskError('FORBIDDEN', 'Token images are served to the app\'s own page only; open the app at its own address.');
      const image = await api.fetchTokenImage(url.searchParams.get('url') ?? undefined);
      res.writeHead(200, tokenImageHeaders(image));
      res.end(req.method === 'HEAD' ? undefined : image.body);
    },
    getSettings: () => api.getSettings(),
    async updateSettings({ req }) {
      const body = await readJsonBody(req);
      const refused = checkSettingsPatch(body, auth);
      if (refused) throw refused;
      return api.updateSettings(body as never);
    },
    signIn: async ({ req }) => api.signIn((await readJsonBody(req)) as never),
    async restart({ res }) {
      await api.restart();
      sendJson(res, 202, { restarting: true });
    },
    getKeyInfo: () => api.getKeyInfo(),
    generateKey: async ({ req }) => api.generateKey(((await readJsonBody(req).catch(() => undefined)) ?? undefined) as never),
    importKey: async ({ req }) => api.importKey((await readJsonBody(req)) as never),
    exportKey: async ({ req }) => api.exportKey((await readJsonBody(req)) as never),
    getDevchainStatus: () => api.getDevchainStatus(),
    setCongestion: async ({ req }) => api.setCongestion(field(await readJsonBody(req), 'level') as never),
  };
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
  const handlers = routeHandlers(o.api, sse, origin, o.auth);
  for (const [name, spec] of Object.entries(httpRoutes) as [keyof typeof httpRoutes, string][]) {
    const [method, path] = spec.split(' ') as [Method, string];
    const refuse: Handler = () => {
      throw keyRoutesOff('Key management');
    };
    router.add(method, path, keyRouteNames.has(name) && !o.auth.keyRoutes ? refuse : handlers[name]);
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
