// The indexer with its reader thread: a worker_threads reader exists only in the build (dist/), so this file runs the
// compiled indexer against anvil and checks what indexer.test.ts checks for the in-thread reader: listings equal the
// model replayed from the chain, a reorganisation rolls back, a restart resumes at tip + 1, and a node's range
// refusal still shrinks the span (the refusal crosses the thread boundary with its code).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Contract } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/lib/log.js';
import { openDatabase, type Db } from '../../../src/lib/sqlite.js';
import type * as BackendModule from '../../../src/service/backend.js';
import type * as IndexerModule from '../../../src/service/indexer/indexer.js';
import type * as ReadThreadModule from '../../../src/service/indexer/indexer-read-thread.js';
import { ensureCoreBuilt } from '../../support/app/core-build.js';
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
import { waitFor } from '../../support/poll.js';

const owners = ['0x1111', '0x2222', '0x3333'].map((p) => (p + '0'.repeat(36)).toLowerCase());
let built: typeof IndexerModule;
let builtBackend: typeof BackendModule;
let builtThread: typeof ReadThreadModule;
let chain: TestChain;
let proxy: RpcProxy;
let dir: string;
let alpha: Contract;
let beta: Contract;
const addr = (c: Contract) => (c.target as string).toLowerCase();

async function expectMatchesChain(db: Db): Promise<void> {
  const model = await modelFromChain(chain.url);
  const contracts = [alpha, beta].map(addr);
  expectListingsMatch(db, model.tokens, { owners, contracts, filters: [undefined, [contracts[0]!]], sizes: [2, 50] });
}

const start = (db: Db, extra: Partial<IndexerModule.IndexerOptions> = {}) =>
  built.startIndexer({ db, nodeUrl: proxy.url, confirmations: 0, log: silentLogger, pollMs: 100, bucketSize: 2, partMoves: 3, ...extra });

beforeAll(async () => {
  ensureCoreBuilt();
  const dist = join(import.meta.dirname, '..', '..', '..', 'dist', 'service', 'indexer');
  built = (await import(join(dist, 'indexer.js'))) as typeof IndexerModule;
  builtThread = (await import(join(dist, 'indexer-read-thread.js'))) as typeof ReadThreadModule;
  builtBackend = (await import(join(dist, '..', 'backend.js'))) as typeof BackendModule;
  chain = await startTestChain();
  proxy = await startRpcProxy(chain.url);
  dir = mkdtempSync(join(tmpdir(), 'txdesk-indexer-thread-'));
  alpha = await chain.deploy('TestNft', 'Alpha', 'ALP');
  beta = await chain.deploy('TestNft', 'Beta', 'BET');
  await chain.send(alpha, 'mintMany', owners[0], 1, 8);
  await chain.send(beta, 'mintMany', owners[1], 1, 5);
  await chain.send(alpha, 'moveMany', owners[2], [2, 4, 6]);
  await chain.send(beta, 'burn', 3);
  await chain.send(alpha, 'move', owners[1], 7);
}, 120_000);

afterAll(async () => {
  await proxy?.stop();
  await chain?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('indexer with its reader thread (built code)', () => {
  it('indexes, rolls back a reorganisation and resumes after a restart like the in-thread reader', async () => {
    let db = openDatabase(join(dir, 'index.db'));
    let indexer = start(db);
    try {
      await indexer.caughtUp();
      expect(indexer.stats().readerThread).toBe(true);
      await expectMatchesChain(db);

      const snapshot = await rpc<string>(chain.url, 'evm_snapshot');
      await chain.send(alpha, 'mintMany', owners[2], 100, 4);
      await indexer.caughtUp();
      await rpc(chain.url, 'evm_revert', [snapshot]);
      chain.signer.reset();
      await chain.send(beta, 'move', owners[0], 4);
      await indexer.caughtUp();
      expect(indexer.stats().reorgs).toBe(1);
      // The ranges after the start went through the thread (the first ones may be read here while it boots).
      expect(indexer.stats().threadReads).toBeGreaterThan(0);
      await expectMatchesChain(db);
    } finally {
      await indexer.stop();
    }
    const stoppedAt = indexer.status().indexedBlock;
    db.close();
    await chain.send(alpha, 'move', owners[0], 2);
    db = openDatabase(join(dir, 'index.db'));
    indexer = start(db);
    try {
      await indexer.caughtUp();
      expect(indexer.stats().firstRangeStart).toBe(stoppedAt + 1);
      await expectMatchesChain(db);
    } finally {
      await indexer.stop();
      db.close();
    }
  });

  it('shrinks its range when the node refuses large ones', async () => {
    const db = openDatabase(join(dir, 'refused.db'));
    proxy.requests.length = 0;
    proxy.refuse = refuseLogRangesOver(3);
    const indexer = start(db, { batchSize: 16 });
    try {
      await indexer.caughtUp();
      expect(indexer.stats().readerThread).toBe(true);
    } finally {
      proxy.refuse = null;
      await indexer.stop();
    }
    const spans = proxy.requests.filter((r) => r.method === 'eth_getLogs').map(logSpan);
    // The first ask covers the whole short chain (more than 3 blocks), refused; the worker's answers then fit.
    expect(spans[0]).toBeGreaterThan(3);
    expect(spans.at(-1)).toBeLessThanOrEqual(3);
    await expectMatchesChain(db);
    db.close();
  });

  it('a warmed thread says when it is ready, reads then, and is not ready once stopped', async () => {
    const file = join(dir, 'warm.db');
    const db = openDatabase(file);
    builtBackend.migrateSqliteIndex(db);
    const reader = builtThread.startReadThread(chain.url, file, silentLogger)!;
    try {
      expect(reader.ready).toBe(false);
      reader.warm();
      await waitFor('the warmed read thread to be ready', () => reader.ready, { timeoutMs: 20_000, everyMs: 10 });
      const parts = await reader.read(1, 3, [], 50_000, 10_000);
      expect((await parts[0]!.result).logs.length).toBeGreaterThan(0);
    } finally {
      await reader.stop();
      db.close();
    }
    expect(reader.ready).toBe(false);
  });

  it('a reader thread that cannot start fails its reads, and after three failures in a row is given up for the main thread', async () => {
    const warnings: string[] = [];
    const log = { ...silentLogger, warn: (m: string) => warnings.push(m) };
    // The worker's own connection needs the database file: a missing one kills the thread as it starts.
    const reader = builtThread.startReadThread(chain.url, join(dir, 'missing', 'none.db'), log);
    expect(reader).not.toBeNull();
    expect(reader!.ready).toBe(false);
    for (let i = 0; i < 3; i++) {
      expect(reader!.usable).toBe(true);
      await expect(reader!.read(1, 2, [], 50_000, 10_000)).rejects.toThrow(/reader thread stopped/);
    }
    expect(reader!.usable).toBe(false);
    expect(reader!.ready).toBe(false);
    expect(warnings.at(-1)).toMatch(/reading on the main thread from now on/);
    await reader!.stop();
  });
});
