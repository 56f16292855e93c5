// The listing store without a chain: random transfer histories applied through the indexer's write path, rolled back at
// random, with tiny rank buckets so splits and merges happen all the time; every listing must equal the replayed model.
import { describe, expect, it } from 'vitest';
import { prng } from '../../support/prng.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openDatabase, type Db } from '../../../src/lib/sqlite.js';
import { tokenUris, type TransferLog } from '../../../src/service/indexer/indexer-apply.js';
import { applyBatch, rollbackTo } from '../../../src/service/indexer/sqlite/indexer-sink-sqlite.js';
// The SQLite index's migration as backend.ts runs it, imported from its parts: backend.ts would also load the PostgreSQL
// stores, pg and the accounts for this pure-SQLite test.
import { INDEXER_SQLITE_STEPS, migrateIndex } from '../../../src/service/indexer/sqlite/indexer-schema-sqlite.js';
import { indexSchemaSteps } from '../../../src/service/listing/listing-writer.js';
import { LISTING_SCHEMA_STEPS } from '../../../src/service/listing/sqlite/listing-schema-sqlite.js';
import { LIST } from '../../../src/service/listing/listing-keys.js';
import { createIndexWriter } from '../../../src/service/listing/sqlite/listing-writer-sqlite.js';
import { rebuildDerived } from '../../../src/service/listing/sqlite/listing-rebuild-sqlite.js';
import { findContract, queryTokens } from '../../../src/service/listing/sqlite/listing-reads-sqlite.js';
import { expectListingsMatch, modelFromTransfers } from '../../support/service/service-model.js';

const migrateSqliteIndex = (db: Db): void => migrateIndex(db, LISTING_SCHEMA_STEPS);

const ZERO = '0x' + '0'.repeat(40);

const addr = (n: number) => '0x' + n.toString(16).padStart(40, '0');

const replay = (logs: readonly TransferLog[], upTo: number) => modelFromTransfers(logs, upTo).tokens;

describe('listing store under random histories and rollbacks', () => {
  // [seed, bucket size, most logs per block]: big blocks push lists through the bulk bucket path (>= 8 changes).
  for (const [seed, bucketSize, perBlock] of [
    [1, 1, 6],
    [2, 2, 6],
    [3, 3, 6],
    [4, 2, 40],
  ] as const) {
    it(`seed ${seed}, bucket size ${bucketSize}, up to ${perBlock} transfers per block`, () => {
      const rnd = prng(seed);
      const db = openDatabase(':memory:');
      migrateSqliteIndex(db);
      let w = createIndexWriter(db, bucketSize);
      // Contract addresses out of creation order, ids that collide across contracts and span many byte lengths.
      const contracts = [addr(0xc3), addr(0xa1), addr(0xb2)];
      const owners = [1, 2, 3, 4, 5].map((n) => addr(0x1000 + n * 7919));
      const ids = [
        0n,
        1n,
        2n,
        3n,
        255n,
        256n,
        65_535n,
        10n ** 30n,
        2n ** 256n - 1n,
        ...Array.from({ length: 12 }, (_, i) => BigInt(4 + i * 37)),
      ];
      const all: TransferLog[] = [];
      const live = new Map<string, string>(); // contract:id -> owner
      let block = 1;
      for (let round = 0; round < 40; round++) {
        const logs: TransferLog[] = [];
        const from = block;
        const blocks = 1 + Math.floor(rnd() * 3);
        for (let b = 0; b < blocks; b++, block++) {
          const n = Math.floor(rnd() * perBlock);
          for (let li = 0; li < n; li++) {
            const contract = contracts[Math.floor(rnd() * contracts.length)]!;
            const id = ids[Math.floor(rnd() * ids.length)]!;
            const key = `${contract}:${id}`;
            const cur = live.get(key);
            const to = cur && rnd() < 0.15 ? ZERO : owners[Math.floor(rnd() * owners.length)]!;
            const l: TransferLog = {
              block,
              logIndex: li,
              blockHash: '0x' + block.toString(16).padStart(64, '0'),
              contract,
              from: cur ?? ZERO,
              to,
              id,
            };
            if (to === ZERO) live.delete(key);
            else live.set(key, to);
            logs.push(l);
          }
        }
        const newContracts = new Map(
          [...new Set(logs.map((l) => l.contract))]
            .filter((c) => !w.contract(c))
            .map(
              (c) =>
                [
                  c,
                  {
                    name: `N${c.slice(-2)}`,
                    symbol: `S${c.slice(-2)}`,
                    totalSupply: c === contracts[0] ? '77' : null,
                    hasUri: true,
                    standard: 'ERC721',
                  },
                ] as const,
            ),
        );
        const uris = tokenUris(
          logs.map((l) => ({ address: l.contract, id: l.id })),
          logs.map((l) => `uri:${l.contract}:${l.id}`),
        );
        applyBatch(db, w, { from, to: block - 1, headers: [], logs, newContracts, uris, supplies: new Map() });
        all.push(...logs);

        if (round % 10 === 7) {
          // Roll back a few blocks, as a reorganisation would, and forget those logs.
          const ancestor = Math.max(0, block - 1 - Math.floor(rnd() * 5));
          rollbackTo(db, w, ancestor);
          w = createIndexWriter(db, bucketSize);
          all.splice(0, all.length, ...all.filter((l) => l.block <= ancestor));
          block = ancestor + 1;
          live.clear();
          for (const m of replay(all, ancestor)) live.set(`${m.contract}:${m.id}`, m.owner);
        }
        if (round % 5 === 4 || round === 39) {
          const model = replay(all, block);
          expect(model.length).toBeGreaterThan(5);
          expectListingsMatch(db, model, {
            owners: [...owners, addr(0xdead)],
            contracts: [...contracts, addr(0xdead)],
            filters: [undefined, [contracts[0]!], [contracts[1]!, contracts[2]!], [...contracts, addr(0xdead)], [addr(0xdead)]],
            sizes: round === 39 ? [1, 5, 200] : [3],
            extra: { several: round % 10 === 4 ? 'select' : 'auto' },
            // Compared first, `expect` only on a mismatch: it runs for every token of every page.
            check: (t) => {
              if (t.uri !== `uri:${t.contract.address}:${t.id}`) expect(t.uri).toBe(`uri:${t.contract.address}:${t.id}`);
              if (t.contract.name !== `N${t.contract.address.slice(-2)}`) expect(t.contract.name).toBe(`N${t.contract.address.slice(-2)}`);
            },
          });
          // Bucket sums agree with the counters for every list.
          const accounts = db.prepare('SELECT id, token_count FROM idx_accounts').all() as { id: number; token_count: number }[];
          for (const a of accounts)
            for (const code of [LIST.OWNER_TR, LIST.OWNER_ID, LIST.OWNER_CT]) expect(w.rank.countOf(code, a.id)).toBe(a.token_count);
          const cs = db.prepare('SELECT id, token_count FROM idx_contracts').all() as { id: number; token_count: number }[];
          for (const c of cs)
            for (const code of [LIST.CONTRACT_TR, LIST.CONTRACT_ID]) expect(w.rank.countOf(code, c.id)).toBe(c.token_count);
          const pairs = db
            .prepare('SELECT p.id, (SELECT count(*) FROM idx_tokens t WHERE t.pair_id = p.id) AS n FROM idx_pairs p')
            .all() as { id: number; n: number }[];
          for (const p of pairs) expect(w.rank.countOf(LIST.PAIR_TR, p.id)).toBe(p.n);
        }
      }
      // The run must really have exercised multi-bucket lists.
      const maxBuckets = db.prepare('SELECT max(n) FROM (SELECT count(*) AS n FROM idx_rank GROUP BY list)').pluck().get() as number;
      expect(maxBuckets).toBeGreaterThan(2);
      // A bulk rebuild of the derived tables gives the same counters and the same pages as the incremental upkeep.
      const counters = () =>
        db
          .prepare(
            'SELECT (SELECT group_concat(token_count) FROM idx_accounts) AS a, (SELECT group_concat(token_count) FROM ' +
              'idx_contracts) AS c, (SELECT group_concat(n) FROM (SELECT n FROM idx_owner_contract ORDER BY owner_id, ' +
              'caddr)) AS oc',
          )
          .get();
      const before = counters();
      rebuildDerived(db, bucketSize + 1);
      expect(counters()).toEqual(before);
      expectListingsMatch(db, replay(all, block), { owners, contracts, filters: [undefined, [contracts[1]!, contracts[2]!]], sizes: [2] });
      // totalSupply: read value when implemented, minted - burned otherwise.
      const { minted, burned } = modelFromTransfers(all);
      expect(findContract(db, contracts[0]!)?.totalSupply).toBe(77);
      for (const c of contracts.slice(1)) {
        const found = findContract(db, c.toUpperCase().replace('0X', '0x'));
        if (found) expect(found.totalSupply).toBe((minted.get(c) ?? 0) - (burned.get(c) ?? 0));
      }
      db.close();
    });
  }

  it('seeks pages of a big owner filtered to several contracts', () => {
    const db = openDatabase(':memory:');
    migrateSqliteIndex(db);
    const w = createIndexWriter(db, 2);
    const cs = [addr(0xc1), addr(0xc2), addr(0xc3), addr(0xc4)];
    const [big, other] = [addr(0x11), addr(0x22)];
    const rnd = prng(9);
    const logs: TransferLog[] = [];
    for (let i = 0; i < 420; i++) {
      const c = cs[Math.floor(rnd() * cs.length)]!;
      logs.push({
        block: 1 + Math.floor(i / 7),
        logIndex: i % 7,
        blockHash: '0x',
        contract: c,
        from: ZERO,
        to: rnd() < 0.85 ? big : other,
        id: BigInt(Math.floor(rnd() * 1e6)) * 1000n + BigInt(i),
      });
    }
    const metas = new Map(cs.map((a) => [a, { name: 'N', symbol: 'S', totalSupply: null, hasUri: false, standard: 'ERC721' }] as const));
    applyBatch(db, w, { from: 1, to: 70, headers: [], logs, newContracts: metas, uris: new Map(), supplies: new Map() });
    for (const several of ['merge', 'select', 'auto'] as const) {
      expectListingsMatch(db, replay(logs, 999), {
        owners: [big],
        contracts: [],
        filters: [[cs[0]!, cs[2]!], [cs[1]!, cs[2]!, cs[3]!], cs],
        sizes: [7, 50],
        extra: { several },
      });
    }
    db.close();
  });

  it('migrates a version-1 index (pair lists, then holdings) to the same pages', () => {
    const dir = mkdtempSync(join(tmpdir(), 'txdesk-migrate-'));
    const cur = openDatabase(join(dir, 'current.db'));
    migrateSqliteIndex(cur);
    const w = createIndexWriter(cur, 2);
    const c = addr(0xc1);
    const owners = [addr(0x11), addr(0x22)];
    const logs: TransferLog[] = Array.from({ length: 30 }, (_, i) => ({
      block: 1 + Math.floor(i / 4),
      logIndex: i % 4,
      blockHash: '0x',
      contract: i % 3 ? c : addr(0xc2),
      from: ZERO,
      to: owners[i % 2]!,
      id: BigInt(i),
    }));
    const metas = new Map(
      [c, addr(0xc2)].map((a) => [a, { name: 'N', symbol: 'S', totalSupply: null, hasUri: false, standard: 'ERC721' }] as const),
    );
    applyBatch(cur, w, { from: 1, to: 9, headers: [], logs, newContracts: metas, uris: new Map(), supplies: new Map() });
    cur.close();
    // A version-1 database with the same content: no pairs, no holdings columns, the old history table.
    const db = openDatabase(join(dir, 'old.db'));
    migrate(db, 'indexer', indexSchemaSteps(INDEXER_SQLITE_STEPS, LISTING_SCHEMA_STEPS).slice(0, 1));
    db.exec(`ATTACH '${join(dir, 'current.db')}' AS cur;
      INSERT INTO idx_state SELECT * FROM cur.idx_state;
      INSERT INTO idx_accounts SELECT id, address, token_count FROM cur.idx_accounts;
      INSERT INTO idx_contracts SELECT id, address, addr, name, symbol, total_supply, has_uri, minted, burned, token_count, first_block FROM cur.idx_contracts;
      INSERT INTO idx_tokens SELECT id, contract_id, token_id, owner_id, k_tr, k_id, k_ct, uri FROM cur.idx_tokens;
      INSERT INTO idx_rank SELECT * FROM cur.idx_rank WHERE list % 8 != 5;
      INSERT INTO idx_owner_contract SELECT * FROM cur.idx_owner_contract;
      INSERT INTO idx_transfers SELECT block, log_index, contract_id, k_id, from_id, to_id FROM cur.idx_transfers;
      DETACH cur;`);
    migrateSqliteIndex(db);
    expectListingsMatch(db, replay(logs, 99), { owners, contracts: [c], filters: [undefined, [c], [c, addr(0xc2)]], sizes: [1, 4] });
    expect(db.prepare('SELECT count(*) FROM idx_transfers').pluck().get()).toBe(30);
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers pages past the end, unknown owners and unknown contracts with empty pages', () => {
    const db = openDatabase(':memory:');
    migrateSqliteIndex(db);
    expect(queryTokens(db, { owner: addr(1), page: 0, size: 15, orderBy: 'token_id', direction: 'asc' })).toEqual({
      tokens: [],
      totalCount: 0,
    });
    expect(queryTokens(db, { contract: addr(1), page: 3, size: 15, orderBy: 'token_id', direction: 'asc' })).toEqual({
      tokens: [],
      totalCount: 0,
    });
    expect(
      queryTokens(db, { owner: addr(1), page: Number.MAX_SAFE_INTEGER, size: 200, orderBy: 'contract_address', direction: 'desc' }).tokens,
    ).toEqual([]);
    expect(findContract(db, addr(1))).toBeNull();
    db.close();
  });
});
