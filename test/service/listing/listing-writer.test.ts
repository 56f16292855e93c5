// The listing's write path folds a range in memory (each token written once with its last owner, rank bucket counts
// moved in the writer's copy and written once per range): it must build the same index as writing every block alone.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../src/lib/sqlite.js';
import { tokenUris, type TransferLog } from '../../../src/service/indexer/indexer-apply.js';
import { applyBatch } from '../../../src/service/indexer/sqlite/indexer-sink-sqlite.js';
import { splitAtBlocks } from '../../../src/service/indexer/indexer-prepare.js';
// The SQLite index's migration as backend.ts runs it, imported from its parts: backend.ts would also load the PostgreSQL
// stores, pg and the accounts for this pure-SQLite test.
import { migrateIndex } from '../../../src/service/indexer/sqlite/indexer-schema-sqlite.js';
import { LISTING_SCHEMA_STEPS } from '../../../src/service/listing/sqlite/listing-schema-sqlite.js';
import { LIST, type ListCode } from '../../../src/service/listing/listing-keys.js';
import { listSource } from '../../../src/service/listing/sqlite/listing-rank-sqlite.js';
import { createIndexWriter } from '../../../src/service/listing/sqlite/listing-writer-sqlite.js';
import { queryTokens } from '../../../src/service/listing/sqlite/listing-reads-sqlite.js';

const migrateSqliteIndex = (db: Db): void => migrateIndex(db, LISTING_SCHEMA_STEPS);

const ZERO = '0x' + '0'.repeat(40);
const addr = (n: number) => '0x' + n.toString(16).padStart(40, '0');
const CONTRACTS = [addr(0xc3), addr(0xa1), addr(0xb2)];
const ERC1155 = addr(0xd4);
const OWNERS = [1, 2, 3, 4, 5, 6].map((n) => addr(0x1000 + n * 7919));

/** A chain history: per block, moves of ERC-721 tokens (valid owners) and ERC-1155 amounts (balances may not suffice). */
const history = fc
  .array(
    fc.array(
      fc.record({
        erc1155: fc.boolean(),
        contract: fc.nat(CONTRACTS.length - 1),
        id: fc.nat(20),
        to: fc.nat(OWNERS.length), // OWNERS.length = burn
        from: fc.nat(OWNERS.length),
        amount: fc.integer({ min: 1, max: 5 }),
      }),
      { maxLength: 12 },
    ),
    { minLength: 1, maxLength: 12 },
  )
  .map((blocks) => {
    const live = new Map<string, string>();
    return blocks.map((moves, b) =>
      moves.map((m, logIndex): TransferLog => {
        const block = b + 1;
        const blockHash = '0x' + block.toString(16).padStart(64, '0');
        const to = m.to === OWNERS.length ? ZERO : OWNERS[m.to]!;
        if (m.erc1155) {
          const from = m.from === OWNERS.length ? ZERO : OWNERS[m.from]!;
          return { block, logIndex, blockHash, contract: ERC1155, from, to, id: BigInt(m.id), sub: 0, amount: BigInt(m.amount) };
        }
        const contract = CONTRACTS[m.contract]!;
        const key = `${contract}:${m.id}`;
        const from = live.get(key) ?? ZERO;
        if (to === ZERO) live.delete(key);
        else live.set(key, to);
        return { block, logIndex, blockHash, contract, from, to, id: BigInt(m.id) };
      }),
    );
  });

function build(blocks: TransferLog[][], bucketSize: number, oneByOne: boolean): Db {
  const db = openDatabase(':memory:');
  migrateSqliteIndex(db);
  const w = createIndexWriter(db, bucketSize);
  const meta = (c: string) =>
    ({ name: 'N', symbol: 'S', totalSupply: null, hasUri: true, standard: c === ERC1155 ? 'ERC1155' : 'ERC721' }) as const;
  const ranges = oneByOne
    ? blocks.map((logs, i) => ({ from: i + 1, to: i + 1, logs }))
    : [{ from: 1, to: blocks.length, logs: blocks.flat() }];
  for (const r of ranges) {
    const newContracts = new Map([...new Set(r.logs.map((l) => l.contract))].filter((c) => !w.contract(c)).map((c) => [c, meta(c)]));
    const uris = tokenUris(
      r.logs.map((l) => ({ address: l.contract, id: l.id })),
      r.logs.map((l) => `uri:${l.id}`),
    );
    applyBatch(db, w, { from: r.from, to: r.to, headers: [], logs: r.logs, newContracts, uris, supplies: new Map() });
  }
  return db;
}

/** Everything a reader can see, by addresses (row ids may differ): holdings, counters, and every list's pages. */
function snapshot(db: Db) {
  const holdings = db
    .prepare(
      `SELECT c.address AS contract, t.token_id, a.address AS owner, t.balance, hex(t.k_tr) AS k_tr, t.uri FROM idx_tokens t
       JOIN idx_contracts c ON c.id = t.contract_id LEFT JOIN idx_accounts a ON a.id = t.owner_id
       WHERE t.owner_id IS NOT NULL ORDER BY 1, 2, 3`,
    )
    .all();
  const counters = db.prepare('SELECT address, token_count FROM idx_accounts WHERE token_count != 0 ORDER BY address').all();
  const contracts = db.prepare('SELECT address, token_count, minted, burned, total_supply FROM idx_contracts ORDER BY address').all();
  const ids = db
    .prepare('SELECT c.address, hex(i.k_id) AS k, i.supply FROM idx_ids i JOIN idx_contracts c ON c.id = i.contract_id ORDER BY 1, 2')
    .all();
  const pages: unknown[] = [];
  for (const owner of OWNERS) {
    for (const orderBy of ['transfer_block_number', 'token_id', 'contract_address'] as const) {
      for (const direction of ['asc', 'desc'] as const) {
        for (let page = 0; page < 4; page++) pages.push(queryTokens(db, { owner, page, size: 3, orderBy, direction }));
      }
    }
  }
  return { holdings, counters, contracts, ids, pages };
}

/** Every rank list's bucket counts add up to the real length of its index range. */
function expectBucketsExact(db: Db): void {
  const sums = db.prepare('SELECT list, sum(cnt) AS n FROM idx_rank GROUP BY list').all() as { list: number; n: number }[];
  for (const { list, n } of sums) {
    const code = (list % 8) as ListCode;
    const s = listSource(code);
    const real = db
      .prepare(`SELECT count(*) FROM idx_tokens WHERE ${s.scope} = ?${s.extra}`)
      .pluck()
      .get(Math.floor(list / 8));
    expect(n, `list ${list} (code ${code})`).toBe(real);
  }
  expect(Object.values(LIST).length).toBe(6);
}

describe('listing writer: a range folded in memory', () => {
  it('builds the same index as writing every block alone (fast-check)', () => {
    fc.assert(
      fc.property(history, fc.integer({ min: 1, max: 3 }), (blocks, bucketSize) => {
        const batched = build(blocks, bucketSize, false);
        const single = build(blocks, bucketSize, true);
        expect(snapshot(batched)).toEqual(snapshot(single));
        expectBucketsExact(batched);
        expectBucketsExact(single);
        batched.close();
        single.close();
      }),
      { numRuns: 60 },
    );
  });
});

describe('listing writer: a mint inserts without a lookup', () => {
  it('a token minted again after its burn keeps one row and goes to the new owner', () => {
    const c = CONTRACTS[0]!;
    const blockHash = '0x' + '1'.repeat(64);
    const move = (block: number, from: string, to: string): TransferLog => ({
      block,
      logIndex: 0,
      blockHash,
      contract: c,
      from,
      to,
      id: 7n,
    });
    const blocks = [[move(1, ZERO, OWNERS[0]!)], [move(2, OWNERS[0]!, ZERO)], [move(3, ZERO, OWNERS[1]!)]];
    {
      // Each block its own range: the re-mint's insert meets the burned row and moves it instead.
      const db = build(blocks, 2, true);
      expect(db.prepare('SELECT count(*) FROM idx_tokens').pluck().get()).toBe(1);
      expect(queryTokens(db, { owner: OWNERS[0]!, page: 0, size: 5, orderBy: 'token_id', direction: 'asc' }).totalCount).toBe(0);
      const held = queryTokens(db, { owner: OWNERS[1]!, page: 0, size: 5, orderBy: 'token_id', direction: 'asc' });
      expect(held.tokens.map((t) => [t.id, t.uri])).toEqual([['7', 'uri:7']]);
      expect(db.prepare('SELECT minted, burned, token_count FROM idx_contracts WHERE address = ?').get(c)).toEqual({
        minted: 2,
        burned: 1,
        token_count: 1,
      });
      expectBucketsExact(db);
      expect(snapshot(db)).toEqual(snapshot(build(blocks, 2, false)));
      db.close();
    }
  });
});

describe('splitAtBlocks', () => {
  it.each([
    { moves: [], from: 5, to: 9, max: 2, parts: [[5, 9]] },
    { moves: [5, 5, 6], from: 5, to: 9, max: 3, parts: [[5, 9]] },
    {
      moves: [5, 5, 6, 7],
      from: 5,
      to: 9,
      max: 3,
      parts: [
        [5, 6],
        [7, 9],
      ],
    },
    {
      moves: [5, 5, 5, 5, 6],
      from: 5,
      to: 9,
      max: 2,
      parts: [
        [5, 5],
        [6, 9],
      ],
    },
    {
      moves: [6, 8, 8, 9],
      from: 5,
      to: 9,
      max: 1,
      parts: [
        [5, 7],
        [8, 8],
        [9, 9],
      ],
    },
  ])('$moves in [$from, $to] by $max', ({ moves, from, to, max, parts }) => {
    expect(
      splitAtBlocks(
        moves.map((block) => ({ block })),
        from,
        to,
        max,
      ).map((p) => [p.from, p.to]),
    ).toEqual(parts);
  });

  it('covers the range without gaps, never cuts a block, and keeps parts small (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(30)), fc.integer({ min: 1, max: 6 }), (raw, max) => {
        const blocks = [...raw].sort((a, b) => a - b);
        const parts = splitAtBlocks(
          blocks.map((block) => ({ block })),
          0,
          40,
          max,
        );
        expect(parts[0]!.from).toBe(0);
        expect(parts.at(-1)!.to).toBe(40);
        for (let i = 1; i < parts.length; i++) expect(parts[i]!.from).toBe(parts[i - 1]!.to + 1);
        for (const p of parts) {
          const inside = blocks.filter((b) => b >= p.from && b <= p.to);
          if (new Set(inside).size > 1) expect(inside.length).toBeLessThanOrEqual(max);
        }
      }),
    );
  });
});
