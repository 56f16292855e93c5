// The JSON-RPC WebSocket transport the indexer and the chain watcher share for ws:// nodes, against a scripted node on
// loopback: batches numbered alike share the socket, a refused request fails what is in flight instead of waiting out
// its timeout, and a dropped socket fails its requests and the next request opens a new one.
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { createWsTransport, type WsTransport } from '../../src/lib/json-rpc-ws.js';

type Request = { id: unknown; method: string; params: unknown[] };

let server: WebSocketServer | null = null;
let transport: WsTransport | null = null;
afterEach(async () => {
  transport?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = transport = null;
});

/** A node that answers each request with `answer(request, socket)`; undefined sends nothing. */
async function scriptedNode(answer: (r: Request, socket: WebSocket) => unknown): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const s = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  server = s;
  s.on('connection', (socket) => {
    connections++;
    socket.on('message', (data) => {
      const body = JSON.parse(String(data)) as Request | Request[];
      const replies = (Array.isArray(body) ? body : [body]).map((r) => answer(r, socket)).filter((r) => r !== undefined);
      if (replies.length > 0) socket.send(JSON.stringify(Array.isArray(body) ? replies : replies[0]));
    });
  });
  await new Promise<void>((resolve) => s.once('listening', () => resolve()));
  return { url: `ws://127.0.0.1:${(s.address() as { port: number }).port}`, connections: () => connections };
}

const batch = (n: number, method: string) => Array.from({ length: n }, (_, id) => ({ jsonrpc: '2.0', id, method, params: [] }));

describe('JSON-RPC over one WebSocket', () => {
  it('gives each of two concurrent batches, both numbered from 0, its own answers under its own ids', async () => {
    const node = await scriptedNode((r) => ({ jsonrpc: '2.0', id: r.id, result: `${r.method}:${String(r.id)}` }));
    transport = createWsTransport(node.url);
    const [a, b] = (await Promise.all([transport.post(batch(3, 'a'), 5_000), transport.post(batch(2, 'b'), 5_000)])) as {
      id: number;
      result: string;
    }[][];
    expect(a!.map((r) => r.id)).toEqual([0, 1, 2]);
    expect(b!.map((r) => r.id)).toEqual([0, 1]);
    // The node saw ids of the connection's own (all different), so each answer went back to its own caller.
    expect(new Set([...a!, ...b!].map((r) => r.result)).size).toBe(5);
    expect(a!.every((r) => r.result.startsWith('a:'))).toBe(true);
    expect(b!.every((r) => r.result.startsWith('b:'))).toBe(true);
    expect(node.connections()).toBe(1);
  });

  it('fails the requests in flight at once when the node answers a request it could not read (no id)', async () => {
    const node = await scriptedNode((r) =>
      r.method === 'refused' ? { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch too large' } } : undefined,
    );
    transport = createWsTransport(node.url);
    const waiting = transport.post(batch(2, 'silent'), 60_000);
    await expect(transport.post({ jsonrpc: '2.0', id: 7, method: 'refused', params: [] }, 60_000)).rejects.toThrow(/batch too large/);
    await expect(waiting).rejects.toThrow(/batch too large/);
  });

  it('fails the requests of a dropped socket and opens a new one for the next request', async () => {
    let drop = true;
    const node = await scriptedNode((r, socket) => {
      if (drop) {
        drop = false;
        socket.terminate();
        return undefined;
      }
      return { jsonrpc: '2.0', id: r.id, result: 'ok' };
    });
    transport = createWsTransport(node.url);
    await expect(transport.post({ jsonrpc: '2.0', id: 1, method: 'x', params: [] }, 60_000)).rejects.toThrow(/closed/);
    expect(await transport.post({ jsonrpc: '2.0', id: 1, method: 'x', params: [] }, 5_000)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: 'ok',
    });
    expect(node.connections()).toBe(2);
  });

  it('gives up on a request the node never answers after its timeout', async () => {
    const node = await scriptedNode(() => undefined);
    transport = createWsTransport(node.url);
    await expect(transport.post({ jsonrpc: '2.0', id: 1, method: 'x', params: [] }, 200)).rejects.toThrow(
      /no answer from .* within 200 ms/,
    );
  });
});
