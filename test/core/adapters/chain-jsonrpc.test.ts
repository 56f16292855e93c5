// The Chain adapter on an http:// node (a fake on loopback that logs each request): the calls of one event-loop turn go
// out as one JSON-RPC batch over one kept-alive connection and each gets its own answer (a broadcast refusal still
// classified), long reads go alone, a node that does not take batches gets single calls from then on, and a node that
// cannot be reached or does not answer in time fails every call of the batch as unreachable.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createJsonRpcChain } from '../../../src/core/adapters/chain/chain-jsonrpc.js';
import { BroadcastError } from '../../../src/core/ports.js';
import { RpcError } from '../../../src/lib/json-rpc.js';

type Req = { id: number; method: string; params: unknown[] };
let server: Server;
let url: string;
/** The methods of each request the node got: one entry per HTTP request. */
let requests: string[][] = [];
let takesBatches = true;
let connections = 0;

function answer(r: Req): unknown {
  const ok = (result: unknown) => ({ jsonrpc: '2.0', id: r.id, result });
  switch (r.method) {
    case 'eth_getBlockByNumber':
      return ok({ number: '0x10', baseFeePerGas: '0x64' });
    case 'eth_gasPrice':
      return ok('0xc8');
    case 'eth_maxPriorityFeePerGas':
      return ok('0x1');
    case 'eth_getTransactionCount':
      return ok('0x7');
    case 'eth_getBalance':
      return ok('0xde0b6b3a7640000');
    case 'eth_sendRawTransaction':
      return { jsonrpc: '2.0', id: r.id, error: { code: -32000, message: 'nonce too low' } };
    case 'eth_chainId':
      return ok('0x7a69');
    case 'eth_getCode':
      return ok('left out');
    default:
      return ok([]);
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const parsed = JSON.parse(body) as Req | Req[];
      const calls = [parsed].flat();
      requests.push(calls.map((c) => c.method));
      if (calls.some((c) => c.method === 'silent')) return;
      const refuse = Array.isArray(parsed) && !takesBatches;
      res.writeHead(refuse ? 400 : 200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          refuse
            ? { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batches are not supported' } }
            : Array.isArray(parsed)
              ? parsed.map(answer)
              : answer(parsed),
        ),
      );
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

beforeEach(() => {
  requests = [];
  takesBatches = true;
});

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e,
  );

it("sends a turn's calls as one batch, each with its own answer, and a broadcast refusal classified", async () => {
  const chain = createJsonRpcChain(url);
  const [fees, pending, balance, sent] = await Promise.all([
    chain.fees(),
    chain.nonceCount('0xa', 'pending'),
    chain.balance('0xa'),
    failure(chain.sendRaw('0x02')),
  ]);
  expect(requests).toHaveLength(1);
  expect(requests[0]!.sort()).toEqual([
    'eth_gasPrice',
    'eth_getBalance',
    'eth_getBlockByNumber',
    'eth_getTransactionCount',
    'eth_maxPriorityFeePerGas',
    'eth_sendRawTransaction',
  ]);
  expect(fees).toEqual({ baseFeeWei: 100n, gasPriceWei: 200n, priorityFeeWei: 1n });
  expect(pending).toBe(7);
  expect(balance).toBe(10n ** 18n);
  expect(sent).toBeInstanceOf(BroadcastError);
  expect((sent as BroadcastError).failure).toBe('nonce-used');

  // One call alone is sent as a plain request, over the connection already open.
  requests = [];
  const before = connections;
  expect(await chain.nonceCount('0xa', 'latest')).toBe(7);
  expect(await chain.chainId()).toBe(31337);
  expect(requests).toEqual([['eth_getTransactionCount'], ['eth_chainId']]);
  expect(connections).toBe(before);
});

it('fails the call the node left out of its answer, and only that one', async () => {
  const chain = createJsonRpcChain(url);
  // The fake answers the calls it knows; `nobody` gets an answer too, but drop it from the batch answer below.
  const original = server.listeners('request')[0] as (...a: unknown[]) => void;
  server.removeAllListeners('request');
  server.on('request', (req, res) => {
    const end = res.end.bind(res);
    res.end = ((body: string) =>
      end(JSON.stringify((JSON.parse(body) as { result?: unknown }[]).filter((a) => a.result !== 'left out')))) as typeof res.end;
    original(req, res);
  });
  try {
    const [balance, missing] = await Promise.all([chain.balance('0xa'), failure(chain.request('eth_getCode', ['0xb']))]);
    expect(balance).toBe(10n ** 18n);
    expect(missing).toBeInstanceOf(RpcError);
    expect((missing as RpcError).message).toMatch(/left eth_getCode out of its answer to a batch/);
  } finally {
    server.removeAllListeners('request');
    server.on('request', original);
  }
});

it('sends eth_getLogs alone, so the checks of a send never wait behind a long read', async () => {
  const chain = createJsonRpcChain(url);
  await Promise.all([chain.request('eth_getLogs', [{}]), chain.balance('0xa'), chain.nonceCount('0xa', 'pending')]);
  expect(requests.map((r) => r.join(',')).sort()).toEqual(['eth_getBalance,eth_getTransactionCount', 'eth_getLogs']);
});

it('falls back to single calls for good on a node that refuses batches', async () => {
  takesBatches = false;
  const chain = createJsonRpcChain(url);
  expect(await Promise.all([chain.balance('0xa'), chain.nonceCount('0xa', 'pending')])).toEqual([10n ** 18n, 7]);
  expect(requests.filter((r) => r.length > 1)).toHaveLength(1);
  requests = [];
  expect(await Promise.all([chain.balance('0xa'), chain.nonceCount('0xa', 'pending')])).toEqual([10n ** 18n, 7]);
  expect(requests).toEqual([['eth_getBalance'], ['eth_getTransactionCount']]);
});

it('fails every call of a batch as unreachable when the node cannot be reached or does not answer in time', async () => {
  const away = createJsonRpcChain('http://127.0.0.1:1', { timeoutMs: 2_000 });
  const [balance, sent] = await Promise.all([failure(away.balance('0xa')), failure(away.sendRaw('0x02'))]);
  expect(balance).toBeInstanceOf(RpcError);
  expect((balance as RpcError).code).toBe('unreachable');
  expect((balance as RpcError).message).toBe('The node at http://127.0.0.1:1 could not be reached (ECONNREFUSED).');
  expect(sent).toBeInstanceOf(BroadcastError);
  expect((sent as BroadcastError).failure).toBe('unreachable');

  const slow = createJsonRpcChain(url, { timeoutMs: 200 });
  const [late, lateToo] = await Promise.all([failure(slow.request('silent', [])), failure(slow.balance('0xa'))]);
  for (const e of [late, lateToo]) {
    expect(e).toBeInstanceOf(RpcError);
    expect((e as RpcError).message).toBe(`The node at ${url} could not be reached (TimeoutError).`);
  }
});
