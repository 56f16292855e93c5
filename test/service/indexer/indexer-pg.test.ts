// The indexer on PostgreSQL against the indexer on SQLite, both following one real anvil chain: ERC-721 transfers,
// EIP-2309 ranges, ERC-1155 batches, URI and ERC-4906 updates, a refresh and a reorganisation. At each point both
// indexes must hold the same rows (the SQLite index is checked against the chain's model in indexer*.test.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Contract } from 'ethers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger, silentLogger } from '../../../src/lib/log.js';
import { openDatabase, type Db } from '../../../src/lib/sqlite.js';
import { openPgPool, type PgPool } from '../../../src/service/db/pg-pool.js';
import { startIndexer, type Indexer } from '../../../src/service/indexer/indexer.js';
import { openPostgresIndexStore, readRollbackPlanPg } from '../../../src/service/indexer/postgres/indexer-store-postgres.js';
import { openPostgresListingWriter } from '../../../src/service/listing/postgres/listing-writer-postgres.js';
import { postgresIndexStore } from '../../../src/service/backend.js';
import { dumpPg, dumpSqlite } from '../../support/service/index-dump.js';
import { rpc, startTestChain, type TestChain } from '../../support/chain/indexer-chain.js';
import { createTestDatabase, type TestDatabase } from '../../support/service/postgres-db.js';

const ZERO = '0x' + '0'.repeat(40);
const [a, b, c] = ['0x1111', '0x2222', '0x3333'].map((p) => (p + '0'.repeat(36)).toLowerCase()) as [string, string, string];

let chain: TestChain;
let dir: string;
let db: Db;
let tdb: TestDatabase;
let pool: PgPool;
const indexers: Indexer[] = [];
let drop: Contract;
let multi: Contract;
let nft: Contract;

beforeAll(async () => {
  chain = await startTestChain();
  dir = mkdtempSync(join(tmpdir(), 'txdesk-indexer-pg-'));
  db = openDatabase(join(dir, 'index.db'));
  tdb = await createTestDatabase('indexer-pg');
  pool = openPgPool(tdb.url);
  drop = await chain.deploy('TestDrop');
  multi = await chain.deploy('TestMulti');
  nft = await chain.deploy('TestNft', 'Plain', 'PLN');
  await chain.send(drop, 'mintRange', a, 1, 3000);
  await chain.send(drop, 'mintRanges', b, 10_000, 3, 4);
  await chain.send(drop, 'move', a, c, 17);
  await chain.send(drop, 'burn', a, 2999);
  await chain.send(nft, 'mintMany', a, 1, 40);
  await chain.send(nft, 'moveMany', c, [2, 3, 5]);
  await chain.send(nft, 'burn', 7);
  await chain.send(multi, 'batch', ZERO, a, [1, 2, 3], [10, 20, 30]);
  await chain.send(multi, 'single', a, b, 1, 4);
  await chain.send(multi, 'batch', a, ZERO, [2, 3], [20, 5]);
  await chain.send(multi, 'single', ZERO, c, 2n ** 200n, 1);
}, 120_000);

afterAll(async () => {
  await Promise.all(indexers.map((i) => i.stop().catch(() => {})));
  db?.close();
  await pool?.end();
  await tdb?.drop();
  await chain?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// A range's uri reads (ERC-4906, tokens first seen through a transfer) are written before its step reports progress.
const bothCaughtUp = () => Promise.all(indexers.map((i) => i.caughtUp()));

async function expectSameIndex(): Promise<void> {
  await bothCaughtUp();
  expect(await dumpPg(pool, { checkpoints: false })).toEqual(dumpSqlite(db, { checkpoints: false }));
}

it('indexes the same rows on PostgreSQL as on SQLite, through updates, a refresh and a reorganisation', async () => {
  const opts = { nodeUrl: chain.url, confirmations: 0, log: silentLogger, pollMs: 100, partMoves: 500 };
  indexers.push(startIndexer({ ...opts, db, ...(process.env.TXDESK_TEST_LOG ? { log: createLogger('indexer-sqlite') } : {}) }));
  indexers.push(
    startIndexer({
      ...opts,
      store: await postgresIndexStore(pool),
      ...(process.env.TXDESK_TEST_LOG ? { log: createLogger('indexer-pg') } : {}),
    }),
  );
  await expectSameIndex();
  const tokens = await pool.query<{ n: string }>('SELECT count(*) AS n FROM idx_tokens WHERE owner_id IS NOT NULL');
  expect(Number(tokens.rows[0]!.n)).toBeGreaterThan(3000);

  await chain.send(multi, 'setUri', 1, 'ar://one/{id}');
  await chain.send(drop, 'reveal', 'ar://revealed/');
  await chain.send(drop, 'setSpecial', 17, 'ar://seventeen');
  await expectSameIndex();
  const special = await pool.query<{ uri: string }>(
    "SELECT t.uri FROM idx_tokens t JOIN idx_contracts c ON c.id = t.contract_id WHERE c.address = $1 AND t.token_id = '17'",
    [(drop.target as string).toLowerCase()],
  );
  expect(special.rows).toEqual([{ uri: 'ar://seventeen' }]);
  // A refresh re-reads the same tokenURI here: it may land at any time without changing what is compared.
  expect(await indexers[1]!.refreshToken((nft.target as string).toLowerCase(), 3n)).toBe(true);
  expect(await indexers[1]!.refreshToken((nft.target as string).toLowerCase(), 999n)).toBe(false);

  // A reorganisation that replaces the last three blocks with other moves.
  await chain.send(nft, 'move', b, 10);
  await chain.send(multi, 'single', a, c, 1, 2);
  await chain.send(drop, 'move', b, a, 10_005);
  await bothCaughtUp();
  await rpc(chain.url, 'anvil_reorg', [3, []]);
  chain.signer.reset();
  await chain.send(nft, 'move', c, 11);
  await chain.send(nft, 'mint', b, 500);
  await expectSameIndex();
  expect(indexers.map((i) => i.stats().reorgs)).toEqual([1, 1]);
});

it('reads the same rollback plan a few rows a query as in one query (the plan is read in pages)', async () => {
  // Everything above block 0: every token and id the first test indexed, each ERC-1155 id with its whole history.
  const [paged, whole] = await Promise.all([readRollbackPlanPg(pool, 0, 7), readRollbackPlanPg(pool, 0, 1_000_000)]);
  expect(paged).toEqual(whole);
  expect(whole.tokens.length).toBeGreaterThan(3000);
  expect(whole.ids.length).toBeGreaterThanOrEqual(3);
  // Above the first ERC-1155 block: ids with the history below it to replay, tokens with a move below it to go back to.
  const first = await pool.query<{ b: number }>(
    'SELECT min(t.block) AS b FROM idx_transfers t JOIN idx_contracts c ON c.id = t.contract_id WHERE c.address = $1',
    [(multi.target as string).toLowerCase()],
  );
  const ancestor = Number(first.rows[0]!.b);
  const [pagedMid, wholeMid] = await Promise.all([readRollbackPlanPg(pool, ancestor, 1), readRollbackPlanPg(pool, ancestor, 1_000_000)]);
  expect(pagedMid).toEqual(wholeMid);
  expect(wholeMid.ids.filter((i) => i.history.length > 0).length).toBeGreaterThanOrEqual(2);
  expect(wholeMid.tokens.some((t) => t.prev !== null)).toBe(true);
  // Above the newest block nothing is undone.
  const tip = (await pool.query<{ value: string }>("SELECT value FROM idx_state WHERE key = 'tip'")).rows[0]!.value;
  expect(await readRollbackPlanPg(pool, Number(tip), 7)).toMatchObject({ tokens: [], ids: [] });
});

it('reads the same tokens for an ERC-4906 update a few rows a query as in one (a range is read in pages)', async () => {
  const updates = [
    { contract: (drop.target as string).toLowerCase(), fromId: 0n, toId: 20_000n },
    { contract: (multi.target as string).toLowerCase(), fromId: 0n, toId: 2n ** 256n - 1n },
  ];
  const [paged, whole] = await Promise.all([
    openPostgresIndexStore(pool, openPostgresListingWriter(pool, 3)),
    openPostgresIndexStore(pool, openPostgresListingWriter(pool, Number.POSITIVE_INFINITY)),
  ]);
  const [a, b] = [await paged.metadataTargets(updates), await whole.metadataTargets(updates)];
  expect(a).toEqual(b);
  expect(b.filter((m) => m.standard === 'ERC721').length).toBeGreaterThan(3000);
  expect(b.filter((m) => m.standard === 'ERC1155').length).toBeGreaterThanOrEqual(3);
});

it('finishes the same index when the database drops its connections again and again during a catch-up', async () => {
  const second = await createTestDatabase('indexer-pg-faults');
  const faulty = openPgPool(second.url);
  const killer = openPgPool(tdb.url);
  let killed = 0;
  let running = true;
  // Every connection of the indexer's database ended from the server side, as a restart or failover does: ten times,
  // 200 ms apart, while the index is written.
  const faults = (async () => {
    for (let i = 0; i < 10 && running; i++) {
      const r = await killer.query('SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = $1', [
        new URL(second.url).pathname.slice(1),
      ]);
      killed += Number(r.rows[0].n);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  const indexer = startIndexer({
    nodeUrl: chain.url,
    confirmations: 0,
    log: silentLogger,
    pollMs: 50,
    partMoves: 200,
    store: await openStoreRetrying(faulty),
  });
  try {
    await indexer.caughtUp();
    await indexers[0]!.caughtUp();
  } finally {
    running = false;
    await faults;
    await indexer.stop();
  }
  expect(killed).toBeGreaterThan(0);
  expect(await dumpPg(faulty, { checkpoints: false })).toEqual(dumpSqlite(db, { checkpoints: false }));
  await faulty.end();
  await killer.end();
  await second.drop();
});

/** The store's migration is itself cut off by the faults now and then: open it again until it goes through. */
async function openStoreRetrying(p: PgPool) {
  for (;;) {
    try {
      return await postgresIndexStore(p);
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}
