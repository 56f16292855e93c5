// bench/indexer/part-crossing.js: the CPU each thread spends on one 10,000-mint part crossing from the reader thread
// through the main thread to the writer thread, opened on the main thread (unpacked, then packed again for the writer)
// against sealed (indexer-part-wire.ts, sealRange: handed on unopened), alternating in the same run; medians of 11.
// The structured copy of a message is v8.serialize/deserialize here (the same serializer; buffers copied rather than
// handed over, which counts against both alike). Usage: node bench/indexer/part-crossing.js (after npm run build).
import { cpus, loadavg } from 'node:os';
import { deserialize, serialize } from 'node:v8';
import { fromWire, packLogs, sealRange, toWire, unpackLogs, unsealBatch } from '../../dist/service/indexer/indexer-part-wire.js';

const N = 10_000;
const ROUNDS = 11;
const hex = (n, l) => '0x' + n.toString(16).padStart(l, '0');
/** One part as the reader thread reads it: N mints of one contract to 5,000 owners, with a uri each. */
function part() {
  const logs = Array.from({ length: N }, (_, i) => ({
    block: 100,
    logIndex: i,
    sub: 0,
    blockHash: hex(77, 64),
    contract: hex(5, 40),
    from: hex(0, 40),
    to: hex(0x100000 + (i % 5000), 40),
    id: BigInt(i + 1),
    amount: null,
  }));
  return {
    from: 100,
    to: 100,
    logs,
    blocks: logs.map((l) => ({ block: l.block, blockHash: l.blockHash })),
    newContracts: new Map(),
    uris: new Map([[hex(5, 40), new Map(logs.map((l) => [l.id, `https://example.com/meta/${l.id}`]))]]),
    supplies: new Map(),
    uriEvents: [],
    metadataUpdates: [],
    truncated: [],
    timing: { logsMs: 0, metadataMs: 0 },
  };
}
/** CPU ms of `f` (this process has one thread busy: it is the thread's) and its result. */
const cpu = (f) => {
  const c0 = process.cpuUsage();
  const r = f();
  const c = process.cpuUsage(c0);
  return [(c.user + c.system) / 1000, r];
};
const ways = {
  opened(read) {
    const [reader, sent] = cpu(() => serialize(toWire(read)));
    const [main1, range] = cpu(() => fromWire(deserialize(sent)));
    const [main2, forWriter] = cpu(() => serialize({ ...range, logs: packLogs(range.logs) }));
    const [writer, logs] = cpu(() => unpackLogs(deserialize(forWriter).logs));
    return { reader, main: main1 + main2, writer, moves: logs.length };
  },
  sealed(read) {
    const [reader, sent] = cpu(() => serialize(toWire(sealRange(read))));
    const [main1, range] = cpu(() => fromWire(deserialize(sent)));
    const [main2, forWriter] = cpu(() => serialize({ ...range, logs: null }));
    const [writer, batch] = cpu(() => unsealBatch({ ...deserialize(forWriter), logs: [] }));
    return { reader, main: main1 + main2, writer, moves: batch.logs.length };
  },
};
const seen = { opened: [], sealed: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const way of ['opened', 'sealed']) {
    const m = ways[way](part());
    if (m.moves !== N) throw new Error(`${way}: ${m.moves} moves arrived, not ${N}`);
    seen[way].push(m);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const of = (way, thread) => median(seen[way].map((m) => m[thread]));
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} on ${cpus().length} cores; one part of ${N} mints, medians of ${ROUNDS}`,
);
for (const thread of ['reader', 'main', 'writer']) {
  const [a, b] = [of('opened', thread), of('sealed', thread)];
  console.log(
    `${thread.padEnd(6)} thread: opened ${a.toFixed(1)} ms, sealed ${b.toFixed(1)} ms, ratio sealed/opened ${(b / a).toFixed(2)}`,
  );
}
