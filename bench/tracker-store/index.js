// bench/tracker-store: storing one block's receipts the way the chain watcher does (1,000 receipt messages for one
// subscribed client, in chunks of 100, each chunk one commitRound) on the SQLite store and on a throwaway PostgreSQL,
// in the same run; PostgreSQL is reported as a multiple of SQLite. This is the write that must commit before a
// receipt is pushed, so it sits on the tracker's latency path. Usage: node bench/tracker-store/index.js [--rounds 30]
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../dist/lib/sqlite.js';
import { openPgPool } from '../../dist/service/db/pg-pool.js';
import { openPostgresTrackerStore } from '../../dist/service/tracker/postgres/tracker-store-postgres.js';
import { openSqliteTrackerStore } from '../../dist/service/tracker/sqlite/tracker-store-sqlite.js';
import { startThrowawayPostgres } from '../lib/throwaway-postgres.js';

const i = process.argv.indexOf('--rounds');
const ROUNDS = i >= 0 ? Number(process.argv[i + 1]) : 30;
const RECEIPT = {
  blockHash: '0x' + '2'.repeat(64),
  blockNumber: 5,
  transactionIndex: 0,
  from: '0x' + '3'.repeat(40),
  to: '0x' + '4'.repeat(40),
  contractAddress: null,
  gasUsed: 21000,
  cumulativeGasUsed: 21000,
  effectiveGasPrice: '1000000000',
  status: 1,
  type: 2,
  logs: [],
};

/** ms per 1,000 receipts stored in 10 chunks: median, min and max over ROUNDS blocks. */
async function measure(store) {
  await store.subscribe('c', 's', 60_000, 0);
  const times = [];
  for (let round = 0; round < ROUNDS; round++) {
    const states = [];
    for (let n = 0; n < 1000; n++) states.push((await store.track('c', '0x' + randomBytes(32).toString('hex'), 1, 60_000, 1)).state);
    const t0 = performance.now();
    for (let c = 0; c < 1000; c += 100) {
      const chunk = states.slice(c, c + 100).map((s) => ({ ...s, receipt: { ...RECEIPT, transactionHash: s.txHash } }));
      await store.commitRound(
        chunk,
        [],
        chunk.map((s) => ({
          clientId: 'c',
          txHash: s.txHash,
          type: 'receipt',
          payload: JSON.stringify({ type: 'receipt', result: s.receipt }),
        })),
        2,
      );
    }
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], min: times[0], max: times.at(-1) };
}

const line = (name, r) =>
  `store    ${name}: 1,000 receipts in 10 chunks, median ${r.median.toFixed(1)} ms (min ${r.min.toFixed(1)}, max ${r.max.toFixed(1)}) over ${ROUNDS} blocks`;
const dir = mkdtempSync(join(tmpdir(), 'txdesk-bench-tracker-store-'));
const db = openDatabase(join(dir, 'tracker.db'));
const sqlite = await measure(openSqliteTrackerStore(db)).finally(() => db.close());
rmSync(dir, { recursive: true, force: true });
console.log(line('SQLite (baseline)', sqlite));
const pg = await startThrowawayPostgres('tracker_store');
const pool = openPgPool(pg.url);
try {
  const onPg = await measure(await openPostgresTrackerStore(pool, 'bench'));
  console.log(`${line('PostgreSQL', onPg)}: ${(onPg.median / sqlite.median).toFixed(2)}x SQLite`);
} finally {
  await pool.end();
  await pg.stop();
}
