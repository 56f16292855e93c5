// Which parts read ahead join one write (partsToJoin) and the joined range (joinParts): pure, table-tested, plus a
// property that a joined range holds exactly its parts' moves, in order, and every part's end headers.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { joinParts, partsToJoin, type ReadyPart } from '../../../src/service/indexer/indexer-join.js';
import type { PreparedRange } from '../../../src/service/indexer/indexer-prepare.js';

const hash = (n: number, fork = 0) => '0x' + (fork * 1_000_000 + n).toString(16).padStart(64, '0');
const header = (n: number, fork = 0) => ({ number: n, hash: hash(n, fork), parentHash: hash(n - 1, fork) });
const C = '0x' + 'c'.repeat(40);

/** A ready part over [from, to] with `moves` moves in its last block. */
function part(from: number, to: number, moves: number, extra: Partial<PreparedRange> = {}, fork = 0): ReadyPart {
  const logs = Array.from({ length: moves }, (_, i) => ({
    block: to,
    logIndex: i,
    blockHash: hash(to, fork),
    contract: C,
    from: C,
    to: C,
    id: BigInt(from * 1000 + i),
  }));
  const range: PreparedRange = {
    from,
    to,
    logs,
    blocks: logs.map((l) => ({ block: l.block, blockHash: l.blockHash })),
    newContracts: new Map(),
    uris: new Map(),
    supplies: new Map(),
    uriEvents: [],
    metadataUpdates: [],
    truncated: [],
    timing: { logsMs: 1, metadataMs: 2 },
    ...extra,
  };
  return { range, headers: from === to ? [header(from, fork)] : [header(from, fork), header(to, fork)] };
}

describe('partsToJoin', () => {
  const first = part(1, 2, 10);
  it.each([
    { name: 'every ready part within the cap', next: [part(3, 3, 10), part(4, 6, 10)], max: 30, n: 2 },
    { name: 'stops before the part that would pass the cap', next: [part(3, 3, 10), part(4, 6, 11)], max: 30, n: 1 },
    { name: 'nothing ready', next: [], max: 30, n: 0 },
    { name: 'a gap in blocks', next: [part(4, 4, 1)], max: 30, n: 0 },
    { name: 'a part from another fork (parent hash differs)', next: [part(3, 3, 1, {}, 1)], max: 30, n: 0 },
    { name: 'a missing header', next: [{ ...part(3, 4, 1), headers: [header(3), null] }], max: 30, n: 0 },
    {
      name: 'a log whose block hash is not its header’s',
      next: [{ ...part(3, 3, 1), headers: [{ ...header(3), hash: hash(3, 2) }] }],
      max: 30,
      n: 0,
    },
    { name: 'joining off (cap 0)', next: [part(3, 3, 0)], max: 0, n: 0 },
  ])('$name', ({ next, max, n }) => {
    expect(partsToJoin(first, next, max)).toBe(n);
  });

  it('a part carrying URI, ERC-4906 or truncation records ends the group (they act after the last moves)', () => {
    const uri = part(3, 3, 1, { uriEvents: [{ block: 3, logIndex: 0, contract: C, id: 1n, value: 'x' }] });
    expect(partsToJoin(first, [uri, part(4, 4, 1)])).toBe(1);
    const update = part(1, 2, 1, { metadataUpdates: [{ contract: C, fromId: 1n, toId: 1n }] });
    expect(partsToJoin(update, [part(3, 3, 1)])).toBe(0);
  });
});

describe('joinParts', () => {
  it('keeps moves in order, later reads win, events of the last part, every end header, first blocks of new contracts', () => {
    const meta = { name: 'A', symbol: 'A', totalSupply: null, hasUri: true, standard: 'ERC721' as const };
    const a = part(1, 2, 2, {
      newContracts: new Map([['0xa', meta]]),
      uris: new Map([
        [
          '0xk',
          new Map([
            [1n, 'old'],
            [2n, 'only a'],
          ]),
        ],
      ]),
      supplies: new Map([['s', '1']]),
    });
    const b = part(3, 3, 1, {
      newContracts: new Map([['0xb', meta]]),
      uris: new Map([
        ['0xk', new Map([[1n, 'new']])],
        ['0xm', new Map([[1n, 'only b']])],
      ]),
      supplies: new Map([['s', '2']]),
    });
    const c = part(4, 5, 1, { metadataUpdates: [{ contract: C, fromId: 1n, toId: 2n }] });
    const { range, headers, firstBlocks } = joinParts([a, b, c]);
    expect([range.from, range.to]).toEqual([1, 5]);
    expect(range.logs).toEqual([...a.range.logs, ...b.range.logs, ...c.range.logs]);
    expect(range.uris).toEqual(
      new Map([
        [
          '0xk',
          new Map([
            [1n, 'new'],
            [2n, 'only a'],
          ]),
        ],
        ['0xm', new Map([[1n, 'only b']])],
      ]),
    );
    expect(range.supplies.get('s')).toBe('2');
    expect(range.metadataUpdates).toEqual(c.range.metadataUpdates);
    expect(headers.map((h) => h.number)).toEqual([1, 2, 3, 4, 5]);
    // Contracts without a move of their own in the part that brought them: that part's last block, as before.
    expect([...firstBlocks]).toEqual([
      ['0xa', 2],
      ['0xb', 3],
    ]);
    expect(range.timing).toEqual({ logsMs: 3, metadataMs: 6 });
  });

  it('a joined range holds exactly its parts’ moves and blocks, in order (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(3), fc.nat(5)), { minLength: 1, maxLength: 8 }), (shape) => {
        let from = 1;
        const parts = shape.map(([extra, moves]) => {
          const p = part(from, from + extra, moves);
          from += extra + 1;
          return p;
        });
        expect(partsToJoin(parts[0]!, parts.slice(1), 1_000)).toBe(parts.length - 1);
        const { range, headers } = joinParts(parts);
        expect(range.logs).toEqual(parts.flatMap((p) => p.range.logs));
        expect(range.blocks).toEqual(parts.flatMap((p) => p.range.blocks));
        expect(headers.map((h) => h.number)).toEqual(
          parts.flatMap((p) => (p.range.from === p.range.to ? [p.range.from] : [p.range.from, p.range.to])),
        );
      }),
    );
  });
});
