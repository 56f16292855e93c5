// Table-driven tests of the indexer's pure parts: range adaptation, refusal detection, page arithmetic, sortable keys,
// common-ancestor search, log decoding and the progress line; and a range applied in pieces against one applied at once.
import { id as keccakText, Interface } from 'ethers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/lib/sqlite.js';
import { applyBatchInPieces, netMoves, tokenUris, type Batch, type TransferLog } from '../../../src/service/indexer/indexer-apply.js';
import { applyBatch, sqliteSink } from '../../../src/service/indexer/sqlite/indexer-sink-sqlite.js';
// The SQLite index's migration from its parts, as listing-writer.test.ts does (backend.ts would load PostgreSQL too).
import { migrateIndex } from '../../../src/service/indexer/sqlite/indexer-schema-sqlite.js';
import { LISTING_SCHEMA_STEPS } from '../../../src/service/listing/sqlite/listing-schema-sqlite.js';
import { createIndexWriter } from '../../../src/service/listing/sqlite/listing-writer-sqlite.js';
import { dumpSqlite } from '../../support/service/index-dump.js';
import { endsAgree } from '../../../src/service/indexer/indexer-join.js';
import { mostInOneBlock } from '../../../src/service/indexer/indexer-log-scan.js';
import type { PreparedRange } from '../../../src/service/indexer/indexer-prepare.js';
import { CONSECUTIVE_CAP, decodeTokenLogs, substituteId, TOPIC } from '../../../src/service/indexer/indexer-events.js';
import { progressLine, createProgress } from '../../../src/service/indexer/indexer-progress.js';
import {
  firstSpan,
  isRangeRefusal,
  nextSpan,
  RELEARN_AFTER,
  resultsLimitIn,
  spanAfterAnswer,
  spanAfterRefusal,
  type RangeOutcome,
  type SpanMemory,
} from '../../../src/service/indexer/indexer-range.js';
import { readsHere } from '../../../src/service/indexer/indexer-read-thread.js';
import { commonAncestor } from '../../../src/service/indexer/indexer-reorg.js';
import { isRevertAnswer } from '../../../src/lib/json-rpc.js';
import { TRANSFER_TOPIC } from '../../../src/service/indexer/indexer-rpc.js';
import { CALL, decideStandard, decodeTexts, decodeUint } from '../../../src/service/indexer/indexer-metadata.js';
import { ascendingRank, mergeWindow, pageStartRank, planSlices, selectRank } from '../../../src/service/listing/listing-cursor.js';
import { filterPlan } from '../../../src/service/listing/listing-plan.js';
import {
  contractOrderKey,
  contractSlice,
  idOrderKey,
  tokenIdFromKey,
  tokenIdKey,
  transferKey,
  transferKeyParts,
} from '../../../src/service/listing/listing-keys.js';

const policy = { min: 1, max: 1000, targetLogs: 100 };
const migrateSqliteIndex = (db: Parameters<typeof migrateIndex>[0]): void => migrateIndex(db, LISTING_SCHEMA_STEPS);

describe('nextSpan', () => {
  const rows: [number, RangeOutcome, number][] = [
    [100, { kind: 'refused' }, 50],
    [1, { kind: 'refused' }, 1],
    [3, { kind: 'refused' }, 1],
    [100, { kind: 'ok', logs: 0 }, 200],
    [100, { kind: 'ok', logs: 49 }, 200],
    [100, { kind: 'ok', logs: 50 }, 100],
    [100, { kind: 'ok', logs: 200 }, 100],
    [100, { kind: 'ok', logs: 201 }, 49],
    [800, { kind: 'ok', logs: 0 }, 1000],
    [1000, { kind: 'ok', logs: 10 }, 1000],
    // Far above the target: down to the span that would have held the target at this density.
    [100, { kind: 'ok', logs: 1000 }, 10],
    [4, { kind: 'ok', logs: 400 }, 1],
    // One block holding half the target or more caps the span at the blocks of its size the target holds.
    [4, { kind: 'ok', logs: 100, densest: 100 }, 1],
    [4, { kind: 'ok', logs: 60, densest: 50 }, 2],
    [4, { kind: 'ok', logs: 0, densest: 0 }, 8],
    [8, { kind: 'ok', logs: 40, densest: 40 }, 16],
    [8, { kind: 'ok', logs: 49, densest: 49 }, 16],
    [8, { kind: 'ok', logs: 50, densest: 50 }, 2],
    [1, { kind: 'ok', logs: 500, densest: 500 }, 1],
  ];
  it.each(rows)('span %i after %j -> %i', (span, outcome, expected) => {
    expect(nextSpan(span, outcome, policy)).toBe(expected);
  });

  it('never goes below min or above max, and never grows more than twice or past a dense block', () => {
    const outcome = fc.record({ logs: fc.nat(100_000), densest: fc.nat(100_000) }).filter((o) => o.densest <= o.logs);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), outcome, (span, o) => {
        const next = nextSpan(span, { kind: 'ok', ...o }, policy);
        expect(next).toBeGreaterThanOrEqual(policy.min);
        expect(next).toBeLessThanOrEqual(policy.max);
        expect(next).toBeLessThanOrEqual(Math.max(policy.min, span * 2));
        if (o.densest >= policy.targetLogs / 2) expect(next).toBeLessThanOrEqual(Math.max(1, policy.targetLogs / o.densest));
        if (o.logs > policy.targetLogs * 2) expect(next).toBeLessThanOrEqual(Math.max(policy.min, span / 2));
      }),
    );
  });
});

/**
 * Reads `reads` ranges in order from a node that refuses more than `maxBlocks` blocks or `maxResults` logs (at
 * `perBlock` logs a block), as the indexer does one at a time; returns the refusals and the spans asked for.
 */
function readThrough(o: { maxBlocks: number; maxResults?: number; perBlock: number; reads: number }): {
  refusals: number;
  spans: number[];
  memory: SpanMemory;
} {
  let m = firstSpan(1);
  let refusals = 0;
  const spans: number[] = [];
  for (let i = 0; i < o.reads; i++) {
    const blocks = m.span;
    spans.push(blocks);
    const logs = blocks * o.perBlock;
    if (blocks > o.maxBlocks) {
      refusals++;
      m = spanAfterRefusal(m, blocks, { code: -32005, message: `query exceeds max block range ${o.maxBlocks}` }, policy);
    } else if (o.maxResults !== undefined && logs > o.maxResults) {
      refusals++;
      m = spanAfterRefusal(m, blocks, { code: -32005, message: `query returned more than ${o.maxResults} results` }, policy);
    } else m = spanAfterAnswer(m, blocks, { logs, densest: o.perBlock }, policy);
  }
  return { refusals, spans, memory: m };
}

describe("the span learns the node's limits", () => {
  it('stays below a block-range limit after a few refusals instead of doubling into it every other read', () => {
    // Doubling alone: 8, 16 refused, 8, 16 refused, ... a refusal every other read, for ever.
    const r = readThrough({ maxBlocks: 8, perBlock: 0, reads: 400 });
    expect(r.refusals).toBeLessThanOrEqual(4);
    expect(r.spans.slice(-50).every((s) => s === 8)).toBe(true);
    expect(r.memory.refused).toBe(9);
  });

  it('finds a limit that is no power of two by halving the gap', () => {
    const r = readThrough({ maxBlocks: 2000, perBlock: 0, reads: 400 });
    expect(r.refusals).toBeLessThanOrEqual(12);
    expect(r.spans.at(-1)).toBe(1000); // policy.max here is 1000: below the node's limit, the policy's own cap holds
    const wide = readThrough({ maxBlocks: 700, perBlock: 0, reads: 400 });
    expect(wide.refusals).toBeLessThanOrEqual(12);
    expect(wide.spans.at(-1)).toBe(700);
  });

  it('learns a results limit the node names and aims below it', () => {
    expect(resultsLimitIn({ message: 'query returned more than 10000 results' })).toBe(10_000);
    expect(resultsLimitIn({ error: { message: 'Query returned more than 150 results. Try with this block range [0x1, 0x2].' } })).toBe(150);
    expect(resultsLimitIn(new Error('block range too large'))).toBeNull();
    // 8 blocks of 10 logs exceed 60: refused once, then the answers aim at 30 logs (3 or 4 blocks), never at 60.
    const r = readThrough({ maxBlocks: Infinity, maxResults: 60, perBlock: 10, reads: 400 });
    expect(r.refusals).toBe(1);
    expect(r.memory.resultsLimit).toBe(60);
    for (const s of r.spans.slice(-100)) expect(s * 10).toBeLessThanOrEqual(60);
  });

  it('tries a refused span again only after RELEARN_AFTER answers', () => {
    const r = readThrough({ maxBlocks: 8, perBlock: 0, reads: 3 * RELEARN_AFTER });
    expect(r.refusals).toBeLessThanOrEqual(4 + 2 * 4);
  });

  it('never asks for a refused span again before relearning, whatever the answers', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 1000 }),
        fc.array(fc.record({ logs: fc.nat(1000), blocks: fc.integer({ min: 1, max: 1000 }) }), { maxLength: 60 }),
        (refusedAt, answers) => {
          let m = spanAfterRefusal(firstSpan(refusedAt), refusedAt, { message: 'block range too large' }, policy);
          for (const a of answers) {
            m = spanAfterAnswer(m, a.blocks, { logs: a.logs }, policy);
            expect(m.span).toBeLessThan(refusedAt);
            expect(m.span).toBeGreaterThanOrEqual(policy.min);
          }
        },
      ),
    );
  });
});

describe('readsHere: where a range is read', () => {
  const up = { usable: true, ready: true };
  const booting = { usable: true, ready: false };
  const gone = { usable: false, ready: false };
  const none = { here: 0, thread: 0 };
  it.each([
    ['no reader thread: here', null, false, none, true],
    ['a thread given up on: here', gone, false, { here: 1, thread: 0 }, true],
    ['a thread that is up: there', up, true, none, false],
    ['a booting thread, the writer idle meanwhile, nothing else read: here', booting, true, none, true],
    ['a booting thread, a write comes first: there', booting, false, none, false],
    ['a booting thread, a read under way here: there', booting, true, { here: 1, thread: 0 }, false],
    ['a booting thread, a read under way there: there', booting, true, { here: 0, thread: 1 }, false],
  ] as const)('%s', (_, thread, idle, reading, expected) => {
    expect(readsHere(thread, idle, reading)).toBe(expected);
  });
});

describe('mostInOneBlock', () => {
  it.each([
    [[], 0],
    [['0x1'], 1],
    [['0x1', '0x1', '0x2'], 2],
    [[3, 1, 3, 2, 3], 3],
  ] as [(string | number)[], number][])('%j -> %i', (blocks, expected) => {
    expect(mostInOneBlock(blocks)).toBe(expected);
  });
});

describe('isRangeRefusal', () => {
  const rows: [unknown, boolean][] = [
    [{ error: { code: -32005, message: 'limit exceeded' } }, true],
    [{ error: { code: -32000, message: 'query returned more than 10000 results' } }, true],
    [{ message: 'could not coalesce error', error: { code: -32602, message: 'eth_getLogs block range is too wide' } }, true],
    [{ error: { message: 'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range' } }, true],
    [{ error: { message: 'query exceeds max block range 1000' } }, true],
    [{ message: 'fetch failed' }, false],
    [{ error: { code: -32601, message: 'method not found' } }, false],
    [null, false],
  ];
  it.each(rows)('%j -> %s', (err, expected) => expect(isRangeRefusal(err)).toBe(expected));
});

describe('isRevertAnswer', () => {
  it.each([
    [{ code: 3, message: 'execution reverted: no such token' }, true],
    [{ code: -32603, message: 'EvmError: Revert' }, true],
    [{ code: -32000, message: 'execution reverted' }, true],
    [{ code: -32603, message: 'EvmError: InvalidFEOpcode' }, true],
    [{ code: -32000, message: 'header not found' }, false],
    [{ code: -32005, message: 'rate limit exceeded' }, false],
  ])('%j -> %s', (err, expected) => expect(isRevertAnswer(err)).toBe(expected));
});

describe('page arithmetic', () => {
  it.each([
    [0, 15, 0, null],
    [0, 15, 1, 0],
    [1, 15, 15, null],
    [1, 15, 16, 15],
    [3, 200, 1000, 600],
    [Number.MAX_SAFE_INTEGER, 200, 10, null],
  ] as const)('page %i size %i of %i starts at %s', (page, size, total, expected) => {
    expect(pageStartRank(page, size, total)).toBe(expected);
  });
  it.each([
    [0, 10, 'asc', 0],
    [0, 10, 'desc', 9],
    [9, 10, 'desc', 0],
    [3, 10, 'desc', 6],
  ] as const)('rank %i of %i %s is ascending rank %i', (rank, total, dir, expected) => {
    expect(ascendingRank(rank, total, dir)).toBe(expected);
  });
  it.each([
    [[5, 5, 5], 0, 3, [{ slice: 0, from: 0, take: 3 }]],
    [
      [5, 5, 5],
      3,
      4,
      [
        { slice: 0, from: 3, take: 2 },
        { slice: 1, from: 0, take: 2 },
      ],
    ],
    [
      [5, 0, 5],
      4,
      3,
      [
        { slice: 0, from: 4, take: 1 },
        { slice: 2, from: 0, take: 2 },
      ],
    ],
    [[2, 2], 4, 3, []],
    [
      [1, 1, 1, 1],
      1,
      10,
      [
        { slice: 1, from: 0, take: 1 },
        { slice: 2, from: 0, take: 1 },
        { slice: 3, from: 0, take: 1 },
      ],
    ],
  ])('slices %j from %i take %i', (sizes, rank, size, expected) => {
    expect(planSlices(sizes, rank, size)).toEqual(expected);
  });
  it('selectRank finds the k-th key of disjoint sorted lists, reading few keys', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uniqueArray(fc.integer({ min: 0, max: 5000 }), { maxLength: 300 }), { minLength: 1, maxLength: 6 }),
        fc.nat(2000),
        fc.integer({ min: 1, max: 12 }),
        (raw, r, small) => {
          const lists = raw.map((l, i) => l.map((v) => v * 10 + i).sort((a, b) => a - b));
          const all = lists.flat().sort((a, b) => a - b);
          let reads = 0;
          const ranked = lists.map((l) => ({
            size: l.length,
            keyAt: (i: number) => (reads++, l[i]!),
            countLess: (k: number) => (reads++, l.filter((v) => v < k).length),
          }));
          const rank = all.length ? r % (all.length + 1) : 0;
          expect(selectRank(ranked, rank, (a, b) => a - b, small)).toBe(all[rank] ?? null);
          // Bounded by rounds of rank lookups, not by the rank.
          expect(reads).toBeLessThanOrEqual(small + 1 + lists.length * lists.length * 2 * (Math.log2(all.length + 2) + 2));
        },
      ),
    );
  });
  it.each([
    [3, 50, 100, 'merge'],
    [3, 25_000, 45_000, 'select'],
    [50, 50, 2470, 'merge'],
    [2, 100_000, 60, 'merge'],
  ] as const)('filterPlan(%i lists, widest %i, %i merge keys) = %s', (k, widest, keys, plan) => {
    expect(filterPlan(k, widest, keys)).toBe(plan);
  });
  it('mergeWindow equals sort-then-slice', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uniqueArray(fc.integer({ min: 0, max: 500 }), { maxLength: 30 }), { maxLength: 5 }),
        fc.nat(40),
        fc.integer({ min: 1, max: 20 }),
        (raw, skip, take) => {
          // Make the lists disjoint like real key lists.
          const lists = raw.map((l, i) => l.map((v) => v * 10 + i).sort((a, b) => a - b));
          const all = lists.flat().sort((a, b) => a - b);
          expect(mergeWindow(lists, (a, b) => a - b, skip, take)).toEqual(all.slice(skip, skip + take));
        },
      ),
    );
  });
});

describe('sortable keys', () => {
  const uint256 = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n });
  it('token id keys sort numerically and round-trip', () => {
    fc.assert(
      fc.property(uint256, uint256, (a, b) => {
        const ka = tokenIdKey(a);
        expect(tokenIdFromKey(ka)).toBe(a);
        expect(Math.sign(Buffer.compare(ka, tokenIdKey(b)))).toBe(a < b ? -1 : a > b ? 1 : 0);
      }),
    );
  });
  it('transfer keys sort by block then log index', () => {
    fc.assert(
      fc.property(fc.nat(2 ** 40), fc.nat(2 ** 31), fc.nat(2 ** 40), fc.nat(2 ** 31), (b1, l1, b2, l2) => {
        expect(transferKeyParts(transferKey(b1, l1))).toEqual({ block: b1, logIndex: l1 });
        const want = b1 - b2 || l1 - l2;
        expect(Math.sign(Buffer.compare(transferKey(b1, l1), transferKey(b2, l2)))).toBe(Math.sign(want));
      }),
    );
  });
  it('order keys break ties the documented way and a contract slice holds exactly its ids', () => {
    const c1 = Buffer.alloc(20, 1);
    const c2 = Buffer.alloc(20, 2);
    expect(Buffer.compare(idOrderKey(tokenIdKey(5n), c2), idOrderKey(tokenIdKey(5n), c1))).toBe(1);
    expect(Buffer.compare(idOrderKey(tokenIdKey(5n), c2), idOrderKey(tokenIdKey(6n), c1))).toBe(-1);
    const s = contractSlice(c1);
    for (const id of [0n, 1n, 2n ** 256n - 1n]) {
      const k = contractOrderKey(c1, tokenIdKey(id));
      expect(Buffer.compare(k, s.lo) >= 0 && Buffer.compare(k, s.hi) < 0).toBe(true);
      expect(Buffer.compare(contractOrderKey(c2, tokenIdKey(id)), s.hi)).toBe(1);
    }
  });
});

describe('commonAncestor', () => {
  const h = (n: number, hash: string) => ({ number: n, hash, parentHash: '0x' });
  it.each([
    [
      'all match',
      [
        { number: 9, hash: '0xa' },
        { number: 5, hash: '0xb' },
      ],
      [h(9, '0xa'), h(5, '0xb')],
      9,
    ],
    [
      'tip replaced',
      [
        { number: 9, hash: '0xa' },
        { number: 5, hash: '0xb' },
      ],
      [h(9, '0xz'), h(5, '0xB')],
      5,
    ],
    [
      'chain shorter',
      [
        { number: 9, hash: '0xa' },
        { number: 5, hash: '0xb' },
      ],
      [null, h(5, '0xb')],
      5,
    ],
    ['nothing matches', [{ number: 9, hash: '0xa' }], [h(9, '0xc')], null],
    ['no checkpoints', [], [], null],
  ] as const)('%s', (_, stored, canonical, expected) => {
    expect(commonAncestor(stored, canonical)).toBe(expected);
  });
});

describe('decodeTokenLogs: ERC-721 Transfer', () => {
  const t = (n: number) => '0x' + n.toString(16).padStart(64, '0');
  const log = (topics: string[], block: number, index: number, extra: object = {}) => ({
    address: '0xAbCdEf0000000000000000000000000000000001',
    topics,
    blockNumber: '0x' + block.toString(16),
    blockHash: '0x' + 'b'.repeat(64),
    logIndex: '0x' + index.toString(16),
    ...extra,
  });
  it('keeps 4-topic ERC-721 transfers in chain order and skips ERC-20 and removed logs', () => {
    const out = decodeTokenLogs([
      log([TRANSFER_TOPIC, t(0), t(0xbeef), t(7)], 5, 2),
      log([TRANSFER_TOPIC, t(1), t(2)], 5, 1),
      log([TRANSFER_TOPIC, t(0xbeef), t(0xcafe), t(7)], 4, 9),
      log([TRANSFER_TOPIC, t(1), t(2), t(3)], 6, 0, { removed: true }),
      log(['0x' + '1'.repeat(64), t(1), t(2), t(3)], 6, 1),
    ]).moves;
    expect(out.map((l) => [l.block, l.logIndex, l.from.slice(-4), l.to.slice(-4), l.id])).toEqual([
      [4, 9, 'beef', 'cafe', 7n],
      [5, 2, '0000', 'beef', 7n],
    ]);
    expect(out[0]!.contract).toBe('0xabcdef0000000000000000000000000000000001');
    expect(netMoves(out)).toEqual([{ contract: out[0]!.contract, id: 7n, to: out[1]!.to, block: 5, logIndex: 2, sub: 0, minted: true }]);
  });

  it('netMoves: the last move of each token, in order of first move, minted if any move minted it (fast-check)', () => {
    const ZERO = '0x' + '0'.repeat(40);
    const who = (i: number) => (i === 0 ? ZERO : '0x' + String(i).padStart(40, '0'));
    const move = fc.record({ c: fc.nat(2), id: fc.nat(4), from: fc.nat(3), to: fc.nat(3), multi: fc.boolean() });
    fc.assert(
      fc.property(fc.array(move, { maxLength: 40 }), (ms) => {
        const logs: Parameters<typeof netMoves>[0] = ms.map((m, i) => ({
          block: 1 + (i >> 3),
          logIndex: i,
          blockHash: '0x',
          contract: '0xc' + String(m.c).padStart(39, '0'),
          id: BigInt(m.id),
          from: who(m.from),
          to: who(m.to),
          ...(m.multi ? { sub: 1, amount: 2n } : { sub: i % 3 }),
        }));
        // The model: one entry per "contract:id" string, replaced in place (Map order is first insertion).
        const model = new Map<string, ReturnType<typeof netMoves>[number]>();
        for (const l of logs) {
          if (l.amount != null) continue;
          const key = `${l.contract}:${l.id}`;
          const minted = (model.get(key)?.minted ?? false) || l.from === ZERO;
          model.set(key, { contract: l.contract, id: l.id, to: l.to, block: l.block, logIndex: l.logIndex, sub: l.sub ?? 0, minted });
        }
        expect(netMoves(logs)).toEqual([...model.values()]);
      }),
    );
  });

  it('keeps one (block, hash) entry per run of logs, and a log with another hash at a range end still fails the end check', () => {
    const other = '0x' + 'c'.repeat(64);
    const logs = [
      ...Array.from({ length: 50 }, (_, i) => log([TRANSFER_TOPIC, t(0), t(1), t(i)], 5, i)),
      ...Array.from({ length: 50 }, (_, i) => log([TRANSFER_TOPIC, t(0), t(1), t(100 + i)], 6, i)),
    ];
    const hash = '0x' + 'b'.repeat(64);
    expect(decodeTokenLogs(logs).blocks).toEqual([
      { block: 5, blockHash: hash },
      { block: 6, blockHash: hash },
    ]);
    const headers = [
      { number: 5, hash, parentHash: '0x' + 'a'.repeat(64) },
      { number: 6, hash, parentHash: hash },
    ];
    const part = (blocks: { block: number; blockHash: string }[]) => ({ range: { from: 5, to: 6, blocks } as PreparedRange, headers });
    expect(endsAgree(part(decodeTokenLogs(logs).blocks))).toBe(true);
    // One log of block 6 from another version of the block, in the middle of the run.
    const moved = logs.map((l, i) => (i === 70 ? { ...l, blockHash: other } : l));
    expect(decodeTokenLogs(moved).blocks).toEqual([
      { block: 5, blockHash: hash },
      { block: 6, blockHash: hash },
      { block: 6, blockHash: other },
      { block: 6, blockHash: hash },
    ]);
    expect(endsAgree(part(decodeTokenLogs(moved).blocks))).toBe(false);
  });

  it('decodes the same whatever the order and letter case the node answers in (fast-check)', () => {
    const upper = (h: string) => '0x' + h.slice(2).toUpperCase();
    fc.assert(
      fc.property(
        fc.array(fc.record({ block: fc.nat(5), index: fc.nat(20), from: fc.nat(3), to: fc.nat(3), id: fc.nat(9) }), { maxLength: 30 }),
        fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
        fc.func(fc.integer()),
        (moves, caps, rank) => {
          const logs = moves.map((m) => log([TRANSFER_TOPIC, t(m.from), t(m.to), t(m.id)], m.block, m.index, { data: '0x' }));
          // Chain order with log indexes made unique per block, then shuffled and partly upper-cased.
          const sorted = [...logs].sort((a, b) => Number(a.blockNumber) - Number(b.blockNumber) || Number(a.logIndex) - Number(b.logIndex));
          const seen = new Set<string>();
          const chain = sorted.filter((l) => !seen.has(l.blockNumber + l.logIndex) && seen.add(l.blockNumber + l.logIndex));
          const messy = chain
            .map((l, i) => (caps[i] ? { ...l, topics: l.topics.map(upper), data: '0X' } : l))
            .map((l, i) => ({ l, k: rank(i) }))
            .sort((a, b) => a.k - b.k)
            .map((e) => e.l);
          expect(decodeTokenLogs(messy)).toEqual(decodeTokenLogs(chain));
        },
      ),
    );
  });
});

describe('metadata decoding', () => {
  it.each([
    [null, ''],
    ['0x', ''],
    ['0x' + '0'.repeat(62) + '20' + '0'.repeat(63) + '3' + '414243' + '0'.repeat(58), 'ABC'],
    ['0x4d4b520000000000000000000000000000000000000000000000000000000000', 'MKR'],
    ['0x1234', ''],
  ])('text %s -> %j', async (data, text) => expect(await decodeTexts([data])).toEqual([text]));
  it.each([
    [null, null],
    ['0x', null],
    ['0x' + '0'.repeat(63) + 'a', '10'],
  ])('uint %s -> %s', (data, value) => expect(decodeUint(data)).toBe(value));
});

describe('constants written out instead of computed with ethers at load', () => {
  it('event topics are the keccak256 of their signatures', () => {
    expect(TOPIC).toEqual({
      transfer: keccakText('Transfer(address,address,uint256)'),
      consecutive: keccakText('ConsecutiveTransfer(uint256,uint256,address,address)'),
      single: keccakText('TransferSingle(address,address,address,uint256,uint256)'),
      batch: keccakText('TransferBatch(address,address,address,uint256[],uint256[])'),
      uri: keccakText('URI(string,uint256)'),
      metadataUpdate: keccakText('MetadataUpdate(uint256)'),
      batchMetadataUpdate: keccakText('BatchMetadataUpdate(uint256,uint256)'),
    });
  });

  it('metadata calls are the ABI encoding of their functions', () => {
    const abi = new Interface([
      'function name() view returns (string)',
      'function symbol() view returns (string)',
      'function totalSupply() view returns (uint256)',
      'function tokenURI(uint256) view returns (string)',
      'function supportsInterface(bytes4) view returns (bool)',
      'function uri(uint256) view returns (string)',
    ]);
    expect(CALL.name).toBe(abi.encodeFunctionData('name'));
    expect(CALL.symbol).toBe(abi.encodeFunctionData('symbol'));
    expect(CALL.totalSupply).toBe(abi.encodeFunctionData('totalSupply'));
    expect(CALL.supportsMetadata).toBe(abi.encodeFunctionData('supportsInterface', ['0x5b5e139f']));
    expect(CALL.supports721).toBe(abi.encodeFunctionData('supportsInterface', ['0x80ac58cd']));
    expect(CALL.supports1155).toBe(abi.encodeFunctionData('supportsInterface', ['0xd9b67a26']));
    expect(CALL.supports1155Uri).toBe(abi.encodeFunctionData('supportsInterface', ['0x0e89341c']));
    for (const id of [0n, 7n, 2n ** 255n + 3n, 2n ** 256n - 1n]) {
      expect(CALL.tokenURI(id)).toBe(abi.encodeFunctionData('tokenURI', [id]));
      expect(CALL.uri(id)).toBe(abi.encodeFunctionData('uri', [id]));
    }
  });
});

describe('progress', () => {
  it('formats a line', () => {
    expect(progressLine(550, 1000, 100, 9000, 3)).toBe('indexer: block 550 of 1000 (50.0%), 9000 transfers, 3000/s');
  });
  it('writes only on a TTY and only for a real backlog', () => {
    const tty: string[] = [];
    const plain: string[] = [];
    let t = 0;
    const p1 = createProgress({ isTTY: true, write: (s) => tty.push(s) }, () => (t += 2000));
    const p2 = createProgress({ isTTY: false, write: (s) => plain.push(s) }, () => (t += 2000));
    for (const p of [p1, p2]) {
      p.update(10, 12, 1);
      p.update(100, 5000, 10);
      p.update(5000, 5000, 10);
    }
    expect(plain).toEqual([]);
    expect(tty.join('')).toContain('block 100 of 5000');
    expect(tty.at(-1)).toBe('\n');
  });
});

describe('decodeTokenLogs: EIP-2309, ERC-1155, ERC-4906', () => {
  const t = (n: bigint | number) => '0x' + BigInt(n).toString(16).padStart(64, '0');
  const w = (n: bigint | number) => BigInt(n).toString(16).padStart(64, '0');
  const log = (topics: string[], data: string, block = 1, index = 0) => ({
    address: '0x00000000000000000000000000000000000000C1',
    topics,
    data,
    blockNumber: '0x' + block.toString(16),
    blockHash: '0x' + 'b'.repeat(64),
    logIndex: '0x' + index.toString(16),
  });
  const A = 0xa1n;
  const B = 0xb2n;

  it('expands a ConsecutiveTransfer range into one move per token, positions from 1, and caps long ranges', () => {
    const out = decodeTokenLogs([log([TOPIC.consecutive, t(10), t(0), t(A)], '0x' + w(14))], 3);
    expect(out.moves.map((m) => [m.id, m.sub, m.amount, m.from.slice(-2), m.to.slice(-2)])).toEqual([
      [10n, 1, null, '00', 'a1'],
      [11n, 2, null, '00', 'a1'],
      [12n, 3, null, '00', 'a1'],
    ]);
    expect(out.truncated).toEqual([
      { block: 1, logIndex: 0, contract: '0x00000000000000000000000000000000000000c1', fromId: 10n, toId: 14n, indexed: 3 },
    ]);
    expect(out.firstKind.get('0x00000000000000000000000000000000000000c1')).toBe('ERC721');
    // A range that ends before it starts, or has no data, is not an event the indexer can follow.
    expect(decodeTokenLogs([log([TOPIC.consecutive, t(10), t(0), t(A)], '0x' + w(9))]).moves).toEqual([]);
    expect(decodeTokenLogs([log([TOPIC.consecutive, t(10), t(0), t(A)], '0x')]).moves).toEqual([]);
    expect(CONSECUTIVE_CAP).toBe(50_000);
  });

  it('decodes TransferSingle and TransferBatch with amounts, and skips batches whose arrays disagree', () => {
    const single = log([TOPIC.single, t(A), t(0), t(B)], '0x' + w(7) + w(5), 2, 1);
    const batch = log([TOPIC.batch, t(A), t(B), t(0)], '0x' + w(64) + w(160) + w(2) + w(1) + w(2 ** 70) + w(2) + w(3) + w(4), 2, 0);
    const bad = log([TOPIC.batch, t(A), t(B), t(0)], '0x' + w(64) + w(128) + w(1) + w(1) + w(2) + w(3) + w(4), 2, 2);
    const out = decodeTokenLogs([single, batch, bad]);
    expect(out.moves.map((m) => [m.logIndex, m.sub, m.id, m.amount, m.from.slice(-2), m.to.slice(-2)])).toEqual([
      [0, 1, 1n, 3n, 'b2', '00'],
      [0, 2, 2n ** 70n, 4n, 'b2', '00'],
      [1, 0, 7n, 5n, '00', 'b2'],
    ]);
  });

  it('reads URI events with the {id} substitution and ERC-4906 updates', () => {
    const text = Buffer.from('ipfs://x/{id}.json').toString('hex');
    const uri = log([TOPIC.uri, t(255)], '0x' + w(32) + w(text.length / 2) + text.padEnd(64, '0'));
    const one = log([TOPIC.metadataUpdate], '0x' + w(9), 1, 1);
    const range = log([TOPIC.batchMetadataUpdate], '0x' + w(3) + w(8), 1, 2);
    const out = decodeTokenLogs([uri, one, range]);
    expect(out.uris.map((u) => [u.id, u.value])).toEqual([[255n, `ipfs://x/${'0'.repeat(62)}ff.json`]]);
    expect(out.metadataUpdates.map((m) => [m.fromId, m.toId])).toEqual([
      [9n, 9n],
      [3n, 8n],
    ]);
    expect(out.moves).toEqual([]);
    expect(substituteId('ar://plain', 5n)).toBe('ar://plain');
  });
});

describe('decideStandard', () => {
  it.each([
    ['ERC721', null, null, 'ERC721'],
    ['ERC1155', null, null, 'ERC1155'],
    ['ERC1155', true, false, 'ERC721'],
    ['ERC721', false, true, 'ERC1155'],
    ['ERC721', true, true, 'ERC721'],
    ['ERC1155', false, false, 'ERC1155'],
    ['ERC1155', true, null, 'ERC1155'],
  ] as const)('events say %s, ERC-165 721 %s, 1155 %s -> %s', (byEvents, erc721, erc1155, expected) => {
    expect(decideStandard(byEvents, erc721, erc1155)).toBe(expected);
  });
});

describe('applyBatchInPieces (PostgreSQL applies a range in pieces that yield)', () => {
  const addr = (n: number) => '0x' + n.toString(16).padStart(40, '0');
  const ZERO = addr(0);
  const ERC721 = [addr(0xc1), addr(0xc2)];
  const ERC1155 = addr(0xd1);
  const OWNERS = [1, 2, 3, 4].map((n) => addr(0x1000 + n));
  const moves = fc.array(
    fc.record({
      erc1155: fc.boolean(),
      contract: fc.nat(1),
      id: fc.nat(12),
      to: fc.nat(OWNERS.length),
      from: fc.nat(OWNERS.length),
      amount: fc.integer({ min: 1, max: 4 }),
    }),
    { maxLength: 80 },
  );

  /** The batch of one range over blocks 1-4 (moves spread over them), ERC-721 moves from each token's owner. */
  function batchOf(ms: { erc1155: boolean; contract: number; id: number; to: number; from: number; amount: number }[]): Batch {
    const live = new Map<string, string>();
    const logs: TransferLog[] = ms.map((m, i) => {
      const block = 1 + (i % 4);
      const blockHash = '0x' + block.toString(16).padStart(64, '0');
      const to = m.to === OWNERS.length ? ZERO : OWNERS[m.to]!;
      if (m.erc1155) {
        const from = m.from === OWNERS.length ? ZERO : OWNERS[m.from]!;
        return { block, logIndex: i, blockHash, contract: ERC1155, from, to, id: BigInt(m.id), sub: 0, amount: BigInt(m.amount) };
      }
      const contract = ERC721[m.contract]!;
      const key = `${contract}:${m.id}`;
      const from = live.get(key) ?? ZERO;
      if (to === ZERO) live.delete(key);
      else live.set(key, to);
      return { block, logIndex: i, blockHash, contract, from, to, id: BigInt(m.id) };
    });
    logs.sort((a, b) => a.block - b.block || a.logIndex - b.logIndex);
    const meta = (c: string) =>
      ({ name: 'N', symbol: 'S', totalSupply: null, hasUri: true, standard: c === ERC1155 ? 'ERC1155' : 'ERC721' }) as const;
    const minted = logs.filter((l, i) => l.from === ZERO && i % 3 !== 0);
    return {
      from: 1,
      to: 4,
      headers: [],
      logs,
      newContracts: new Map([...ERC721, ERC1155].map((c) => [c, meta(c)])),
      uris: tokenUris(
        minted.map((l) => ({ address: l.contract, id: l.id })),
        minted.map((l) => `uri:${l.id}`),
      ),
      supplies: new Map([[ERC721[0]!, '9']]),
    };
  }

  it('writes what applyBatchTo writes at once, and reports the same uris missing (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(moves, fc.integer({ min: 1, max: 7 }), async (ms, piece) => {
        const b = batchOf(ms);
        const once = openDatabase(':memory:');
        const pieces = openDatabase(':memory:');
        for (const db of [once, pieces]) migrateSqliteIndex(db);
        const missingOnce = applyBatch(once, createIndexWriter(once, 2), b);
        // No transaction held across the pieces' turns, as on PostgreSQL (which writes everything afterwards).
        const missingPieces = await applyBatchInPieces(
          { ...sqliteSink(pieces), transaction: (fn) => fn() },
          createIndexWriter(pieces, 2),
          b,
          piece,
        );
        expect(missingPieces).toEqual(missingOnce);
        expect(dumpSqlite(pieces)).toEqual(dumpSqlite(once));
        once.close();
        pieces.close();
      }),
      { numRuns: 25 },
    );
  });
});
