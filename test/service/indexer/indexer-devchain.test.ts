// The indexer on the team's dev chain (startDevchain): sample collections, the sample ERC-20, tokens given to an account;
// and the same chain read through a WebSocket-only endpoint.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { startDevchain, type Devchain } from '../../../src/devchain/devchain.js';
import { silentLogger } from '../../../src/lib/log.js';
import { openDatabase, type Db } from '../../../src/lib/sqlite.js';
import { startIndexer, type Indexer } from '../../../src/service/indexer/indexer.js';
import { findContract, queryTokens } from '../../../src/service/listing/sqlite/listing-reads-sqlite.js';
import { dumpSqlite } from '../../support/service/index-dump.js';
import { expectListingsMatch, modelFromChain } from '../../support/service/service-model.js';

let devchain: Devchain;
let dir: string;
let db: Db;
let indexer: Indexer;

beforeAll(async () => {
  devchain = await startDevchain({ log: silentLogger, progress: false });
  dir = mkdtempSync(join(tmpdir(), 'txdesk-indexer-devchain-'));
  db = openDatabase(join(dir, 'index.db'));
  indexer = startIndexer({ db, nodeUrl: devchain.nodeUrl, confirmations: 0, log: silentLogger, pollMs: 250 });
}, 120_000);

afterAll(async () => {
  await indexer?.stop().catch(() => {});
  db?.close();
  await devchain?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('indexer on the dev chain', () => {
  it('indexes the sample collections, ignores the sample ERC-20, and lists tokens given to an account', async () => {
    const account = devchain.accounts[1]!.address.toLowerCase();
    await indexer.caughtUp();
    const before = queryTokens(db, { owner: account, page: 0, size: 200, orderBy: 'token_id', direction: 'asc' }).totalCount;
    await devchain.giveTokens(account, 3);
    await indexer.caughtUp();

    for (const c of devchain.collections) {
      const found = findContract(db, c.address);
      expect(found, c.name).not.toBeNull();
      if (c.kind === 'full') expect(found).toMatchObject({ address: c.address.toLowerCase(), name: c.name, symbol: c.symbol });
    }
    expect(findContract(db, devchain.erc20.address)).toBeNull();

    const mine = queryTokens(db, { owner: account, page: 0, size: 200, orderBy: 'transfer_block_number', direction: 'desc' });
    expect(mine.totalCount).toBe(before + 3);
    const tiles = devchain.collections.find((c) => c.kind === 'full')!.address.toLowerCase();
    for (const t of mine.tokens.slice(0, 3)) {
      expect(t.contract.address).toBe(tiles);
      expect(t.uri.startsWith(devchain.metadataUrl)).toBe(true);
    }

    const model = await modelFromChain(devchain.nodeUrl);
    const owners = [...new Set(model.tokens.map((t) => t.owner))];
    expectListingsMatch(db, model.tokens, {
      owners,
      contracts: devchain.collections.map((c) => c.address.toLowerCase()),
      filters: [undefined, [tiles]],
      sizes: [7],
    });
  });
});

/**
 * A WebSocket-only endpoint in front of the dev chain, like a node's separate ws port or a provider's wss:// URL:
 * plain HTTP requests are refused (426), every WebSocket message is passed to the chain and its answer sent back.
 */
async function wsOnlyNode(nodeUrl: string): Promise<{ url: string; messages: () => number; close(): Promise<void> }> {
  const server = createServer((_req, res) => res.writeHead(426, { 'content-type': 'text/plain' }).end('WebSocket only'));
  const wss = new WebSocketServer({ server });
  let messages = 0;
  wss.on('connection', (socket) =>
    socket.on('message', async (data) => {
      messages++;
      const res = await fetch(nodeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: String(data) });
      socket.send(await res.text());
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    messages: () => messages,
    close: () => new Promise((resolve) => (wss.close(), server.closeAllConnections(), server.close(() => resolve()))),
  };
}

describe('indexer on the dev chain over a WebSocket', () => {
  it('reads a WebSocket-only node and ends with the same index as over HTTP', async () => {
    const node = await wsOnlyNode(devchain.nodeUrl);
    const wsDb = openDatabase(join(dir, 'index-ws.db'));
    const overWs = startIndexer({ db: wsDb, nodeUrl: node.url, confirmations: 0, log: silentLogger, pollMs: 250 });
    try {
      await devchain.giveTokens(devchain.accounts[2]!.address.toLowerCase(), 2);
      // Bounded: an indexer that cannot read the node waits for it for good.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        overWs.caughtUp(),
        new Promise(
          (_, reject) =>
            (timer = setTimeout(() => reject(new Error('the indexer never caught up through the WebSocket-only node')), 30_000)),
        ),
      ]).finally(() => clearTimeout(timer));
      await indexer.caughtUp();
      expect(overWs.status().indexedBlock).toBe(indexer.status().indexedBlock);
      // Checkpoints left out: which blocks each keeps depends on how it split its reads into ranges.
      const [http, ws] = [dumpSqlite(db, { checkpoints: false }), dumpSqlite(wsDb, { checkpoints: false })];
      expect(ws.tokens!.length).toBeGreaterThan(0);
      expect(ws).toEqual(http);
      expect(node.messages()).toBeGreaterThan(0); // as many as its polls took: it read over the WebSocket at all
    } finally {
      await overWs.stop();
      wsDb.close();
      await node.close();
    }
  });
});
