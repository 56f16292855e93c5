// The indexer's chain reader over node:http (src/service/indexer/indexer-rpc.ts) against a real loopback server that
// misbehaves the ways nodes and gateways do: a node that is down, an HTML error page with a status (how gateways refuse
// oversized eth_getLogs), a node that never answers, and many requests in flight on one abort signal; and the same
// down and silent nodes behind a ws:// URL, which the reader reaches over one WebSocket.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { WebSocketServer } from 'ws';
import { createChainReader, RpcAnswerError } from '../../../src/service/indexer/indexer-rpc.js';
import { isRangeRefusal } from '../../../src/service/indexer/indexer-range.js';

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const calls = JSON.parse(body) as { id: number; method: string; params: unknown[] }[];
      const method = calls[0]!.method;
      if (method === 'eth_getLogs') return void ((res.statusCode = 413), res.end('<html><body>413 Request Entity Too Large</body></html>'));
      // eth_blockNumber, slowly, so that many are in flight at once.
      setTimeout(() => res.end(JSON.stringify(calls.map((c) => ({ jsonrpc: '2.0', id: c.id, result: '0x2a' })))), 20);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

it('names the node when it cannot be reached', async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as { port: number }).port;
  await new Promise((r) => closed.close(r));
  const reader = createChainReader(`http://127.0.0.1:${port}`);
  await expect(reader.blockNumber()).rejects.toThrow(
    new RegExp(`^cannot reach the node at http://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`),
  );
  reader.destroy();
});

it('gives up on a node that never answers after the request timeout, with a sentence naming it', async () => {
  const silent = createServer(() => {});
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const at = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
  const reader = createChainReader(at, { timeoutMs: 200 });
  await expect(reader.blockNumber()).rejects.toThrow(`the node at ${at} did not answer within 0.2 s; is it overloaded or stuck?`);
  reader.destroy();
  silent.closeAllConnections();
  await new Promise((r) => silent.close(r));
});

it('turns an HTML error page into an answer error that keeps the status, so a range refusal is recognised', async () => {
  const reader = createChainReader(url);
  const err = await reader.tokenLogs(0, 100_000, 50_000).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RpcAnswerError);
  expect((err as RpcAnswerError).error.code).toBe(413);
  expect((err as Error).message).toMatch(/HTTP 413: <html>/);
  expect(isRangeRefusal(err)).toBe(true);
  reader.destroy();
});

it('runs dozens of requests on one abort signal without a listener warning, and aborts them all on destroy', async () => {
  const warn = vi.spyOn(process, 'emitWarning');
  const reader = createChainReader(url);
  expect(await Promise.all(Array.from({ length: 40 }, () => reader.blockNumber()))).toEqual(new Array(40).fill(42));
  const inFlight = Array.from({ length: 20 }, () => reader.blockNumber().catch((e: Error) => e));
  reader.destroy();
  for (const e of await Promise.all(inFlight)) expect(String((e as Error).message)).toMatch(/^cannot reach the node at .*abort/i);
  expect(warn.mock.calls.filter(([w]) => String(w).includes('MaxListeners'))).toEqual([]);
  warn.mockRestore();
});

it('names a ws:// node that cannot be reached, and gives up on one that never answers with the same sentence as over HTTP', async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as { port: number }).port;
  await new Promise((r) => closed.close(r));
  const down = createChainReader(`ws://127.0.0.1:${port}`, { timeoutMs: 5_000 });
  await expect(down.blockNumber()).rejects.toThrow(new RegExp(`^cannot reach the node at ws://127\\.0\\.0\\.1:${port}: `));
  down.destroy();

  // Accepts the WebSocket and reads every request, answers none.
  const silent = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => silent.once('listening', () => r()));
  let requests = 0;
  silent.on('connection', (socket) => socket.on('message', () => requests++));
  const at = `ws://127.0.0.1:${(silent.address() as { port: number }).port}`;
  const reader = createChainReader(at, { timeoutMs: 200 });
  await expect(reader.blockNumber()).rejects.toThrow(`the node at ${at} did not answer within 0.2 s; is it overloaded or stuck?`);
  expect(requests).toBe(1);
  reader.destroy();
  await new Promise<void>((r) => silent.close(() => r()));
});
