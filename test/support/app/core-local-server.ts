// A loopback HTTP server for the core's guarded fetches (token metadata, token images): counts TCP connections, so a
// test can prove a refused fetch never connected, and answers each path with the test's own handler.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalServer {
  server: Server;
  origin: string;
  port: number;
  /** TCP connections accepted so far: a refused fetch must leave this unchanged. */
  connections: number;
  /** Where the handler's redirect route points; set per test. */
  redirectTo: string;
  stop(): Promise<void>;
}

export type LocalRoute = (path: string, res: ServerResponse, local: LocalServer) => void;

export async function startLocalServer(route: LocalRoute, host = '127.0.0.1'): Promise<LocalServer> {
  const server = createServer();
  const local: LocalServer = {
    server,
    origin: '',
    port: 0,
    connections: 0,
    redirectTo: '',
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
  server.on('connection', () => local.connections++);
  server.on('request', (req, res) => route(new URL(req.url ?? '/', 'http://x').pathname, res, local));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  local.port = (server.address() as AddressInfo).port;
  local.origin = `http://${host.includes(':') ? `[${host}]` : host}:${local.port}`;
  return local;
}
