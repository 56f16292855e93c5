// attachTracker on its own: a plain node:http server, a ws:// node URL (requests and heads over WebSocket), and an
// upgrade path that belongs to another handler, which the tracker must leave alone.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonRpcProvider, Wallet } from 'ethers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { startAnvil, type RunningAnvil } from '../../../src/devchain/devchain.js';
import { silentLogger } from '../../../src/lib/log.js';
import { openDatabase, type Db } from '../../../src/lib/sqlite.js';
import { openSqliteTrackerStore } from '../../../src/service/tracker/sqlite/tracker-store-sqlite.js';
import type { AttachedTracker } from '../../../src/service/tracker/tracker-attach.js';
import { attachTrackerOn } from '../../support/service/tracker-on-server.js';
import { DEV_KEYS, RawTrackerClient, sendTransfer } from '../../support/service/tracker-harness.js';
import { waitFor } from '../../support/poll.js';

let anvil: RunningAnvil;
let server: Server;
let db: Db;
let tracker: AttachedTracker;
let dir: string;
let base: string;
const echo = new WebSocketServer({ noServer: true });

beforeAll(async () => {
  anvil = await startAnvil({ blockTimeSeconds: 1 });
  dir = mkdtempSync(join(tmpdir(), 'txdesk-tracker-attach-'));
  db = openDatabase(join(dir, 'tracker.sqlite'));
  server = createServer((_req, res) => res.end());
  server.on('upgrade', (req, socket, head) => {
    if (req.url === '/other') echo.handleUpgrade(req, socket, head, (ws) => ws.send('other handler'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `ws://127.0.0.1:${(server.address() as { port: number }).port}`;
  tracker = await attachTrackerOn(server, {
    store: openSqliteTrackerStore(db),
    nodeUrl: anvil.url.replace('http://', 'ws://'),
    isClientId: async (id) => id === 'known-client',
    log: silentLogger,
  });
});

afterAll(async () => {
  await tracker?.stop();
  echo.close();
  await new Promise((r) => server?.close(r));
  db?.close();
  await anvil?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('tracks over a ws:// node URL and reports receipt then confirmation', async () => {
  const c = await RawTrackerClient.connect(`${base}/tracker/ethereum/local?clientId=known-client`);
  await c.request('tracker_subscribe', ['attach', 'transaction', null]);
  const provider = new JsonRpcProvider(anvil.url, undefined, { staticNetwork: true, cacheTimeout: -1 });
  const tx = await sendTransfer(new Wallet(DEV_KEYS[1]!, provider));
  await c.request('track_transaction', [tx.hash, { confirmation: 1, timeout: 60_000 }]);
  const receipt = await waitFor('receipt', () => c.pushesOf('receipt', tx.hash)[0]);
  await c.request('ack', [receipt.result.ackId]);
  const conf = await waitFor('confirmation', () => c.pushesOf('confirmation', tx.hash)[0]);
  await c.request('ack', [conf.result.ackId]);
  await c.close();
  provider.destroy();
  await waitFor('acked messages pruned', () => (db.prepare('SELECT count(*) AS n FROM tracker_message').get() as { n: number }).n === 0);
});

it('leaves upgrades on other paths to their own handler', async () => {
  const text = await new Promise<string>((resolve, reject) => {
    const ws = new WebSocket(`${base}/other`);
    ws.once('message', (d) => {
      resolve(String(d));
      ws.close();
    });
    ws.once('error', reject);
  });
  expect(text).toBe('other handler');
});
