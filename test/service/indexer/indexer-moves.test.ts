// The index's moves by owner (what webhooks' address activity reads): bounded steps that end on a whole block and,
// stepped through, give every move of the watched owners once, in chain order, on both backends; read through the
// owner indexes (also on an index made before they existed, which its migration gives them).
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, type Db } from '../../../src/lib/sqlite.js';
import { migratePostgresIndex, migrateSqliteIndex } from '../../../src/service/backend.js';
import { MOVES_SQL, movesCut, type IndexMovesReads, type IndexedMove } from '../../../src/service/indexer/indexer-moves.js';
import { openPostgresIndexMoves } from '../../../src/service/indexer/postgres/indexer-moves-postgres.js';
import { INDEXER_SQLITE_STEPS } from '../../../src/service/indexer/sqlite/indexer-schema-sqlite.js';
import { openSqliteIndexMoves } from '../../../src/service/indexer/sqlite/indexer-moves-sqlite.js';
import { indexSchemaSteps, tokenKeys } from '../../../src/service/listing/listing-writer.js';
import { LISTING_SCHEMA_STEPS } from '../../../src/service/listing/sqlite/listing-schema-sqlite.js';
import { backends, type BackendPlace } from '../../support/service/store-backends.js';

const [A, B, C, D] = ['aa', 'bb', 'cc', 'dd'].map((x) => '0x' + x.repeat(20)) as [string, string, string, string];
const NFT = '0x' + '11'.repeat(20);
const hashOf = (n: number) => '0x' + n.toString(16).padStart(64, '0');
/** Blocks 1..60: 30 moves B -> A and 20 C -> D (not watched) each; block 40 holds 250 moves A -> B; the tip is 60. */
function history(): [number, number, number, number, number][] {
  const rows: [number, number, number, number, number][] = []; // block, log index, from, to, token id
  for (let block = 1; block <= 60; block++) {
    const watched = block === 40 ? 250 : 30;
    for (let i = 0; i < watched; i++) rows.push(block === 40 ? [block, i, 1, 2, block * 1000 + i] : [block, i, 2, 1, block * 1000 + i]);
    for (let i = 0; i < 20; i++) rows.push([block, 500 + i, 3, 4, block * 1000 + 500 + i]);
  }
  return rows;
}
const kId = (id: number) => tokenKeys(Buffer.from(NFT.slice(2), 'hex'), BigInt(id)).kId;

function fillSqlite(db: Db): void {
  db.prepare('INSERT INTO idx_accounts (id, address) VALUES (1, ?), (2, ?), (3, ?), (4, ?)').run(A, B, C, D);
  db.prepare(
    "INSERT INTO idx_contracts (id, address, addr, name, symbol, has_uri, first_block, standard) VALUES (1, ?, ?, 'N', 'N', 0, 1, 'ERC721')",
  ).run(NFT, Buffer.from(NFT.slice(2), 'hex'));
  const move = db.prepare(
    'INSERT INTO idx_transfers (block, log_index, sub, contract_id, k_id, from_id, to_id, amount) VALUES (?, ?, 0, 1, ?, ?, ?, NULL)',
  );
  const block = db.prepare('INSERT INTO idx_blocks (number, hash, parent_hash) VALUES (?, ?, NULL)');
  db.transaction(() => {
    for (const [b, li, from, to, id] of history()) move.run(b, li, kId(id), from, to);
    for (let b = 1; b <= 60; b++) block.run(b, hashOf(b));
    db.prepare("INSERT INTO idx_state (key, value) VALUES ('tip', '60')").run();
  })();
}

async function fill(place: BackendPlace): Promise<IndexMovesReads> {
  if (place.sqlite) {
    migrateSqliteIndex(place.sqlite);
    fillSqlite(place.sqlite);
    return openSqliteIndexMoves(place.sqlite);
  }
  const pool = place.pool!;
  await migratePostgresIndex(pool);
  await pool.query('INSERT INTO idx_accounts (id, address) VALUES (1, $1), (2, $2), (3, $3), (4, $4)', [A, B, C, D]);
  await pool.query(
    "INSERT INTO idx_contracts (id, address, addr, name, symbol, has_uri, first_block, standard) VALUES (1, $1, $2, 'N', 'N', 0, 1, 'ERC721')",
    [NFT, Buffer.from(NFT.slice(2), 'hex')],
  );
  const rows = history();
  await pool.query(
    'INSERT INTO idx_transfers (block, log_index, sub, contract_id, k_id, from_id, to_id, amount) SELECT b, l, 0, 1, k, f, ' +
      't, NULL FROM unnest($1::bigint[], $2::int[], $3::bytea[], $4::bigint[], $5::bigint[]) AS u(b, l, k, f, t)',
    [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => kId(r[4])), rows.map((r) => r[2]), rows.map((r) => r[3])],
  );
  await pool.query(
    "INSERT INTO idx_blocks (number, hash, parent_hash) SELECT n, $1 || lpad(to_hex(n), 64, '0'), NULL FROM generate_series(1, 60) AS n",
    ['0x'],
  );
  await pool.query("INSERT INTO idx_state (key, value) VALUES ('tip', '60')");
  return openPostgresIndexMoves(pool);
}

describe('a step ends where its moves stop being whole', () => {
  const at = (...blocks: number[]) => blocks.map((block) => ({ block }));
  it.each([
    ['nothing full, within the limit', [at(1, 2), at(3)], 3, null],
    ['a full list: whole below its last block', [at(1, 2, 2, 3), at(4)], 3, { to: 2, wholeBlock: false }],
    ['within each list, over the limit together', [at(1, 2, 3), at(1, 2, 3)], 3, { to: 1, wholeBlock: false }],
    ['one block over the limit alone: read it whole', [at(5, 5, 5, 5)], 3, { to: 5, wholeBlock: true }],
  ])('%s', (_what, lists, limit, cut) => {
    expect(movesCut(lists, limit)).toEqual(cut);
  });
});

describe.each(backends)('moves by owner on $name', (backend) => {
  const places: BackendPlace[] = [];
  afterEach(async () => {
    for (const p of places.splice(0)) await p.close();
  });

  it('steps of at most the limit, each ending on a whole block, give every watched move once in chain order', async () => {
    const place = await backend.fresh();
    places.push(place);
    const reads = await fill(place);
    const seen: IndexedMove[] = [];
    const steps: { to: number; n: number }[] = [];
    for (let from = 0; from < 60; ) {
      const span = await reads.movesOfOwners([A], from, 5_000, 100);
      expect(span.tip).toBe(60);
      expect(span.to).toBeGreaterThan(from);
      expect(span.toHash).toBe(hashOf(span.to));
      steps.push({ to: span.to, n: span.moves.length });
      seen.push(...span.moves);
      from = span.to;
    }
    // 30 a block: three blocks a step; block 40's 250 (over the limit alone) are one step of their own.
    expect(steps.slice(0, 3)).toEqual([
      { to: 3, n: 90 },
      { to: 6, n: 90 },
      { to: 9, n: 90 },
    ]);
    expect(steps).toContainEqual({ to: 40, n: 250 });
    expect(steps.every((s) => s.n <= 100 || s.to === 40)).toBe(true);
    const expected = history().filter(([, , f, t]) => f === 1 || t === 1);
    expect(seen.map((m) => [m.block, m.logIndex])).toEqual(expected.map(([b, li]) => [b, li]));
    expect(seen[0]).toMatchObject({
      contract: NFT,
      standard: 'ERC-721',
      tokenId: '1000',
      from: B,
      to: A,
      amount: '1',
      blockHash: hashOf(1),
    });
    // Both ends watched: each move once.
    expect((await reads.movesOfOwners([A, B], 0, 2, 1_000)).moves).toHaveLength(60);
  });
});

it('an index made before the owner indexes gets them, and reads by owner through them', () => {
  const place = backends[0]!;
  return place.fresh().then(async (p) => {
    try {
      const db = p.sqlite!;
      migrate(db, 'indexer', indexSchemaSteps(INDEXER_SQLITE_STEPS.slice(0, 3), LISTING_SCHEMA_STEPS));
      fillSqlite(db);
      migrateSqliteIndex(db);
      const plan = (sql: string) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(1, 0, 60, 100) as { detail: string }[]).map((r) => r.detail).join('; ');
      expect(plan(MOVES_SQL.movesFrom)).toMatch(/idx_transfers_from/);
      expect(plan(MOVES_SQL.movesTo)).toMatch(/idx_transfers_to/);
      const span = await openSqliteIndexMoves(db).movesOfOwners([A], 0, 5_000, 100);
      expect(span).toMatchObject({ tip: 60, to: 3 });
      expect(span.moves).toHaveLength(90);
    } finally {
      await p.close();
    }
  });
});
