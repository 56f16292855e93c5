// A part's moves cross from the reader thread to the writer's as columns over a string table (indexer-part-wire.ts):
// what arrives, through a real structured copy with the columns handed over, equals what was sent. Parts sealed by
// the reader thread for the writer thread (sealRange) are passed on unopened by the main thread, so what the writer
// thread unseals must be what it would have received opened, alone or joined, and what the main thread still reads of
// them (move counts, end blocks, first blocks of new contracts) must answer as the opened part would.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Batch, TokenUris } from '../../../src/service/indexer/indexer-apply.js';
import type { TokenMove } from '../../../src/service/indexer/indexer-events.js';
import { endsAgree, joinParts, partsToJoin, type ReadyPart } from '../../../src/service/indexer/indexer-join.js';
import {
  endBlocks,
  fromWire,
  moveCount,
  packLogs,
  sealedBuffers,
  sealRange,
  toWire,
  unpackLogs,
  unsealBatch,
} from '../../../src/service/indexer/indexer-part-wire.js';
import type { PreparedRange } from '../../../src/service/indexer/indexer-prepare.js';

const hex = (n: number) => fc.stringMatching(new RegExp(`^0x[0-9a-f]{${n}}$`));
// Few distinct strings, as in a real part (one block hash, a few contracts, repeated owners).
const move = (hashes: string[], addresses: string[]): fc.Arbitrary<TokenMove> =>
  fc.record({
    block: fc.integer({ min: 0, max: 2 ** 40 }),
    logIndex: fc.nat(100_000),
    sub: fc.nat(5_000),
    blockHash: fc.constantFrom(...hashes),
    contract: fc.constantFrom(...addresses),
    from: fc.constantFrom(...addresses),
    to: fc.constantFrom(...addresses),
    id: fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
    amount: fc.option(fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), { nil: null }),
  });
const moves = fc
  .tuple(fc.uniqueArray(hex(64), { minLength: 1, maxLength: 3 }), fc.uniqueArray(hex(40), { minLength: 1, maxLength: 6 }))
  .chain(([hashes, addresses]) => fc.array(move(hashes, addresses), { maxLength: 60 }));

it('unpacks exactly the moves it packed', () => {
  fc.assert(
    fc.property(moves, (logs) => {
      expect(unpackLogs(packLogs(logs))).toEqual(logs);
    }),
  );
});

it('keeps each string once, whatever the number of moves naming it', () => {
  const logs: TokenMove[] = Array.from({ length: 1_000 }, (_, i) => ({
    block: 7,
    logIndex: i,
    sub: 0,
    blockHash: '0x' + 'ab'.repeat(32),
    contract: '0x' + 'c'.repeat(40),
    from: '0x' + (i % 3).toString().repeat(40),
    to: '0x' + ((i + 1) % 3).toString().repeat(40),
    id: BigInt(i),
    amount: null,
  }));
  expect(packLogs(logs).strings).toHaveLength(5);
});

it('crosses a structured copy with its columns handed over, and the range around them is kept', () => {
  fc.assert(
    fc.property(moves, (logs) => {
      const range: PreparedRange = {
        from: 1,
        to: 2,
        logs,
        blocks: logs.slice(0, 1).map((l) => ({ block: l.block, blockHash: l.blockHash })),
        newContracts: new Map(),
        uris: new Map([['0xc', new Map([[1n, 'ipfs://x']])]]),
        supplies: new Map([['0xc', '3']]),
        uriEvents: [],
        metadataUpdates: [],
        truncated: [],
        timing: { logsMs: 1, metadataMs: 2 },
      };
      const wire = toWire(range);
      const copy = structuredClone(wire, { transfer: [wire.logs.cols.buffer as ArrayBuffer] });
      // Handed over: the sender's columns are gone.
      expect(wire.logs.cols.length).toBe(0);
      expect(fromWire(copy)).toEqual(range);
    }),
  );
});

const blockHash = (n: number, fork = 0) => '0x' + (fork * 1_000_000 + n).toString(16).padStart(64, '0');
const header = (n: number) => ({ number: n, hash: blockHash(n), parentHash: blockHash(n - 1) });
const addressOf = (n: number) => '0x' + n.toString(16).padStart(40, '0');
const meta = { name: 'N', symbol: 'S', totalSupply: null, hasUri: true, standard: 'ERC721' as const };

/** A ready part over [from, to]: `perBlock[i]` moves in block from + i, over contracts 1-3, some ERC-1155, with uris. */
function readyPart(from: number, perBlock: number[], newContract: number | null = null): ReadyPart {
  const to = from + perBlock.length - 1;
  const logs: TokenMove[] = perBlock.flatMap((n, b) =>
    Array.from({ length: n }, (_, i) => ({
      block: from + b,
      logIndex: i,
      sub: i % 3,
      blockHash: blockHash(from + b),
      contract: addressOf(1 + (i % 3)),
      from: addressOf(0),
      to: addressOf(100 + (i % 7)),
      id: BigInt((from + b) * 1000 + i),
      amount: i % 5 === 0 ? BigInt(i + 1) : null,
    })),
  );
  const uris: TokenUris = new Map();
  for (const l of logs.filter((_, i) => i % 2 === 0)) {
    if (!uris.has(l.contract)) uris.set(l.contract, new Map());
    uris.get(l.contract)!.set(l.id, `ipfs://${l.id}`);
  }
  const range: PreparedRange = {
    from,
    to,
    logs,
    blocks: logs.map((l) => ({ block: l.block, blockHash: l.blockHash })),
    newContracts: new Map(newContract === null ? [] : [[addressOf(newContract), meta]]),
    uris,
    supplies: new Map([[addressOf(1), '7']]),
    uriEvents: [],
    metadataUpdates: [],
    truncated: [],
    timing: { logsMs: 1, metadataMs: 2 },
  };
  return { range, headers: from === to ? [header(from)] : [header(from), header(to)] };
}

/** The part as the main thread receives it from the reader thread: sealed, through a real structured copy. */
function sealedCopy(p: ReadyPart): ReadyPart {
  const wire = toWire(sealRange(p.range));
  const copy = structuredClone(wire, { transfer: [wire.logs.cols.buffer as ArrayBuffer, ...sealedBuffers(wire.sealed)] });
  return { ...p, range: fromWire(copy) };
}

/** The batch gather() builds from a group of parts (the fields the writer reads). */
function batchOf(group: ReadyPart[]): Batch {
  const j = group.length > 1 ? joinParts(group) : { range: group[0]!.range, headers: [], firstBlocks: undefined };
  const r = j.range;
  return {
    from: r.from,
    to: r.to,
    headers: j.headers,
    logs: r.logs,
    newContracts: r.newContracts,
    ...(j.firstBlocks ? { firstBlocks: j.firstBlocks } : {}),
    uris: r.uris,
    supplies: r.supplies,
    ...(r.sealed ? { sealed: r.sealed } : {}),
  };
}

const perBlocks = fc.array(fc.array(fc.nat(12), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 });

describe('sealed parts', () => {
  it('hold nothing on the main thread but their counts, end blocks and buffers, and those are handed over', () => {
    const p = readyPart(10, [3, 0, 4], 2);
    const wire = toWire(sealRange(p.range));
    const buffers = sealedBuffers(wire.sealed);
    const copy = fromWire(structuredClone(wire, { transfer: [wire.logs.cols.buffer as ArrayBuffer, ...buffers] }));
    expect(buffers.every((b) => b.byteLength === 0)).toBe(true);
    expect(copy.logs).toEqual([]);
    expect(copy.uris.size).toBe(0);
    expect(moveCount(copy)).toBe(7);
    expect(copy.blocks).toEqual([
      { block: 10, blockHash: blockHash(10) },
      { block: 12, blockHash: blockHash(12) },
    ]);
    expect(copy.sealed![0]!.firstBlocks).toEqual(new Map([[addressOf(2), 10]]));
  });

  it('unseal, alone or joined, to the batch the opened parts make', () => {
    fc.assert(
      fc.property(perBlocks, fc.nat(3), (shapes, withNew) => {
        const parts: ReadyPart[] = [];
        let from = 1;
        shapes.forEach((perBlock, k) => {
          parts.push(readyPart(from, perBlock, k === withNew ? 1 + (k % 3) : null));
          from += perBlock.length;
        });
        const sealed = parts.map(sealedCopy);
        const n = partsToJoin(parts[0]!, parts.slice(1), 1_000);
        expect(partsToJoin(sealed[0]!, sealed.slice(1), 1_000)).toBe(n);
        const opened = batchOf(parts.slice(0, n + 1));
        const passed = batchOf(sealed.slice(0, n + 1));
        expect(moveCount(passed)).toBe(opened.logs.length);
        const { sealed: _, ...unsealed } = unsealBatch(passed);
        expect(unsealed).toEqual(opened);
      }),
    );
  });

  it('answer the range-end check as the opened part does', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(5), { minLength: 1, maxLength: 4 }), fc.nat(3), fc.boolean(), (perBlock, forkAt, fork) => {
        const p = readyPart(5, perBlock);
        // One log of a block (an end or not) from another version of the chain.
        const logs = p.range.logs.map((l, i) => (fork && i === forkAt ? { ...l, blockHash: blockHash(l.block, 1) } : l));
        const opened: ReadyPart = {
          ...p,
          range: { ...p.range, logs, blocks: logs.map((l) => ({ block: l.block, blockHash: l.blockHash })) },
        };
        expect(endsAgree(sealedCopy(opened))).toBe(endsAgree(opened));
        expect(endBlocks(opened.range).every((b) => b.block === 5 || b.block === opened.range.to)).toBe(true);
      }),
    );
  });

  it('join only sealed parts, never an opened one (read on the main thread while the reader thread was down)', () => {
    const a = readyPart(1, [2]);
    const b = readyPart(2, [2]);
    expect(partsToJoin(sealedCopy(a), [sealedCopy(b)], 100)).toBe(1);
    expect(partsToJoin(sealedCopy(a), [b], 100)).toBe(0);
    expect(partsToJoin(a, [sealedCopy(b)], 100)).toBe(0);
  });
});
