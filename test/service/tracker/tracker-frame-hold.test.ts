// Frames that arrive while the chain watcher runs a round wait for it: the round's receipts go out first, then the
// frames are answered, and no frame waits longer than the hold limit when a round drags on
// (here the node holds receipt lookups until the test lets them through).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { silentLogger } from '../../../src/lib/log.js';
import { openDatabase, type Db } from '../../../src/lib/sqlite.js';
import { openSqliteTrackerStore } from '../../../src/service/tracker/sqlite/tracker-store-sqlite.js';
import type { AttachedTracker } from '../../../src/service/tracker/tracker-attach.js';
import { attachTrackerOn } from '../../support/service/tracker-on-server.js';
import { startRpcProxy, startTestChain, type RpcProxy, type TestChain } from '../../support/chain/indexer-chain.js';
import { RawTrackerClient } from '../../support/service/tracker-harness.js';
import { waitFor } from '../../support/poll.js';

let chain: TestChain;
let proxy: RpcProxy;
let dir: string;
const open: { tracker: AttachedTracker; server: Server; db: Db; client: RawTrackerClient }[] = [];

beforeAll(async () => {
  chain = await startTestChain();
  proxy = await startRpcProxy(chain.url);
  dir = mkdtempSync(join(tmpdir(), 'txdesk-frame-hold-'));
});

afterEach(async () => {
  proxy.hold = null;
  for (const o of open.splice(0)) {
    await o.client.close();
    await o.tracker.stop();
    await new Promise((r) => o.server.close(r));
    o.db.close();
  }
});

afterAll(async () => {
  await proxy?.stop();
  await chain?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A tracker whose node is the proxy, with one subscribed client. */
async function start(frameHoldMaxMs: number): Promise<RawTrackerClient> {
  const db = openDatabase(join(dir, `${randomBytes(4).toString('hex')}.sqlite`));
  const server = createServer((_req, res) => res.end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const tracker = await attachTrackerOn(server, {
    store: openSqliteTrackerStore(db),
    nodeUrl: proxy.url,
    isClientId: (id) => id === 'a',
    log: silentLogger,
    pollMs: 50,
    frameHoldMaxMs,
  });
  const client = await RawTrackerClient.connect(
    `ws://127.0.0.1:${(server.address() as { port: number }).port}/tracker/ethereum/local?clientId=a`,
  );
  open.push({ tracker, server, db, client });
  expect((await client.request('tracker_subscribe', ['s', 'transaction', null])).result).toBe('s');
  return client;
}

/** Mines a transfer, tracks it with receipt lookups held at the node; resolves once the watcher's round waits on one. */
async function holdRoundOn(client: RawTrackerClient): Promise<{ hash: string; release(): void }> {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const tx = await chain.signer.sendTransaction({ to: '0x000000000000000000000000000000000000dEaD', value: 1n });
  await tx.wait();
  const hash = tx.hash.toLowerCase();
  proxy.hold = (r) => (r.method === 'eth_getTransactionReceipt' && r.params[0] === hash ? gate : null);
  expect((await client.request('track_transaction', [hash, { confirmation: 1, timeout: 60_000 }])).result).toBe(true);
  await waitFor('the watcher to ask for the receipt', () =>
    proxy.requests.some((r) => r.method === 'eth_getTransactionReceipt' && r.params[0] === hash),
  );
  return { hash, release };
}

const send = (client: RawTrackerClient, id: number, method: string, params: unknown[]) =>
  client.sendRaw(JSON.stringify({ jsonrpc: '2.0', id, method, params }));

it('answers frames sent during a round after the receipts of that round', async () => {
  const client = await start(60_000);
  const { hash, release } = await holdRoundOn(client);
  const from = client.frames.length;
  send(client, 101, 'HEARTBEAT', []);
  send(client, 102, 'track_transaction', [`0x${randomBytes(32).toString('hex')}`, { confirmation: 1, timeout: 60_000 }]);
  send(client, 103, 'HEARTBEAT', []);
  // Time for a server that did not hold them to answer.
  await new Promise((r) => setTimeout(r, 300));
  expect(client.frames.slice(from).filter((f) => typeof f.id === 'number')).toEqual([]);
  release();
  await waitFor('answers to the three frames', () => [101, 102, 103].every((id) => client.frames.slice(from).some((f) => f.id === id)));
  const after = client.frames.slice(from);
  const receiptAt = after.findIndex((f) => f.result?.payload?.type === 'receipt' && f.result.payload.result.transactionHash === hash);
  const answers = after.map((f, i) => [f.id, i] as const).filter(([id]) => typeof id === 'number');
  expect(receiptAt).toBeGreaterThanOrEqual(0);
  expect(answers.map(([id]) => id).sort()).toEqual([101, 102, 103]);
  expect(answers.every(([, i]) => i > receiptAt)).toBe(true);
  expect(after.find((f) => f.id === 102).result).toBe(true);
});

it('answers a frame after the hold limit when the round drags on, and reads the socket again', async () => {
  const client = await start(200);
  const { hash, release } = await holdRoundOn(client);
  expect((await client.request('HEARTBEAT', [])).result).toBe(true);
  expect((await client.request('HEARTBEAT', [])).result).toBe(true);
  // The round is still waiting on the node: its receipt has not gone out.
  expect(client.pushesOf('receipt', hash)).toEqual([]);
  release();
  await waitFor('the receipt once the node answers', () => client.pushesOf('receipt', hash).length === 1 || undefined);
});
