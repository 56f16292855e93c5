// Sends each WebSocket upgrade on /tracker/{platform}/{network} to that network's tracker, after the Host check; a
// network the service does not serve, or one not started yet, is refused with a sentence that lists those it serves.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { TxdeskError } from '../../shared/errors.js';

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer, url: URL) => Promise<void>;

export interface TrackerRoute {
  /** The network's tracker, or null while it has not started (its node has not answered yet). */
  handler(): UpgradeHandler | null;
  /** Why it has not started, for the 503 (a clause: no capital, no period). */
  waitingReason(): string;
}

const PREFIX = '/tracker/';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  503: 'Service Unavailable',
};

/** Answers an upgrade with a plain HTTP error and a JSON body, as the listing API answers. */
export function refuseUpgrade(socket: Duplex, status: number, code: string, message: string): void {
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\nContent-Type: application/json; ` +
      `charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** `routes`: by "platform/network", in the order the service lists them (the default first). */
export function routeTrackerUpgrades(
  server: Server,
  routes: ReadonlyMap<string, TrackerRoute>,
  checkHost?: (req: IncomingMessage) => TxdeskError | null,
): () => void {
  const served = () => [...routes.keys()].join(', ');
  const listener = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Until ws takes the socket over, a reset by the peer must not become an uncaught 'error'.
    socket.on('error', () => socket.destroy());
    const foreign = checkHost?.(req);
    if (foreign) return refuseUpgrade(socket, foreign.status, foreign.code, foreign.message);
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      return refuseUpgrade(socket, 400, 'BAD_REQUEST', 'The request URL could not be parsed; check its encoding.');
    }
    if (!url.pathname.startsWith(PREFIX)) {
      // Another upgrade handler may own this path; answer only when we are the sole listener.
      if (server.listenerCount('upgrade') <= 1)
        refuseUpgrade(
          socket,
          404,
          'NOT_FOUND',
          `Nothing is served at ${url.pathname}; the tracker lives at /tracker/{platform}/{network} (${served()}).`,
        );
      return;
    }
    const parts = url.pathname
      .slice(PREFIX.length)
      .split('/')
      .filter((p) => p.length > 0);
    const key = parts.join('/');
    const route = parts.length === 2 ? routes.get(key) : undefined;
    if (!route)
      return refuseUpgrade(
        socket,
        404,
        'NOT_FOUND',
        `This service does not track ${key || 'that network'}; it tracks ${served()}: connect to /tracker/{platform}/{network} with one of them.`,
      );
    const handler = route.handler();
    if (!handler)
      return refuseUpgrade(
        socket,
        503,
        'UPSTREAM_UNAVAILABLE',
        `${key} is not being tracked right now (${route.waitingReason()}); try again later.`,
      );
    void handler(req, socket, head, url);
  };
  server.on('upgrade', listener);
  return () => void server.off('upgrade', listener);
}
