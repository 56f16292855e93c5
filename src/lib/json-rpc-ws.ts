// JSON-RPC requests over one WebSocket, for nodes given as ws:// or wss:// URLs: the same request/batch interface as
// HTTP, reconnecting lazily on the next call after a drop. Every request goes out under an id of the connection's own
// and its answer comes back under the caller's, so callers that number each batch from 0 can share one socket.
import WebSocket from 'ws';
import { RPC_TIMEOUT } from './json-rpc.js';

interface Waiter {
  resolve(reply: unknown): void;
  reject(error: Error): void;
}

export interface WsTransport {
  /** Sends one request object or a batch array; resolves with the matching reply (an array for a batch). */
  post(body: unknown, timeoutMs: number): Promise<unknown>;
  close(): void;
}

/** The node did not answer a request within its timeout (the socket itself may be fine); `code` says so to classifiers. */
export class RpcTimeoutError extends Error {
  readonly code = RPC_TIMEOUT;
  constructor(message: string) {
    super(message);
    this.name = 'RpcTimeoutError';
  }
}

export function createWsTransport(url: string): WsTransport {
  let socket: Promise<WebSocket> | null = null;
  const waiting = new Map<number, Waiter>();
  let nextId = 1;
  let closed = false;

  const failAll = (e: Error) => {
    for (const w of waiting.values()) w.reject(e);
    waiting.clear();
  };

  function open(): Promise<WebSocket> {
    if (socket) return socket;
    socket = new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(url, { handshakeTimeout: 10_000 });
      ws.once('open', () => resolve(ws));
      // Before 'open' an error means the node cannot be reached; after it, 'close' follows and fails what waits.
      ws.on('error', (e) => reject(new Error(`cannot open ${url}: ${e.message}`)));
      ws.on('message', (data) => {
        let msg: unknown;
        try {
          msg = JSON.parse(String(data));
        } catch {
          return;
        }
        for (const m of Array.isArray(msg) ? msg : [msg]) {
          const id = (m as { id?: unknown })?.id;
          // A request the node could not read at all (a refused batch) is answered without an id: which of those in
          // flight it was is unknown, so all of them fail with the node's words and their callers try again.
          const error = (m as { error?: { message?: unknown } })?.error;
          if (id === null && error) failAll(new Error(`the node answered: ${String(error.message ?? 'error')}`));
          if (typeof id !== 'number') continue;
          const w = waiting.get(id);
          if (!w) continue;
          waiting.delete(id);
          w.resolve(m);
        }
      });
      ws.on('close', () => {
        socket = null;
        failAll(new Error(`the connection to ${url} closed`));
      });
    });
    socket.catch(() => {
      socket = null;
    });
    return socket;
  }

  return {
    async post(body, timeoutMs) {
      if (closed) throw new Error('the node connection is closed');
      const ws = await open();
      const items = (Array.isArray(body) ? body : [body]) as { id?: unknown }[];
      const sent = items.map((item) => ({ ...item, id: nextId++ }));
      const replies = sent.map(
        (item, i) =>
          new Promise<unknown>((resolve, reject) => {
            const timer = setTimeout(() => {
              waiting.delete(item.id);
              reject(new RpcTimeoutError(`no answer from ${url} within ${timeoutMs} ms`));
            }, timeoutMs);
            const settled =
              <T>(then: (v: T) => void) =>
              (v: T) => {
                clearTimeout(timer);
                then(v);
              };
            waiting.set(item.id, { resolve: settled((r) => resolve({ ...(r as object), id: items[i]!.id })), reject: settled(reject) });
          }),
      );
      ws.send(JSON.stringify(Array.isArray(body) ? sent : sent[0]));
      const all = await Promise.all(replies);
      return Array.isArray(body) ? all : all[0];
    },
    close() {
      closed = true;
      failAll(new Error('the node connection is closed'));
      void socket?.then(
        (ws) => ws.terminate(),
        () => {},
      );
    },
  };
}
