// The eth_getLogs scan against the JSON path it stands in for: on answers of every event the indexer follows, in any
// member order, spacing and letter case, it decodes the same or declines (null), and leaves the bytes as they were.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TOPIC } from '../../../src/service/indexer/indexer-events.js';
import { decodeRawLogs, scanTokenLogs } from '../../../src/service/indexer/indexer-log-scan.js';
import type { RawLog } from '../../../src/service/indexer/indexer-rpc.js';

const word = (n: bigint | number) => BigInt(n).toString(16).padStart(64, '0');
const topic = (n: bigint | number) => '0x' + word(n);
const data = (...words: (bigint | number)[]) => '0x' + words.map(word).join('');
const answer = (logs: unknown[], space?: number) => JSON.stringify([{ jsonrpc: '2.0', id: 0, result: logs }], null, space);
const jsonPath = (text: string) => decodeRawLogs((JSON.parse(text) as { result: RawLog[] }[])[0]!.result);

/** Topics and data of one log of each kind the indexer reads, and of kinds it skips. */
const event: fc.Arbitrary<{ topics: readonly string[]; data: string }> = fc.oneof(
  fc
    .record({ from: fc.nat(4), to: fc.nat(4), id: fc.bigInt(0n, 2n ** 256n - 1n) })
    .map((e) => ({ topics: [TOPIC.transfer, topic(e.from), topic(e.to), topic(e.id)], data: '0x' })),
  fc
    .record({ from: fc.nat(4), to: fc.nat(4), amount: fc.nat() })
    .map((e) => ({ topics: [TOPIC.transfer, topic(e.from), topic(e.to)], data: data(e.amount) })),
  fc
    .record({ start: fc.nat(100), n: fc.nat(4), to: fc.nat(4) })
    .map((e) => ({ topics: [TOPIC.consecutive, topic(e.start), topic(0), topic(e.to)], data: data(e.start + e.n) })),
  fc
    .record({ id: fc.nat(9), amount: fc.nat(9), from: fc.nat(4), to: fc.nat(4) })
    .map((e) => ({ topics: [TOPIC.single, topic(1), topic(e.from), topic(e.to)], data: data(e.id, e.amount) })),
  fc.array(fc.nat(9), { maxLength: 3 }).map((ids) => ({
    topics: [TOPIC.batch, topic(1), topic(0), topic(2)],
    data: data(64, 96 + 32 * ids.length, ids.length, ...ids, ids.length, ...ids),
  })),
  fc.nat(9).map((id) => ({ topics: [TOPIC.uri, topic(id)], data: data(32, 3) + Buffer.from('a{id}').toString('hex').padEnd(64, '0') })),
  fc.nat(9).map((id) => ({ topics: [TOPIC.metadataUpdate], data: data(id) })),
  fc.constant({ topics: ['0x' + '1'.repeat(64)], data: '0x' }),
  fc.constant({ topics: [], data: '0x' }),
);

/** Logs in chain order (block, then log index), as nodes answer. */
const chainLogs = fc
  .array(
    fc.record({
      event,
      contract: fc.nat(2),
      nextBlock: fc.boolean(),
      removed: fc.constantFrom(undefined, false, true),
      upper: fc.boolean(),
      noData: fc.boolean(),
    }),
    { maxLength: 25 },
  )
  .map((rows) => {
    let block = 7;
    let index = 0;
    return rows.map((r) => {
      if (r.nextBlock) [block, index] = [block + 1, 0];
      const caps = (h: string) => (r.upper ? '0x' + h.slice(2).toUpperCase() : h);
      const log: Record<string, unknown> = {
        address: caps('0x' + 'ab'.repeat(19) + String(r.contract).repeat(2)),
        topics: r.event.topics.map(caps),
        data: caps(r.event.data),
        blockHash: '0x' + (block % 10).toString().repeat(64),
        blockNumber: '0x' + block.toString(16),
        blockTimestamp: '0x6b09ae82',
        transactionHash: '0x' + 'e'.repeat(64),
        transactionIndex: '0x0',
        logIndex: '0x' + (index++).toString(16),
      };
      if (r.removed !== undefined) log.removed = r.removed;
      if (r.noData) delete log.data;
      return log;
    });
  });

const place = (l: Record<string, unknown>) => [Number(l.blockNumber), Number(l.logIndex)] as const;
const outOfOrder = (logs: Record<string, unknown>[]) =>
  logs.some((l, i) => {
    if (i === 0) return false;
    const [[b, x], [pb, px]] = [place(l), place(logs[i - 1]!)];
    return b < pb || (b === pb && x < px);
  });

/** Each log's members in another order. */
const reorder = (logs: Record<string, unknown>[], rank: (i: number) => number) =>
  logs.map((l) =>
    Object.fromEntries(Object.entries(l).sort(([a], [b]) => rank(a.length * 31 + a.charCodeAt(1)) - rank(b.length * 31 + b.charCodeAt(1)))),
  );

describe('scanTokenLogs', () => {
  it('decodes what the JSON path decodes, in any member order and spacing, and leaves the bytes as they were (fast-check)', () => {
    fc.assert(
      fc.property(chainLogs, fc.func(fc.integer()), fc.constantFrom(undefined, 1, 2), (logs, rank, space) => {
        const text = answer(reorder(logs, rank), space);
        const bytes = Buffer.from(text);
        const scanned = scanTokenLogs(bytes);
        expect(scanned).toEqual(jsonPath(text));
        expect(bytes.toString()).toBe(text);
      }),
    );
  });

  it('declines answers out of chain order or with an escaped string, or gives what the JSON path gives (fast-check)', () => {
    fc.assert(
      fc.property(chainLogs, fc.func(fc.integer()), fc.string({ unit: 'binary', maxLength: 6 }), (logs, rank, note) => {
        const shuffled = logs
          .map((l, i) => ({ l, k: rank(i) }))
          .sort((a, b) => a.k - b.k)
          .map((e) => ({ ...e.l, note }));
        const text = answer(shuffled);
        const bytes = Buffer.from(text);
        const scanned = scanTokenLogs(bytes);
        if (scanned !== null) expect(scanned).toEqual(jsonPath(text));
        else expect(text.includes('\\') || outOfOrder(shuffled)).toBe(true);
        expect(bytes.toString()).toBe(text);
      }),
    );
  });

  const transfer = {
    address: '0x' + '1'.repeat(40),
    topics: [TOPIC.transfer, topic(0), topic(5), topic(9)],
    data: '0x',
    blockHash: '0x' + 'b'.repeat(64),
    blockNumber: '0x3',
    logIndex: '0x0',
  };
  it.each([
    ['an error answer', '[{"jsonrpc":"2.0","id":0,"error":{"code":-32005,"message":"query returned more than 10000 results"}}]'],
    ['an answer that is not a batch', JSON.stringify({ jsonrpc: '2.0', id: 0, result: [transfer] })],
    ['an HTML page', '<html><body>413 Request Entity Too Large</body></html>'],
    ['a cut answer', answer([transfer, transfer]).slice(0, 400)],
    ['text after the answer', answer([transfer]) + ' x'],
    ['a result that is not a list', '[{"jsonrpc":"2.0","id":0,"result":null}]'],
    ['a log without a block hash', answer([{ ...transfer, blockHash: undefined }])],
    ['a log with a nested object', answer([{ ...transfer, extra: { a: 1 } }])],
    ['a log marked removed by a string', answer([{ ...transfer, removed: 'yes' }])],
    ['two logs out of order', answer([{ ...transfer, logIndex: '0x1' }, transfer])],
    ['an escaped quote in a member it skips', answer([{ ...transfer, note: 'say "hi"' }])],
  ])('declines %s', (_, text) => {
    expect(scanTokenLogs(Buffer.from(text))).toBeNull();
  });

  it('counts the logs and the most in one block, removed and ERC-20 logs included', () => {
    const erc20 = { ...transfer, topics: transfer.topics.slice(0, 3) };
    const logs = [
      transfer,
      { ...erc20, logIndex: '0x1' },
      { ...transfer, logIndex: '0x2', removed: true },
      { ...transfer, blockNumber: '0x4' },
    ];
    const scanned = scanTokenLogs(Buffer.from(answer(logs)));
    expect(scanned).toMatchObject({ count: 4, densest: 3 });
    expect(scanned!.decoded.moves.map((m) => [m.block, m.logIndex, m.to.slice(-1), m.id])).toEqual([
      [3, 0, '5', 9n],
      [4, 0, '5', 9n],
    ]);
    expect(scanTokenLogs(Buffer.from(answer([])))).toEqual(jsonPath(answer([])));
  });
});
