// The index on PostgreSQL against the index on SQLite: the same random histories of both standards (with ERC-4906
// updates, uri backfills and rollbacks) go through both IndexStores, and every table must end up the same, compared by
// natural keys (row ids are each store's own); a second PostgreSQL store whose writer works in pieces of 2 rows (every
// step that yields, every statement split) gets them too. A write built on a stale tip is refused and leaves nothing behind.
import fc from 'fast-check';
import type { PoolClient } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/lib/sqlite.js';
import { openPgPool, type PgPool } from '../../../src/service/db/pg-pool.js';
import { tokenUris, type Batch, type MissingUri } from '../../../src/service/indexer/indexer-apply.js';
import type { MetadataUpdate } from '../../../src/service/indexer/indexer-events.js';
import type { ContractMeta } from '../../../src/service/indexer/indexer-metadata.js';
import { postgresIndexStore } from '../../../src/service/backend.js';
import { sqliteIndexStore } from '../../../src/service/backend.js';
import type { IndexStore } from '../../../src/service/indexer/indexer-store.js';
import { openPostgresIndexStore } from '../../../src/service/indexer/postgres/indexer-store-postgres.js';
import { openPostgresListingWriter } from '../../../src/service/listing/postgres/listing-writer-postgres.js';
import { dumpPg, dumpSqlite, INDEX_TABLES } from '../../support/service/index-dump.js';
import { History, MULTI, OWNERS, PLAIN, STANDARD, step, uriOf } from '../../support/chain/mixed-history.js';
import { createTestDatabase, type TestDatabase } from '../../support/service/postgres-db.js';

function newContracts(known: (a: string) => boolean, logs: Batch['logs']): Map<string, ContractMeta> {
  const out = new Map<string, ContractMeta>();
  for (const l of logs) {
    if (known(l.contract) || out.has(l.contract)) continue;
    const standard = STANDARD[l.contract]!;
    out.set(l.contract, {
      name: `N${l.contract.slice(-2)}`,
      symbol: standard === 'ERC1155' ? '' : 'S',
      totalSupply: standard === 'ERC721' ? '0' : null,
      hasUri: true,
      standard,
    });
  }
  return out;
}

const missingKeys = (m: readonly MissingUri[]) => m.map((x) => `${x.standard}:${x.address}:${x.id}`).sort();

describe('index store on PostgreSQL', () => {
  let tdb: TestDatabase;
  let pool: PgPool;
  let pg: IndexStore;
  let smallDb: TestDatabase;
  let smallPool: PgPool;
  let small: IndexStore;

  beforeAll(async () => {
    tdb = await createTestDatabase('index-store');
    pool = openPgPool(tdb.url);
    pg = await postgresIndexStore(pool);
    smallDb = await createTestDatabase('index-store-pieces');
    smallPool = openPgPool(smallDb.url);
    small = await openPostgresIndexStore(smallPool, openPostgresListingWriter(smallPool, 2));
  });
  afterAll(async () => {
    await pool?.end();
    await tdb?.drop();
    await smallPool?.end();
    await smallDb?.drop();
  });

  it('ends every random history with the same tables as SQLite (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(step, { minLength: 1, maxLength: 12 }), { minLength: 2, maxLength: 7 }),
        fc.array(fc.nat(6), { minLength: 7, maxLength: 7 }),
        fc.array(fc.nat(20), { minLength: 7, maxLength: 7 }),
        async (ranges, rollbacks, updates) => {
          await pool.query(`TRUNCATE ${INDEX_TABLES.join(', ')}`);
          await smallPool.query(`TRUNCATE ${INDEX_TABLES.join(', ')}`);
          const db = openDatabase(':memory:');
          const lite = sqliteIndexStore(db, 2);
          const h = new History();
          let tip = 0;
          for (const [r, steps] of ranges.entries()) {
            const fromBlock = h.block;
            const start = h.moves.length;
            for (const s of steps) h.add(s);
            const logs = h.moves.slice(start);
            // Some tokens come without a uri (a transfer seen before its mint was read): the write lists them.
            const read = logs.filter((l) => l.id % 3n !== 0n).map((l) => ({ address: l.contract, id: l.id }));
            const uris = tokenUris(
              read,
              read.map((t) => uriOf(t.address, t.id)),
            );
            const metadataUpdates: MetadataUpdate[] =
              updates[r]! < 6
                ? [{ contract: updates[r]! % 2 ? PLAIN : (logs[0]?.contract ?? MULTI), fromId: 0n, toId: BigInt(updates[r]! * 300) }]
                : [];
            const hash = (n: number) => '0x' + n.toString(16).padStart(64, '0');
            const known = (x: string) => lite.lookups.contractOf(x) !== undefined;
            const bt: Batch = {
              from: fromBlock,
              to: h.block,
              headers: [{ number: h.block, hash: hash(h.block), parentHash: hash(h.block - 1) }],
              logs,
              newContracts: newContracts(known, logs),
              uris,
              supplies: new Map(),
              metadataUpdates,
            };
            const a = await lite.apply(bt, tip);
            const b = await pg.apply(bt, tip);
            expect(missingKeys(b)).toEqual(missingKeys(a));
            const c = await small.apply(bt, tip);
            expect(missingKeys(c)).toEqual(missingKeys(a));
            // The uris read afterwards: each store gets its own rows' targets.
            await lite.writeUris(
              a,
              a.map((m) => `late:${m.address}:${m.id}`),
            );
            await pg.writeUris(
              b,
              b.map((m) => `late:${m.address}:${m.id}`),
            );
            await small.writeUris(
              c,
              c.map((m) => `late:${m.address}:${m.id}`),
            );
            tip = h.block;
            h.block++;
            h.logIndex = 0;
            if (rollbacks[r]! < 2 && r > 0) {
              const ancestor = Math.max(0, tip - 1 - rollbacks[r]!);
              const [x, y, z] = [await lite.rollback(ancestor, tip), await pg.rollback(ancestor, tip), await small.rollback(ancestor, tip)];
              expect([...y].sort()).toEqual([...x].sort());
              expect([...z].sort()).toEqual([...x].sort());
              h.moves = h.moves.filter((m) => m.block <= ancestor);
              h.block = ancestor + 1;
              tip = ancestor;
            }
          }
          expect(await dumpPg(pool)).toEqual(dumpSqlite(db));
          expect(await dumpPg(smallPool)).toEqual(dumpSqlite(db));
          expect(await pg.truncated()).toEqual(await lite.truncated());
          db.close();
        },
      ),
      { numRuns: 20, seed: 2309 },
    );
  });

  it('refuses a write built on a tip that is no longer the committed one, and writes nothing of it', async () => {
    await pool.query(`TRUNCATE ${INDEX_TABLES.join(', ')}`);
    const mint = (block: number, id: bigint) => ({
      block,
      logIndex: 0,
      blockHash: '0x' + block.toString(16).padStart(64, '0'),
      contract: PLAIN,
      from: '0x' + '0'.repeat(40),
      to: OWNERS[0]!,
      id,
    });
    const first: Batch = {
      from: 1,
      to: 1,
      headers: [],
      logs: [mint(1, 1n)],
      newContracts: newContracts(() => false, [mint(1, 1n)]),
      uris: new Map(),
      supplies: new Map(),
    };
    await pg.apply(first, 0);
    expect(await pg.tip()).toBe(1);
    // A second writer that still believes the index is at block 0 (a leader that lost its role without noticing).
    const stale: Batch = {
      from: 1,
      to: 2,
      headers: [],
      logs: [mint(2, 2n)],
      newContracts: new Map(),
      uris: new Map(),
      supplies: new Map(),
    };
    await expect(pg.apply(stale, 0)).rejects.toThrow(/another instance is indexing/);
    expect(await pg.tip()).toBe(1);
    expect((await pool.query('SELECT token_id FROM idx_tokens ORDER BY token_id')).rows.map((r) => r.token_id)).toEqual(['1']);
    expect((await pool.query('SELECT token_count FROM idx_accounts')).rows).toEqual([{ token_count: 1 }]);
  });
});

describe('index store on PostgreSQL when the connection is lost at COMMIT', () => {
  let tdb: TestDatabase;
  let pool: PgPool;
  // 'after': COMMIT runs, then its answer is lost; 'before': the connection is lost instead of COMMIT.
  let lose: 'after' | 'before' | null = null;

  /** The pool, with COMMIT's answer lost on demand (the client is otherwise the real one). */
  function losingPool(real: PgPool): PgPool {
    const wrap = (client: PoolClient) =>
      new Proxy(client, {
        get(target, key) {
          if (key !== 'query') return Reflect.get(target, key, target);
          return (sql: unknown, params?: unknown[]) => {
            if (sql !== 'COMMIT' || lose === null) return target.query(sql as string, params);
            const when = lose;
            lose = null;
            const lost = new Error('Connection terminated unexpectedly');
            return when === 'before' ? Promise.reject(lost) : target.query('COMMIT').then(() => Promise.reject(lost));
          };
        },
      });
    return new Proxy(real, {
      get(target, key) {
        if (key === 'connect') return async () => wrap(await target.connect());
        const v = Reflect.get(target, key, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  }

  beforeAll(async () => {
    tdb = await createTestDatabase('index-store-commit');
    pool = openPgPool(tdb.url);
  });
  afterAll(async () => {
    await pool?.end();
    await tdb?.drop();
  });

  it('counts a write whose COMMIT landed as written (its uris are still read) and retries one whose COMMIT did not', async () => {
    const store = await postgresIndexStore(losingPool(pool));
    const mint = (block: number, id: bigint) => ({
      block,
      logIndex: 0,
      blockHash: '0x' + block.toString(16).padStart(64, '0'),
      contract: PLAIN,
      from: '0x' + '0'.repeat(40),
      to: OWNERS[0]!,
      id,
    });
    const batch = (block: number, known: boolean): Batch => ({
      from: block,
      to: block,
      headers: [],
      logs: [mint(block, BigInt(block))],
      newContracts: known ? new Map() : newContracts(() => false, [mint(block, BigInt(block))]),
      // No uri read with the range: the write lists the token for a read afterwards.
      uris: new Map(),
      supplies: new Map(),
    });
    lose = 'after';
    const missing = await store.apply(batch(1, false), 0);
    expect(missingKeys(missing)).toEqual([`ERC721:${PLAIN}:1`]);
    expect(await store.tip()).toBe(1);

    lose = 'before';
    await expect(store.apply(batch(2, true), 1)).rejects.toThrow(/Connection terminated/);
    expect(await store.tip()).toBe(1);
    expect(missingKeys(await store.apply(batch(2, true), 1))).toEqual([`ERC721:${PLAIN}:2`]);
    expect((await pool.query('SELECT token_id FROM idx_tokens ORDER BY token_id')).rows.map((r) => r.token_id)).toEqual(['1', '2']);
  });
});
