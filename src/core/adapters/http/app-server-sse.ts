// The server-sent-events stream of the browser bridge: one `event: <AppEvent>` frame per value the desktop API pushes
// (the events of its table, shared/desktop-api.ts), and a heartbeat.
import type { ServerResponse } from 'node:http';
import type { AppEvent } from '../../../shared/desktop-api.js';

const HEARTBEAT_MS = 15_000;
const MAX_CLIENTS = 64;

export function createSseHub() {
  const clients = new Set<ServerResponse>();
  const beat = setInterval(() => {
    for (const c of clients) c.write(': heartbeat\n\n');
  }, HEARTBEAT_MS);
  beat.unref();

  return {
    /** Takes over the response; returns false when too many streams are open already. */
    attach(res: ServerResponse): boolean {
      if (clients.size >= MAX_CLIENTS) return false;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      res.write('retry: 2000\n\n');
      clients.add(res);
      res.on('close', () => clients.delete(res));
      return true;
    },
    send(event: AppEvent, data: unknown): void {
      const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
      for (const c of clients) c.write(frame);
    },
    size: () => clients.size,
    close(): void {
      clearInterval(beat);
      for (const c of clients) c.end();
      clients.clear();
    },
  };
}
