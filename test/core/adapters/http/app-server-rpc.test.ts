// POST /rpc's batches against a fake tool RPC on a loopback server: reads next to each other run at once; transactions
// next to each other overlap their checks but take their nonces in the batch's order, one refused before its turn
// passing the turn on; anything else runs alone; a group starts once the one before it ended (a read after a send sees
// it); and the replies come back in the order of the batch with their ids.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { handleRpc } from '../../../../src/core/adapters/http/app-server-rpc.js';
import type { InTurn } from '../../../../src/core/services/tx-engine-user-actions.js';

const token = 'test-token';
let server: Server;
let url: string;
/** What the fake did, in order: `start <method> <n>`, `nonce <n>` (a send taking its nonce) and `end <method> <n>`. */
let log: string[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * params[0] is the entry's number, params[1] how long its checks take (ms); a send with `refused` as params[2] fails
 * before its turn. A send takes its nonce through `inTurn`, as the engine does.
 */
async function call(method: string, params: readonly unknown[], _requester: unknown, inTurn?: InTurn): Promise<unknown> {
  const [n, ms = 5, refused] = params as [number, number?, string?];
  log.push(`start ${method} ${n}`);
  await sleep(ms);
  if (method === 'eth_sendTransaction') {
    if (refused) {
      log.push(`end ${method} ${n}`);
      throw new Error('refused');
    }
    await (inTurn ?? ((enter) => enter()))(async () => void log.push(`nonce ${n}`));
  }
  log.push(`end ${method} ${n}`);
  return `${method} ${n}`;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const port = (server.address() as { port: number }).port;
    void handleRpc(req, res, { call, auth: { token, tokenFile: '/nowhere/api-token', keyRoutes: false }, port });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/rpc`;
});

afterAll(() => new Promise((r) => server.close(r)));

async function batch(entries: [string, ...unknown[]][]): Promise<{ id: number; result?: string; error?: { code: number } }[]> {
  log = [];
  const body = entries.map(([method, ...params], i) => ({ jsonrpc: '2.0', id: i, method, params }));
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { id: number; result?: string }[];
}

const position = (line: string) => {
  const i = log.indexOf(line);
  expect(i, `${line} in ${JSON.stringify(log)}`).toBeGreaterThanOrEqual(0);
  return i;
};

it('runs reads next to each other at once, and answers every id in the order of the batch', async () => {
  const replies = await batch([
    ['eth_blockNumber', 1, 20],
    ['eth_estimateGas', 2, 5],
    ['eth_getTransactionByHash', 3, 1],
  ]);
  expect(replies.map((r) => [r.id, r.result])).toEqual([
    [0, 'eth_blockNumber 1'],
    [1, 'eth_estimateGas 2'],
    [2, 'eth_getTransactionByHash 3'],
  ]);
  expect(log.slice(0, 3)).toEqual(['start eth_blockNumber 1', 'start eth_estimateGas 2', 'start eth_getTransactionByHash 3']);
});

it("overlaps the checks of transactions next to each other, and gives them their nonces in the batch's order", async () => {
  // The later ones finish their checks first; their nonces still follow the batch.
  const replies = await batch([
    ['eth_sendTransaction', 1, 30],
    ['eth_sendTransaction', 2, 10],
    ['eth_sendTransaction', 3, 1],
  ]);
  expect(replies.map((r) => r.result)).toEqual(['eth_sendTransaction 1', 'eth_sendTransaction 2', 'eth_sendTransaction 3']);
  expect(log.slice(0, 3)).toEqual(['start eth_sendTransaction 1', 'start eth_sendTransaction 2', 'start eth_sendTransaction 3']);
  expect(log.filter((l) => l.startsWith('nonce'))).toEqual(['nonce 1', 'nonce 2', 'nonce 3']);
});

it('passes the turn on when a transaction is refused before it, so the next one is not held', async () => {
  const replies = await batch([
    ['eth_sendTransaction', 1, 20, 'refused'],
    ['eth_sendTransaction', 2, 1],
  ]);
  expect(replies[0]!.error?.code).toBe(-32603);
  expect(replies[1]!.result).toBe('eth_sendTransaction 2');
  expect(position('nonce 2')).toBeGreaterThan(position('end eth_sendTransaction 1'));
});

it('starts a group once the one before it ended: a read after a send sees it, a send after a read waits for it', async () => {
  await batch([
    ['eth_getTransactionCount', 1, 20],
    ['eth_sendTransaction', 2, 1],
    ['eth_sendTransaction', 3, 1],
    ['eth_getTransactionCount', 4, 1],
  ]);
  expect(position('start eth_sendTransaction 2')).toBeGreaterThan(position('end eth_getTransactionCount 1'));
  expect(position('start eth_getTransactionCount 4')).toBeGreaterThan(position('end eth_sendTransaction 3'));
  expect(position('start eth_getTransactionCount 4')).toBeGreaterThan(position('end eth_sendTransaction 2'));
});

it('runs anything else alone and in order: a signature, a method it does not know', async () => {
  await batch([
    ['eth_chainId', 1, 1],
    ['personal_sign', 2, 10],
    ['txdesk_unknown', 3, 1],
    ['eth_chainId', 4, 1],
  ]);
  expect(log).toEqual([
    'start eth_chainId 1',
    'end eth_chainId 1',
    'start personal_sign 2',
    'end personal_sign 2',
    'start txdesk_unknown 3',
    'end txdesk_unknown 3',
    'start eth_chainId 4',
    'end eth_chainId 4',
  ]);
});
