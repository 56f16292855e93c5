// The listing's reads on PostgreSQL against its reads on SQLite and against the replayed model: random histories of
// both standards (with rollbacks) go through the SQLite write path, the listing tables are copied into PostgreSQL, and
// random queries (owners known and unknown, contracts, filters, standards, orders, directions, sizes, pages past the
// end) must give the same tokens, order, totals and contract objects.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../src/lib/sqlite.js';
import { openPgPool, type PgPool } from '../../../src/service/db/pg-pool.js';
import { tokenUris, type TransferLog } from '../../../src/service/indexer/indexer-apply.js';
import { applyBatch, rollbackTo } from '../../../src/service/indexer/sqlite/indexer-sink-sqlite.js';
import type { ContractMeta } from '../../../src/service/indexer/indexer-metadata.js';
import { migrateSqliteIndex } from '../../../src/service/backend.js';
import { migratePostgresIndex } from '../../../src/service/backend.js';
import { createIndexWriter, type SqliteIndexWriter } from '../../../src/service/listing/sqlite/listing-writer-sqlite.js';
import { findContractPg, queryTokensPg } from '../../../src/service/listing/postgres/listing-reads-postgres.js';
import { findContract, queryTokens } from '../../../src/service/listing/sqlite/listing-reads-sqlite.js';
import type { TokenQueryInput, TokenQueryResult } from '../../../src/service/listing/listing-reads.js';
import { ORDER_BY, type Standard } from '../../../src/shared/listing.js';
import { addr, DROP, GAME, History, MULTI, OWNERS, PLAIN, STANDARD, step, ZERO } from '../../support/chain/mixed-history.js';
import { createTestDatabase, type TestDatabase } from '../../support/service/postgres-db.js';
import { modelFromTransfers, modelList, type ListingModel } from '../../support/service/service-model.js';

/** An ERC-721 contract only OWNERS[0] is given, with ids of very different key lengths: a contract the others do not hold. */
const LONE = addr(0xe5);
const UNKNOWN_CONTRACT = addr(0xbeef);
const UNKNOWN_OWNER = addr(0xdead);
const CONTRACTS = [PLAIN, DROP, MULTI, GAME, LONE];
const TABLES = ['idx_accounts', 'idx_contracts', 'idx_tokens', 'idx_owner_contract', 'idx_pairs', 'idx_ids'];

const standardOf = (c: string) => STANDARD[c] ?? 'ERC721';
const uriOf = (c: string, id: bigint) => `uri:${c}:${id}`;
const hashOf = (block: number) => '0x' + block.toString(16).padStart(64, '0');

function newContracts(w: SqliteIndexWriter, logs: readonly TransferLog[]): Map<string, ContractMeta> {
  const out = new Map<string, ContractMeta>();
  for (const l of logs) {
    if (w.contract(l.contract) || out.has(l.contract)) continue;
    const standard = standardOf(l.contract);
    // PLAIN answers totalSupply(); the other ERC-721s count minted - burned.
    out.set(l.contract, {
      name: `N${l.contract.slice(-2)}`,
      symbol: standard === 'ERC1155' ? '' : 'S',
      totalSupply: l.contract === PLAIN ? '77' : null,
      hasUri: true,
      standard,
    });
  }
  return out;
}

/** Every owner first gets tokens of all four History contracts (LONE only OWNERS[0]), then the random ranges follow. */
function prefix(h: History): void {
  OWNERS.forEach((_, i) => {
    h.add({ kind: 0, a: i, b: 0, c: 0, newBlock: false }); // PLAIN
    h.add({ kind: 20, a: i, b: 2, c: 0, newBlock: false }); // DROP, 3 tokens
    h.add({ kind: 55, a: i, b: 0, c: i, newBlock: false }); // MULTI mint
    h.add({ kind: 56, a: i, b: 0, c: i + 1, newBlock: true }); // GAME mint
  });
  for (const id of [0n, 2n ** 256n - 1n, 10n ** 30n]) {
    h.moves.push({ block: h.block, logIndex: h.logIndex++, blockHash: hashOf(h.block), contract: LONE, from: ZERO, to: OWNERS[0]!, id });
  }
}

/** Applies the prefix and `ranges` through the SQLite write path, rolling back some of them. */
function buildSqlite(
  ranges: (typeof step extends fc.Arbitrary<infer S> ? S : never)[][],
  rollbacks: number[],
): { db: Db; model: ListingModel } {
  const db = openDatabase(':memory:');
  migrateSqliteIndex(db);
  let w = createIndexWriter(db, 2);
  const h = new History();
  const apply = (fromBlock: number, start: number) => {
    const logs = h.moves.slice(start);
    const uris = tokenUris(
      logs.map((l) => ({ address: l.contract, id: l.id })),
      logs.map((l) => uriOf(l.contract, l.id)),
    );
    applyBatch(db, w, { from: fromBlock, to: h.block, headers: [], logs, newContracts: newContracts(w, logs), uris, supplies: new Map() });
    h.block++;
    h.logIndex = 0;
  };
  prefix(h);
  apply(1, 0);
  const kept = h.block - 1;
  ranges.forEach((steps, r) => {
    const fromBlock = h.block;
    const start = h.moves.length;
    for (const s of steps) h.add(s);
    apply(fromBlock, start);
    if ((rollbacks[r] ?? 9) < 2) {
      // A reorganisation: undo the newest blocks (never the prefix), forget their moves.
      const ancestor = Math.max(kept, h.block - 2 - rollbacks[r]!);
      rollbackTo(db, w, ancestor);
      w = createIndexWriter(db, 2);
      h.moves = h.moves.filter((m) => m.block <= ancestor);
      h.block = ancestor + 1;
    }
  });
  return { db, model: modelFromTransfers(h.moves) };
}

/** Replaces the listing tables in PostgreSQL with SQLite's rows (the columns both have). */
async function copyToPg(db: Db, pool: PgPool): Promise<void> {
  await pool.query(`TRUNCATE ${TABLES.join(', ')}`);
  for (const table of TABLES) {
    const pgColumns = new Set(
      (
        await pool.query<{ column_name: string }>('SELECT column_name FROM information_schema.columns WHERE table_name = $1', [table])
      ).rows.map((r) => r.column_name),
    );
    const rows = db.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[];
    if (rows.length === 0) continue;
    const columns = Object.keys(rows[0]!).filter((c) => pgColumns.has(c));
    for (let i = 0; i < rows.length; i += 500) {
      const chunk = rows.slice(i, i + 500);
      const args: unknown[] = [];
      const values = chunk.map((row) => `(${columns.map((c) => (args.push(row[c]), `$${args.length}`)).join(', ')})`);
      await pool.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${values.join(', ')}`, args);
    }
  }
}

const upper = (a: string) => '0x' + a.slice(2).toUpperCase();
const someCase = (list: string[]) => fc.tuple(fc.constantFrom(...list), fc.boolean()).map(([a, up]) => (up ? upper(a) : a));

const queryArb = fc.record({
  scope: fc.oneof(
    { weight: 3, arbitrary: someCase([...OWNERS, UNKNOWN_OWNER]).map((owner) => ({ owner })) },
    { weight: 1, arbitrary: someCase([...CONTRACTS, UNKNOWN_CONTRACT]).map((contract) => ({ contract })) },
  ),
  contracts: fc.option(fc.array(someCase([...CONTRACTS, UNKNOWN_CONTRACT]), { minLength: 1, maxLength: 4 }), { nil: undefined }),
  standard: fc.option(fc.constantFrom<Standard>('ERC721', 'ERC1155'), { nil: undefined }),
  orderBy: fc.constantFrom(...ORDER_BY),
  direction: fc.constantFrom('asc' as const, 'desc' as const),
  size: fc.integer({ min: 1, max: 50 }),
  // Reduced modulo (pages + 2) once the total is known, so the last pages and those past the end come up often.
  page: fc.oneof({ weight: 19, arbitrary: fc.nat(1000) }, { weight: 1, arbitrary: fc.constantFrom(-1, 10 ** 9, Number.MAX_SAFE_INTEGER) }),
  several: fc.constantFrom('auto' as const, 'merge' as const, 'scan' as const),
});
type RandomQuery = typeof queryArb extends fc.Arbitrary<infer Q> ? Q : never;

const label = (t: TokenQueryResult['tokens'][number]) => `${t.contract.address}:${t.id}:${t.owner}:${t.balance}:${t.contract.standard}`;

/** PostgreSQL equals SQLite for the query, and both equal the model's slice of the whole list. */
async function expectSameAnswer(db: Db, pool: PgPool, model: ListingModel, r: RandomQuery): Promise<void> {
  const base = { ...r.scope, ...(r.contracts ? { contracts: r.contracts } : {}), ...(r.standard ? { standard: r.standard } : {}) };
  const probe = queryTokens(db, { ...base, page: 0, size: r.size, orderBy: r.orderBy, direction: r.direction });
  const page = r.page >= 0 && r.page <= 1000 ? r.page % (Math.ceil(probe.totalCount / r.size) + 2) : r.page;
  const q: TokenQueryInput = { ...base, page, size: r.size, orderBy: r.orderBy, direction: r.direction };
  const want = queryTokens(db, q);
  const got = await queryTokensPg(pool, { ...q, several: r.several });
  const what = JSON.stringify({ ...q, several: r.several });
  expect(got, what).toEqual(want);
  const all = modelList(model.tokens, base, r.orderBy, r.direction).map(
    (m) => `${m.contract}:${m.id}:${m.owner}:${m.balance}:${m.standard}`,
  );
  expect(got.totalCount, what).toBe(all.length);
  const start = page * r.size;
  expect(got.tokens.map(label), what).toEqual(Number.isSafeInteger(start) && start >= 0 ? all.slice(start, start + r.size) : []);
  for (const t of got.tokens) expect(t.uri).toBe(uriOf(t.contract.address, BigInt(t.id)));
}

async function expectSameContracts(db: Db, pool: PgPool, model: ListingModel): Promise<void> {
  for (const c of [...CONTRACTS, UNKNOWN_CONTRACT]) {
    for (const a of [c, upper(c)]) expect(await findContractPg(pool, a), a).toEqual(findContract(db, a));
  }
  expect((await findContractPg(pool, PLAIN))?.totalSupply).toBe(77);
  for (const c of [DROP, LONE])
    expect((await findContractPg(pool, c))?.totalSupply).toBe((model.minted.get(c) ?? 0) - (model.burned.get(c) ?? 0));
  for (const c of [MULTI, GAME]) expect((await findContractPg(pool, c))?.totalSupply).toBe(model.idsWithSupply.get(c) ?? 0);
}

describe('listing reads on PostgreSQL', () => {
  let tdb: TestDatabase;
  let pool: PgPool;

  beforeAll(async () => {
    tdb = await createTestDatabase('listing-pg');
    pool = openPgPool(tdb.url);
    await migratePostgresIndex(pool);
  });
  afterAll(async () => {
    await pool?.end();
    await tdb?.drop();
  });

  it('answers random queries like SQLite and the model (fast-check)', async () => {
    let queries = 0;
    let mixedOwners = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(step, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(6), { minLength: 8, maxLength: 8 }),
        fc.array(queryArb, { minLength: 40, maxLength: 40 }),
        async (ranges, rollbacks, randomQueries) => {
          const { db, model } = buildSqlite(ranges, rollbacks);
          try {
            await copyToPg(db, pool);
            // Owners holding both standards over several contracts are what the filters are about.
            for (const o of OWNERS) {
              const mine = model.tokens.filter((t) => t.owner === o);
              if (new Set(mine.map((t) => t.standard)).size === 2 && new Set(mine.map((t) => t.contract)).size >= 3) mixedOwners++;
            }
            await expectSameContracts(db, pool, model);
            for (const r of randomQueries) {
              await expectSameAnswer(db, pool, model, r);
              queries++;
            }
          } finally {
            db.close();
          }
        },
      ),
      { numRuns: 40, seed: 2309 },
    );
    expect(queries).toBeGreaterThanOrEqual(40 * 40);
    expect(mixedOwners).toBeGreaterThan(40);
  });

  it('pages every list of a long history through to its end like the model, under every plan', async () => {
    const [ranges] = fc.sample(fc.array(fc.array(step, { minLength: 30, maxLength: 30 }), { minLength: 20, maxLength: 20 }), {
      seed: 7,
      numRuns: 1,
    });
    const { db, model } = buildSqlite(ranges!, []);
    try {
      await copyToPg(db, pool);
      expect(Math.max(...OWNERS.map((o) => model.tokens.filter((t) => t.owner === o).length))).toBeGreaterThan(60);
      const scopes = [...OWNERS.map((owner) => ({ owner })), ...CONTRACTS.map((contract) => ({ contract }))];
      const filters = [undefined, [MULTI], [PLAIN, GAME], [DROP, GAME, MULTI, LONE]];
      let pages = 0;
      for (const scope of scopes) {
        for (const contracts of filters) {
          for (const standard of [undefined, 'ERC721', 'ERC1155'] as const) {
            for (const orderBy of ORDER_BY) {
              for (const direction of ['asc', 'desc'] as const) {
                const base = { ...scope, ...(contracts ? { contracts } : {}), ...(standard ? { standard } : {}) };
                const expected = modelList(model.tokens, base, orderBy, direction).map(
                  (m) => `${m.contract}:${m.id}:${m.owner}:${m.balance}:${m.standard}`,
                );
                for (const several of ['merge', 'scan'] as const) {
                  const got: string[] = [];
                  for (let page = 0; ; page++) {
                    const q = { ...base, page, size: 7, orderBy, direction };
                    const r = await queryTokensPg(pool, { ...q, several });
                    pages++;
                    expect(r.totalCount, JSON.stringify(q)).toBe(expected.length);
                    got.push(...r.tokens.map(label));
                    if (r.tokens.length < 7) break;
                  }
                  expect(got, JSON.stringify({ ...base, orderBy, direction, several })).toEqual(expected);
                }
              }
            }
          }
        }
      }
      expect(pages).toBeGreaterThan(2000);
    } finally {
      db.close();
    }
  });
});
