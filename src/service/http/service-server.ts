// The data service's node:http server: refuses foreign Host headers and unreadable URLs in the JSON error envelope
// (never HTML, never a stack trace), then hands the request to the Hono app (service-app.ts).
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendError } from '../../lib/http-kit.js';
import { TxdeskError } from '../../shared/errors.js';
import { noEndpoint } from './service-app.js';
import { allowedServiceHosts, checkServiceHost, type ServiceAccess } from './service-hosts.js';

export interface ServiceServer {
  server: Server;
  /** The listening URL (loopback for a wildcard bind). */
  url(): string;
  /** Null when the request's Host may be answered (HTTP and WebSocket upgrades alike); else the 403. */
  checkHost(req: IncomingMessage): TxdeskError | null;
}

/** `app` answers every request that passed the checks (the service's Hono app). */
export function createServiceServer(app: RequestListener, bindHost = '127.0.0.1', access: ServiceAccess = {}): ServiceServer {
  // Known once listening (server.address() is a system call: too dear to make per request).
  let url = 'http://127.0.0.1';
  let allowed: Set<string> | null = null;
  const checkHost = (req: IncomingMessage) => (allowed ? checkServiceHost(req.headers, allowed) : null);
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const refused = checkHost(req);
    if (refused) return sendError(res, refused);
    const target = URL.parse(req.url ?? '/', url);
    if (!target) return sendError(res, new TxdeskError('BAD_REQUEST', 'The request URL could not be parsed; check its encoding.'));
    try {
      // A path parameter that does not decode names no resource (Hono would pass it on undecoded).
      decodeURIComponent(target.pathname);
    } catch {
      return sendError(res, noEndpoint(req.method ?? 'GET', target.pathname));
    }
    // Routes see the target as WHATWG URL parses it (a backslash is a slash, `*` is `/*`, dot segments resolved), as
    // every HTTP client and the URLs we hand out do, and with empty segments dropped (`/health//` is `/health`), as
    // the service always answered; the Hono adapter would refuse some of these with a bare 400.
    const path = /\/\/|.\/$/.test(target.pathname) ? `/${target.pathname.split('/').filter(Boolean).join('/')}` : target.pathname;
    const normal = path + target.search;
    if (req.url !== normal) req.url = normal;
    void app(req, res);
  };
  const server = createServer(handle);
  server.on('listening', () => {
    const a = server.address() as AddressInfo;
    url = serviceUrl(a.address, a.port);
    allowed = allowedServiceHosts(a.port, bindHost, access);
  });
  // Malformed HTTP never reaches the handler; answer it in the same envelope instead of Node's bare 400.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || err.code === 'ECONNRESET') return socket.destroy();
    const body = JSON.stringify(
      new TxdeskError('BAD_REQUEST', 'The HTTP request is malformed; check the request line and headers.').toBody(),
    );
    socket.end(
      `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json; ` +
        `charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  return {
    server,
    checkHost,
    url: () => url,
  };
}

/** The URL clients should use; a wildcard bind is reached through loopback. */
export function serviceUrl(address: string, port: number): string {
  const host = address === '0.0.0.0' || address === '::' ? '127.0.0.1' : address;
  return host.includes(':') ? `http://[${host}]:${port}` : `http://${host}:${port}`;
}

export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      if (e.code === 'EADDRINUSE')
        reject(new TxdeskError('BAD_REQUEST', `Port ${port} on ${host} is already in use; pick another with --port (0 picks a free one).`));
      else if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND')
        reject(new TxdeskError('BAD_REQUEST', `Cannot listen on host ${host}; use an address of this machine, such as 127.0.0.1.`));
      else reject(e);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
