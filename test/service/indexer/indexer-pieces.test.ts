// The index write's passes in pieces (issue 45, item 1): PostgreSQL applies a range, a rollback, the uris an ERC-4906
// update names, and their re-read uris in memory on the thread that answers every network, with a turn of the event
// loop between pieces. Every pass must yield: with a piece of one unit, no step between two yields may call the writer
// more than a few times, however large the range. Checked on the SQLite writer, which the passes share.
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../src/lib/sqlite.js';
import {
  applyBatchTo,
  applySteps,
  applyUris,
  applyUriSteps,
  metadataTargets,
  metadataTargetSteps,
  pieceCounter,
  tokenUris,
  type Batch,
  type BatchSink,
  type TransferLog,
} from '../../../src/service/indexer/indexer-apply.js';
import { readRollbackPlan, rollbackSteps, rollbackWith } from '../../../src/service/indexer/indexer-reorg.js';
import { migrateIndex } from '../../../src/service/indexer/sqlite/indexer-schema-sqlite.js';
import { sqliteSink } from '../../../src/service/indexer/sqlite/indexer-sink-sqlite.js';
import type { IndexWriter } from '../../../src/service/listing/listing-writer.js';
import { LISTING_SCHEMA_STEPS } from '../../../src/service/listing/sqlite/listing-schema-sqlite.js';
import { createIndexWriter } from '../../../src/service/listing/sqlite/listing-writer-sqlite.js';
import { dumpSqlite } from '../../support/service/index-dump.js';

const addr = (n: number) => '0x' + n.toString(16).padStart(40, '0');
const ZERO = addr(0);
const ERC721 = addr(0xc1);
const ERC1155 = addr(0xd1);
const owner = (i: number) => addr(0x1000 + (i % 40));
/** Tokens and ids of the range: every pass below works on this many items, so a pass without yields stands out. */
const N = 300;
/** Writer calls one unit of any pass makes at most (a move: contract, two accounts, the transfer, the id, holdings). */
const CALLS_PER_UNIT = 12;

const hash = (block: number) => '0x' + block.toString(16).padStart(64, '0');
const log = (block: number, logIndex: number, l: Omit<TransferLog, 'block' | 'logIndex' | 'blockHash'>): TransferLog => ({
  block,
  logIndex,
  blockHash: hash(block),
  ...l,
});

/** Block 1: N ERC-721 mints and N ERC-1155 ids minted to 40 owners; an ERC-4906 update names every ERC-721 token. */
function mintRange(): Batch {
  const logs: TransferLog[] = [];
  for (let i = 0; i < N; i++) {
    logs.push(log(1, 2 * i, { contract: ERC721, from: ZERO, to: owner(i), id: BigInt(i) }));
    logs.push(log(1, 2 * i + 1, { contract: ERC1155, from: ZERO, to: owner(i), id: BigInt(i), sub: 0, amount: 5n }));
  }
  const meta = (standard: 'ERC721' | 'ERC1155') => ({ name: 'N', symbol: 'S', totalSupply: null, hasUri: true, standard }) as const;
  return {
    from: 1,
    to: 1,
    headers: [{ number: 1, hash: hash(1), parentHash: hash(0) }],
    logs,
    newContracts: new Map([
      [ERC721, meta('ERC721')],
      [ERC1155, meta('ERC1155')],
    ]),
    uris: tokenUris(
      logs.map((l) => ({ address: l.contract, id: l.id })),
      logs.map((l) => `ipfs://${l.contract}/${l.id}`),
    ),
    supplies: new Map(),
    metadataUpdates: [{ contract: ERC721, fromId: 0n, toId: BigInt(N - 1) }],
  };
}

/** Block 2: every token and id of block 1 moves on (what a rollback to block 1 undoes). */
function moveRange(): Batch {
  const logs: TransferLog[] = [];
  for (let i = 0; i < N; i++) {
    logs.push(log(2, 2 * i, { contract: ERC721, from: owner(i), to: owner(i + 7), id: BigInt(i) }));
    logs.push(log(2, 2 * i + 1, { contract: ERC1155, from: owner(i), to: owner(i + 3), id: BigInt(i), sub: 0, amount: 2n }));
  }
  return {
    from: 2,
    to: 2,
    headers: [{ number: 2, hash: hash(2), parentHash: hash(1) }],
    logs,
    newContracts: new Map(),
    uris: new Map(),
    supplies: new Map(),
  };
}

function freshIndex(): Db {
  const db = openDatabase(':memory:');
  migrateIndex(db, LISTING_SCHEMA_STEPS);
  return db;
}

/** `w` with every method call counted into `calls.n`. */
function counted(w: IndexWriter, calls: { n: number }): IndexWriter {
  return new Proxy(w, {
    get(target, key, receiver) {
      const v = Reflect.get(target, key, receiver) as unknown;
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        calls.n++;
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** Runs `steps` to its end; returns its value, the steps it took and the most writer calls within one step. */
function drive<T>(steps: Generator<void, T>, calls: { n: number }): { value: T; steps: number; most: number } {
  let most = 0;
  for (let n = 1; ; n++) {
    const before = calls.n;
    const r = steps.next();
    most = Math.max(most, calls.n - before);
    if (r.done) return { value: r.value, steps: n, most };
  }
}

/** The SQLite sink without its transaction, as PostgreSQL's collecting sink: the pieces hold none. */
const openSink = (db: Db): BatchSink => ({ ...sqliteSink(db), transaction: (fn) => fn() });

describe('every pass of an index write yields (a piece of one unit)', () => {
  it('applying a range: moves, ERC-721 owners, ERC-1155 ids, holdings, and the tokens an ERC-4906 update names', () => {
    const [whole, pieces] = [freshIndex(), freshIndex()];
    const b = mintRange();
    const expected = applyBatchTo(sqliteSink(whole), createIndexWriter(whole), b);
    const calls = { n: 0 };
    const got = drive(applySteps(openSink(pieces), counted(createIndexWriter(pieces), calls), b, pieceCounter(1)), calls);
    expect(got.value).toEqual(expected);
    expect(dumpSqlite(pieces)).toEqual(dumpSqlite(whole));
    // Named by the update: each of the N tokens is a step of its own.
    expect(expected.filter((m) => m.standard === 'ERC721')).toHaveLength(N);
    expect(got.steps).toBeGreaterThan(4 * N);
    expect(calls.n).toBeGreaterThan(5 * N);
    expect(got.most).toBeLessThanOrEqual(CALLS_PER_UNIT);
  });

  it('a rollback: ERC-721 tokens back to their owners, ERC-1155 ids replayed holding by holding', () => {
    const [whole, pieces] = [freshIndex(), freshIndex()];
    for (const db of [whole, pieces]) {
      applyBatchTo(sqliteSink(db), createIndexWriter(db), mintRange());
      applyBatchTo(sqliteSink(db), createIndexWriter(db), moveRange());
    }
    const expected = rollbackWith(sqliteSink(whole), createIndexWriter(whole), readRollbackPlan(whole, 1));
    const calls = { n: 0 };
    const plan = readRollbackPlan(pieces, 1);
    expect(plan.tokens).toHaveLength(N);
    expect(plan.ids).toHaveLength(N);
    const got = drive(rollbackSteps(openSink(pieces), counted(createIndexWriter(pieces), calls), plan, pieceCounter(1)), calls);
    expect(got.value).toEqual(expected);
    expect(dumpSqlite(pieces)).toEqual(dumpSqlite(whole));
    expect(got.steps).toBeGreaterThan(2 * N);
    expect(got.most).toBeLessThanOrEqual(CALLS_PER_UNIT);
  });

  it("an ERC-4906 update's tokens read on their own, and the uris read for them stored", () => {
    const db = freshIndex();
    applyBatchTo(sqliteSink(db), createIndexWriter(db), mintRange());
    const updates = [
      { contract: ERC721, fromId: 0n, toId: BigInt(N - 1) },
      { contract: ERC1155, fromId: 0n, toId: BigInt(N - 1) },
    ];
    const calls = { n: 0 };
    const w = counted(createIndexWriter(db), calls);
    const targets = drive(metadataTargetSteps(w, updates, pieceCounter(1)), calls);
    expect(targets.value).toEqual(metadataTargets(createIndexWriter(db), updates));
    expect(targets.value).toHaveLength(2 * N);
    expect(targets.steps).toBeGreaterThan(2 * N);
    expect(targets.most).toBeLessThanOrEqual(CALLS_PER_UNIT);

    const uris = targets.value.map((m) => `ipfs://new/${m.id}`);
    const twin = freshIndex();
    applyBatchTo(sqliteSink(twin), createIndexWriter(twin), mintRange());
    applyUris(createIndexWriter(twin), targets.value, uris);
    const stored = drive(applyUriSteps(w, targets.value, uris, pieceCounter(1)), calls);
    expect(stored.steps).toBeGreaterThan(2 * N);
    expect(stored.most).toBeLessThanOrEqual(CALLS_PER_UNIT);
    expect(dumpSqlite(db)).toEqual(dumpSqlite(twin));
  });
});
