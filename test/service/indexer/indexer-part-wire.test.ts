// A part's moves cross from the reader thread to the writer's as columns over a string table (indexer-part-wire.ts):
// what arrives, through a real structured copy with the columns handed over, equals what was sent.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { TokenMove } from '../../../src/service/indexer/indexer-events.js';
import { fromWire, packLogs, toWire, unpackLogs } from '../../../src/service/indexer/indexer-part-wire.js';
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
