// A webhook receiver for tests: a real HTTP server on 127.0.0.1 that records every request (time, headers, body) and
// answers as told: 2xx, 2xx after a delay (requests stay in flight), an error status, never (a hang), or not at all
// (stopped, its port kept for the restart).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceiverMode =
  | { kind: 'ok' }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'status'; status: number }
  | { kind: 'hang' }
  | { kind: 'redirect'; location: string };

export interface ReceivedRequest {
  atMs: number;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** What the receiver answered (null: it did not). */
  answered: number | null;
  /** When the request ended: answered, or its connection closed unanswered (null: still open). */
  doneAtMs: number | null;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  mode: ReceiverMode;
  /** The requests answered 2xx, with their bodies parsed. */
  accepted(): { req: ReceivedRequest; body: any }[];
  /** Stops listening (connections are refused until `start`); the port is kept. */
  down(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(path = '/hook'): Promise<WebhookReceiver> {
  let server: Server | null = null;
  const hanging = new Set<ServerResponse>();
  const receiver: WebhookReceiver = {
    url: '',
    port: 0,
    requests: [],
    mode: { kind: 'ok' },
    accepted: () =>
      receiver.requests.filter((r) => r.answered !== null && r.answered < 300).map((req) => ({ req, body: JSON.parse(req.body) })),
    async down() {
      const s = server;
      server = null;
      if (!s) return;
      for (const res of hanging) res.destroy();
      hanging.clear();
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    },
    async start() {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const mode = receiver.mode;
          const entry: ReceivedRequest = {
            atMs: Date.now(),
            path: req.url ?? '',
            headers: req.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            answered: null,
            doneAtMs: null,
          };
          receiver.requests.push(entry);
          // A sender that dies mid-request (SIGKILL) closes the connection: the request ends there, unanswered.
          res.once('close', () => {
            hanging.delete(res);
            entry.doneAtMs ??= Date.now();
          });
          const answer = (status: number) => {
            entry.answered = status;
            entry.doneAtMs = Date.now();
            res.writeHead(status, mode.kind === 'redirect' ? { location: mode.location } : {});
            res.end(status < 300 ? 'ok' : 'no');
          };
          if (mode.kind === 'hang') return void hanging.add(res);
          if (mode.kind === 'slow') {
            hanging.add(res);
            setTimeout(() => {
              if (!res.destroyed && !req.socket.destroyed) answer(200);
            }, mode.delayMs);
            return;
          }
          answer(mode.kind === 'ok' ? 200 : mode.kind === 'status' ? mode.status : 302);
        });
      });
      server.keepAliveTimeout = 1000;
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(receiver.port, '127.0.0.1', () => resolve());
      });
      receiver.port = (server.address() as AddressInfo).port;
      receiver.url = `http://127.0.0.1:${receiver.port}${path}`;
    },
    close: () => receiver.down(),
  };
  await receiver.start();
  return receiver;
}
