// The indexer against a real anvil: listings equal a model replayed from the node's logs, ERC-20 is ignored,
// reorganisations (evm_revert, anvil_reorg) roll the index back, restarts resume, node range limits are adapted to.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Contract } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, silentLogger } from '../../../src/lib/log.js';
import { openDatabase, type Db } from '../../../src/lib/sqlite.js';
import { startIndexer, type Indexer } from '../../../src/service/indexer/indexer.js';
import { findContract, queryTokens } from '../../../src/service/listing/sqlite/listing-reads-sqlite.js';
import { sqliteIndexStore } from '../../../src/service/backend.js';
import type { IndexStore } from '../../../src/service/indexer/indexer-store.js';
import {
  logSpan,
  refuseLogRangesOver,
  rpc,
  startRpcProxy,
  startTestChain,
  type RpcProxy,
  type TestChain,
} from '../../support/chain/indexer-chain.js';
import { expectListingsMatch, modelFromChain } from '../../support/service/service-model.js';

const owners = ['0x1111', '0x2222', '0x3333', '0x4444'].map((p) => (p + '0'.repeat(36)).toLowerCase());

let chain: TestChain;
let proxy: RpcProxy;
let dir: string;
let db: Db;
let indexer: Indexer | null = null;
let alpha: Contract;
let beta: Contract;
let bare: Contract;
let coin: Contract;
const addr = (c: Contract) => (c.target as string).toLowerCase();

async function expectIndexMatchesChain(sizes = [1, 4, 200]): Promise<void> {
  const model = await modelFromChain(chain.url);
  const contracts = [alpha, beta, bare].map(addr);
  expectListingsMatch(db, model.tokens, {
    owners: [...owners, '0x' + '9'.repeat(40)],
    contracts,
    filters: [undefined, [contracts[0]!], [contracts[0]!, contracts[2]!], [...contracts, addr(coin)]],
    sizes,
    check: (t) => {
      expect(t.uri).toBe(t.contract.address === addr(bare) ? '' : `ipfs://t/${t.id}`);
    },
  });
  for (const c of contracts) {
    const minted = model.minted.get(c) ?? 0;
    const burned = model.burned.get(c) ?? 0;
    expect(findContract(db, c)?.totalSupply).toBe(minted - burned);
  }
}

/** Stops the running indexer and starts over on the empty database `name`, the one the listings are checked in from now on. */
async function freshIndex(name: string): Promise<Db> {
  await indexer?.stop();
  indexer = null;
  db.close();
  db = openDatabase(join(dir, name));
  proxy.requests.length = 0;
  return db;
}

beforeAll(async () => {
  chain = await startTestChain();
  proxy = await startRpcProxy(chain.url);
  dir = mkdtempSync(join(tmpdir(), 'txdesk-indexer-'));
  db = openDatabase(join(dir, 'index.db'));
  alpha = await chain.deploy('TestNft', 'Alpha', 'ALP');
  beta = await chain.deploy('TestNft', 'Beta', 'BET');
  bare = await chain.deploy('TestBareNft');
  coin = await chain.deploy('TestCoin');
  const [a, b, c, d] = owners as [string, string, string, string];
  // Several mints in one transaction (same block, increasing log index), ids colliding across contracts.
  await chain.send(alpha, 'mintMany', a, 1, 6);
  await chain.send(beta, 'mintMany', b, 1, 4);
  await chain.send(alpha, 'mint', b, 2n ** 200n);
  await chain.send(beta, 'mint', a, 300);
  for (const id of [5, 9, 12]) await chain.send(bare, 'mint', c, id);
  await chain.send(alpha, 'moveMany', c, [2, 4]);
  await chain.send(beta, 'move', a, 3);
  await chain.send(alpha, 'burn', 6);
  await chain.send(bare, 'move', a, 9);
  await chain.send(coin, 'pay', d, 1000);
  await chain.send(coin, 'pay', a, 5);
}, 120_000);

afterAll(async () => {
  await indexer?.stop().catch(() => {});
  db?.close();
  await proxy?.stop();
  await chain?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('indexer on anvil', () => {
  it('indexes ERC-721 transfers so every listing equals the model replayed from the chain', async () => {
    indexer = startIndexer({
      db,
      nodeUrl: proxy.url,
      confirmations: 0,
      log: process.env.TXDESK_TEST_LOG ? createLogger('indexer') : silentLogger,
      pollMs: 100,
      bucketSize: 2,
      partMoves: 3,
    });
    await indexer.caughtUp();
    const head = await rpc<string>(chain.url, 'eth_blockNumber');
    expect(indexer.status().indexedBlock).toBe(Number(head));
    // The catch-up's ranges (many, partMoves 3) held WAL checkpoints; at the head SQLite's own threshold is back.
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    await expectIndexMatchesChain();
    const a = findContract(db, addr(alpha));
    expect(a).toMatchObject({ address: addr(alpha), name: 'Alpha', symbol: 'ALP', totalSupply: 6 });
    expect(findContract(db, addr(bare))).toMatchObject({ name: '', symbol: '', totalSupply: 3 });
  });

  it('does not treat ERC-20 transfers as tokens', () => {
    expect(findContract(db, addr(coin))).toBeNull();
    expect(queryTokens(db, { owner: owners[3]!, page: 0, size: 15, orderBy: 'token_id', direction: 'asc' })).toEqual({
      tokens: [],
      totalCount: 0,
    });
    expect(queryTokens(db, { contract: addr(coin), page: 0, size: 15, orderBy: 'token_id', direction: 'asc' }).totalCount).toBe(0);
  });

  it('follows new blocks while running, honouring the confirmation depth', async () => {
    await chain.send(alpha, 'mint', owners[3]!, 77);
    await indexer!.caughtUp();
    expect(queryTokens(db, { owner: owners[3]!, page: 0, size: 15, orderBy: 'token_id', direction: 'asc' }).totalCount).toBe(1);
    await expectIndexMatchesChain([3]);
  });

  it('rolls back and re-indexes when the chain reverts to a snapshot and mines a different history', async () => {
    const snapshot = await rpc<string>(chain.url, 'evm_snapshot');
    const late = await chain.deploy('TestNft', 'Late', 'LATE');
    await chain.send(late, 'mintMany', owners[0]!, 100, 3);
    await chain.send(alpha, 'moveMany', owners[3]!, [1, 3]);
    await chain.send(beta, 'burn', 300);
    await indexer!.caughtUp();
    expect(findContract(db, addr(late))).not.toBeNull();
    expect(queryTokens(db, { owner: owners[3]!, page: 0, size: 15, orderBy: 'token_id', direction: 'asc' }).totalCount).toBe(3);

    const reorgsBefore = indexer!.stats().reorgs;
    await rpc(chain.url, 'evm_revert', [snapshot]);
    chain.signer.reset();
    // A different, shorter history: the old tip no longer exists.
    await chain.send(alpha, 'move', owners[2]!, 1);
    await indexer!.caughtUp();
    expect(indexer!.stats().reorgs).toBeGreaterThan(reorgsBefore);
    expect(findContract(db, addr(late))).toBeNull();
    expect(queryTokens(db, { owner: owners[3]!, page: 0, size: 15, orderBy: 'token_id', direction: 'asc' }).totalCount).toBe(1);
    await expectIndexMatchesChain([1, 200]);
  });

  it('rolls back when anvil_reorg replaces the last blocks', async () => {
    await chain.send(alpha, 'move', owners[1]!, 77);
    await chain.send(beta, 'mint', owners[1]!, 500);
    await chain.send(bare, 'burn', 9);
    await indexer!.caughtUp();
    expect(
      queryTokens(db, { owner: owners[1]!, contract: undefined, page: 0, size: 200, orderBy: 'token_id', direction: 'asc' }).tokens.map(
        (t) => t.id,
      ),
    ).toContain('500');
    const reorgsBefore = indexer!.stats().reorgs;
    await rpc(chain.url, 'anvil_reorg', [3, []]);
    chain.signer.reset();
    await chain.mine(1);
    await indexer!.caughtUp();
    expect(indexer!.stats().reorgs).toBeGreaterThan(reorgsBefore);
    expect(
      queryTokens(db, { owner: owners[1]!, page: 0, size: 200, orderBy: 'token_id', direction: 'asc' }).tokens.map((t) => t.id),
    ).not.toContain('500');
    await expectIndexMatchesChain([2, 200]);
  });

  it('resumes after a restart from its last block, without reading the chain from genesis', async () => {
    await indexer!.stop();
    const stoppedAt = indexer!.status().indexedBlock;
    indexer = null;
    db.close();
    await chain.send(beta, 'mint', owners[2]!, 900);
    await chain.send(alpha, 'move', owners[2]!, 5);

    db = openDatabase(join(dir, 'index.db'));
    proxy.requests.length = 0;
    indexer = startIndexer({ db, nodeUrl: proxy.url, confirmations: 0, log: silentLogger, pollMs: 100, bucketSize: 2 });
    await indexer.caughtUp();
    const ranges = proxy.requests
      .filter((r) => r.method === 'eth_getLogs')
      .map((r) => Number((r.params[0] as { fromBlock: string }).fromBlock));
    expect(ranges.length).toBeGreaterThan(0);
    expect(Math.min(...ranges)).toBe(stoppedAt + 1);
    expect(indexer.stats().firstRangeStart).toBe(stoppedAt + 1);
    await expectIndexMatchesChain([200]);
  });

  it('shrinks its eth_getLogs range when the node refuses large ranges, and still indexes everything', async () => {
    const fresh = await freshIndex('fresh.db');
    // Like a public RPC: at most 3 blocks per eth_getLogs.
    proxy.refuse = refuseLogRangesOver(3);
    try {
      indexer = startIndexer({ db: fresh, nodeUrl: proxy.url, confirmations: 0, log: silentLogger, pollMs: 100, batchSize: 16 });
      await indexer.caughtUp();
    } finally {
      proxy.refuse = null;
    }
    const spans = proxy.requests.filter((r) => r.method === 'eth_getLogs').map(logSpan);
    expect(spans[0]).toBe(16);
    expect(spans.filter((n) => n > 3).length).toBeGreaterThan(1);
    expect(spans.at(-1)).toBeLessThanOrEqual(3);
    await indexer.stop();
    indexer = null;
    await expectIndexMatchesChain([200]);
  });

  it('holds checkpoints from the first write of a catch-up that more ranges follow, and lets go at the head', async () => {
    const fresh = await freshIndex('held.db');
    const base = sqliteIndexStore(fresh);
    const calls: string[] = [];
    const store: IndexStore = {
      ...base,
      apply: (batch, tip) => (calls.push('apply'), base.apply(batch, tip)),
      catchingUp: (behind) => (calls.push(`behind ${behind}`), base.catchingUp!(behind)),
    };
    indexer = startIndexer({
      store,
      nodeUrl: proxy.url,
      confirmations: 0,
      log: silentLogger,
      pollMs: 100,
      rangePolicy: { min: 1, max: 1, targetLogs: 4 },
    });
    await indexer.caughtUp();
    await indexer.stop();
    indexer = null;
    expect(calls.indexOf('behind true')).toBeLessThan(calls.indexOf('apply'));
    expect(calls.filter((c) => c === 'apply').length).toBeGreaterThan(2);
    expect(fresh.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    await expectIndexMatchesChain([200]);
  });

  it('asks for one block at a time after a read whose densest block alone fills half its target', async () => {
    const fresh = await freshIndex('dense.db');
    // The first range (16 blocks) holds the block of six mints in one transaction: at 4 logs per read, one block per read.
    indexer = startIndexer({
      db: fresh,
      nodeUrl: proxy.url,
      confirmations: 0,
      log: silentLogger,
      pollMs: 100,
      batchSize: 16,
      rangePolicy: { min: 1, max: 64, targetLogs: 4 },
    });
    await indexer.caughtUp();
    const spans = proxy.requests.filter((r) => r.method === 'eth_getLogs').map(logSpan);
    expect(spans[0]).toBe(16);
    // The ranges read ahead while the first is written already follow its answer (halving alone asked for 8).
    expect(spans.slice(1, 3)).toEqual([1, 1]);
    await indexer.stop();
    indexer = null;
    await expectIndexMatchesChain([200]);
  });
});
