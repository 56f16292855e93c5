// bench/tracker-track: how fast the chain watcher takes on new hashes one by one while many others are open, against
// the same with none open, in the same run. Each tracked hash starts a watcher round; a round that scanned every open
// tracking made this rate fall with the number open (~500 hashes/s with 100,000 open). The node is a scripted one that
// has seen none of the hashes (no network, no anvil): the figure is the watcher's and the store's own cost.
// Usage: node bench/tracker-track/index.js [--open 100000] [--added 5000]
import { randomBytes } from 'node:crypto';
import { silentLogger } from '../../dist/lib/log.js';
import { openDatabase } from '../../dist/lib/sqlite.js';
import { createTrackerEngine } from '../../dist/service/tracker/tracker-engine.js';
import { openSqliteTrackerStore } from '../../dist/service/tracker/sqlite/tracker-store-sqlite.js';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const OPEN = arg('open', 100_000);
const ADDED = arg('added', 5_000);
const randomHash = () => `0x${randomBytes(32).toString('hex')}`;

/** A node at block 1 that knows none of the hashes. */
const scriptedNode = {
  async call(method) {
    if (method === 'eth_getBlockByNumber')
      return { number: '0x1', hash: '0x' + '1'.repeat(64), parentHash: '0x' + '0'.repeat(64), transactions: [] };
    if (method === 'eth_blockNumber') return '0x1';
    return null;
  },
  async batch(calls, onChunk) {
    const out = calls.map(() => ({ ok: true, result: null }));
    onChunk?.(0, out);
    return out;
  },
  subscribeHeads: () => () => {},
  close() {},
};

/** Hashes tracked per second, `ADDED` one after the other, with `open` other trackings already held. */
async function trackRate(open) {
  const db = openDatabase(':memory:');
  const store = openSqliteTrackerStore(db);
  // A long timeout: no `pending` falls due, so the rounds do only what a new hash asks for.
  const engine = createTrackerEngine({ store, rpc: scriptedNode, log: silentLogger, onDeliveries() {} });
  await engine.start();
  try {
    await Promise.all(Array.from({ length: open }, () => engine.track('c', randomHash(), 1, 3_600_000)));
    await engine.whenIdle();
    const added = Array.from({ length: ADDED }, randomHash);
    const t0 = performance.now();
    for (const h of added) await engine.track('c', h, 1, 3_600_000);
    await engine.whenIdle();
    return ADDED / ((performance.now() - t0) / 1000);
  } finally {
    await engine.stop();
    db.close();
  }
}

const base = await trackRate(0);
const loaded = await trackRate(OPEN);
console.log(`track    ${ADDED} hashes one by one, none open: ${base.toFixed(0)} hashes/s (baseline)`);
console.log(
  `track    ${ADDED} hashes one by one, ${OPEN} open: ${loaded.toFixed(0)} hashes/s: ${(loaded / base).toFixed(2)}x the baseline`,
);
