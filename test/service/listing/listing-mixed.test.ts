// Listings of owners holding both standards: random histories of ERC-721 transfers, EIP-2309 batch mints and ERC-1155
// single/batch transfers (mints and burns included), written through the indexer's write path with random rollbacks,
// must page exactly like the replayed model under every order, direction, contract filter, standard and page size.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../src/lib/sqlite.js';
import { tokenUris, type TransferLog } from '../../../src/service/indexer/indexer-apply.js';
import { applyBatch, rollbackTo } from '../../../src/service/indexer/sqlite/indexer-sink-sqlite.js';
import { migrateSqliteIndex } from '../../../src/service/backend.js';
import { LIST } from '../../../src/service/listing/listing-keys.js';
import { rebuildDerived } from '../../../src/service/listing/sqlite/listing-rebuild-sqlite.js';
import { createIndexWriter, type SqliteIndexWriter } from '../../../src/service/listing/sqlite/listing-writer-sqlite.js';
import { findContract, queryTokens } from '../../../src/service/listing/sqlite/listing-reads-sqlite.js';
import { History, metas, MULTI, GAME, DROP, PLAIN, OWNERS, STANDARD, step, uriOf, addr, ZERO } from '../../support/chain/mixed-history.js';
import { expectListingsMatch, modelFromTransfers } from '../../support/service/service-model.js';

function expectMatches(db: Db, w: SqliteIndexWriter, moves: readonly TransferLog[], sizes: number[]): void {
  const model = modelFromTransfers(moves);
  expectListingsMatch(db, model.tokens, {
    owners: [...OWNERS, addr(0xdead)],
    contracts: [PLAIN, DROP, MULTI, GAME],
    filters: [undefined, [MULTI], [PLAIN, MULTI], [DROP, GAME, MULTI]],
    standards: [undefined, 'ERC721', 'ERC1155'],
    sizes,
    // Compared first, `expect` only on a mismatch: it runs for every token of every page, and an `expect` costs more
    // than the comparison (see expectListingsMatch).
    check: (t) => {
      const uri = uriOf(t.contract.address, BigInt(t.id));
      if (t.uri !== uri) expect(t.uri).toBe(uri);
      if (t.contract.standard !== STANDARD[t.contract.address]) expect(t.contract.standard).toBe(STANDARD[t.contract.address]);
      if (t.contract.standard === 'ERC721' && t.balance !== '1') expect(t.balance).toBe('1');
    },
  });
  for (const c of [PLAIN, DROP]) {
    const found = findContract(db, c);
    if (found) expect(found.totalSupply).toBe((model.minted.get(c) ?? 0) - (model.burned.get(c) ?? 0));
  }
  for (const c of [MULTI, GAME]) {
    const found = findContract(db, c);
    if (found) expect(found.totalSupply).toBe(model.idsWithSupply.get(c) ?? 0);
  }
  // Bucket sums agree with the counters for every list.
  const accounts = db.prepare('SELECT id, token_count FROM idx_accounts').all() as { id: number; token_count: number }[];
  for (const a of accounts)
    for (const code of [LIST.OWNER_TR, LIST.OWNER_ID, LIST.OWNER_CT]) expect(w.rank.countOf(code, a.id)).toBe(a.token_count);
  const cs = db.prepare('SELECT id, token_count FROM idx_contracts').all() as { id: number; token_count: number }[];
  for (const c of cs) for (const code of [LIST.CONTRACT_TR, LIST.CONTRACT_ID]) expect(w.rank.countOf(code, c.id)).toBe(c.token_count);
}

describe('listing of both standards under random histories and rollbacks', () => {
  it('pages like the model (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(step, { minLength: 1, maxLength: 12 }), { minLength: 2, maxLength: 8 }),
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.nat(6), { minLength: 8, maxLength: 8 }),
        (ranges, bucketSize, rollbacks) => {
          const db = openDatabase(':memory:');
          migrateSqliteIndex(db);
          let w = createIndexWriter(db, bucketSize);
          const h = new History();
          ranges.forEach((steps, r) => {
            const fromBlock = h.block;
            const start = h.moves.length;
            for (const s of steps) h.add(s);
            const logs = h.moves.slice(start);
            const uris = tokenUris(
              logs.map((l) => ({ address: l.contract, id: l.id })),
              logs.map((l) => uriOf(l.contract, l.id)),
            );
            applyBatch(db, w, { from: fromBlock, to: h.block, headers: [], logs, newContracts: metas(w, logs), uris, supplies: new Map() });
            h.block++;
            h.logIndex = 0;
            // Sometimes a reorganisation: undo the newest blocks, forget their moves.
            if (rollbacks[r]! < 2 && r > 0) {
              const ancestor = Math.max(0, h.block - 1 - 1 - rollbacks[r]!);
              rollbackTo(db, w, ancestor);
              w = createIndexWriter(db, bucketSize);
              h.moves = h.moves.filter((m) => m.block <= ancestor);
              h.block = ancestor + 1;
            }
          });
          expectMatches(db, w, h.moves, [1, 4, 200]);
          rebuildDerived(db, bucketSize + 1);
          expectMatches(db, createIndexWriter(db, bucketSize + 1), h.moves, [3]);
          db.close();
        },
      ),
      { numRuns: 30, seed: 1515 },
    );
  });

  it('forgets the ids of a contract a rollback removed; a new contract starts clean', () => {
    const db = openDatabase(':memory:');
    migrateSqliteIndex(db);
    let w = createIndexWriter(db, 2);
    const hash = '0x' + '2'.repeat(64);
    const mint = (contract: string): TransferLog => ({
      block: 5,
      logIndex: 0,
      sub: 0,
      blockHash: hash,
      contract,
      from: ZERO,
      to: OWNERS[0]!,
      id: 1n,
      amount: 2n,
    });
    applyBatch(db, w, {
      from: 5,
      to: 5,
      headers: [],
      logs: [mint(MULTI)],
      newContracts: metas(w, [mint(MULTI)]),
      uris: tokenUris([{ address: MULTI, id: 1n }], ['ipfs://old']),
      supplies: new Map(),
    });
    rollbackTo(db, w, 4);
    expect(db.prepare('SELECT count(*) FROM idx_ids').pluck().get()).toBe(0);
    w = createIndexWriter(db, 2);
    const missing = applyBatch(db, w, {
      from: 5,
      to: 5,
      headers: [],
      logs: [mint(GAME)],
      newContracts: metas(w, [mint(GAME)]),
      uris: new Map(),
      supplies: new Map(),
    });
    const [t] = queryTokens(db, { owner: OWNERS[0]!, page: 0, size: 5, orderBy: 'token_id', direction: 'asc' }).tokens;
    expect(t).toMatchObject({ id: '1', uri: '', balance: '2', contract: { address: GAME, totalSupply: 1 } });
    // Its uri is read after the write, like any id first seen without one.
    expect(missing.map((m) => [m.standard, m.address, m.id])).toEqual([['ERC1155', GAME, 1n]]);
    db.close();
  });

  it('keeps ERC-1155 balances per owner, deletes emptied holdings and counts (contract, id) pairs', () => {
    const db = openDatabase(':memory:');
    migrateSqliteIndex(db);
    const w = createIndexWriter(db, 2);
    const [a, b] = OWNERS as [string, string];
    const hash = '0x' + '1'.repeat(64);
    const logs: TransferLog[] = [
      { block: 1, logIndex: 0, sub: 1, blockHash: hash, contract: MULTI, from: ZERO, to: a, id: 1n, amount: 10n },
      { block: 1, logIndex: 0, sub: 2, blockHash: hash, contract: MULTI, from: ZERO, to: a, id: 2n, amount: 5n },
      { block: 1, logIndex: 1, sub: 0, blockHash: hash, contract: MULTI, from: a, to: b, id: 1n, amount: 4n },
      { block: 1, logIndex: 2, sub: 0, blockHash: hash, contract: MULTI, from: a, to: ZERO, id: 2n, amount: 5n },
      { block: 1, logIndex: 3, blockHash: hash, contract: PLAIN, from: ZERO, to: a, id: 1n },
    ];
    const uris = tokenUris(
      logs.map((l) => ({ address: l.contract, id: l.id })),
      logs.map((l) => uriOf(l.contract, l.id)),
    );
    applyBatch(db, w, { from: 1, to: 1, headers: [], logs, newContracts: metas(w, logs), uris, supplies: new Map() });
    const page = queryTokens(db, { owner: a, page: 0, size: 10, orderBy: 'token_id', direction: 'asc' });
    expect(page.totalCount).toBe(2);
    expect(page.tokens.map((t) => [t.contract.standard, t.id, t.balance])).toEqual([
      ['ERC1155', '1', '6'],
      ['ERC721', '1', '1'],
    ]);
    expect(queryTokens(db, { owner: b, page: 0, size: 10, orderBy: 'token_id', direction: 'asc' }).tokens.map((t) => t.balance)).toEqual([
      '4',
    ]);
    expect(queryTokens(db, { owner: a, page: 0, size: 10, orderBy: 'token_id', direction: 'asc', standard: 'ERC1155' }).totalCount).toBe(1);
    // Id 2 was burned out: 1 id with a supply.
    expect(findContract(db, MULTI)).toMatchObject({ totalSupply: 1, standard: 'ERC1155', symbol: '' });
    expect(
      db.prepare('SELECT count(*) FROM idx_tokens WHERE contract_id = (SELECT id FROM idx_contracts WHERE address = ?)').pluck().get(MULTI),
    ).toBe(2);
    db.close();
  });
});
