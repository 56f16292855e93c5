// The indexer's write path alone (decoded ranges into a file database, no node): the ceiling the node reads sit under.
// Ranges go through the indexer's own store, told that more follow as a catch-up does (WAL checkpoints held alike, the
// owed ones run on their thread).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../dist/lib/sqlite.js';
import { startCheckpointer } from '../../dist/lib/sqlite-checkpointer.js';
import { sqliteIndexStore } from '../../dist/service/backend.js';

const ZERO = '0x' + '0'.repeat(40);
const silent = { info() {}, warn() {}, error() {}, child: () => silent };
const CONTRACT = '0x' + 'c'.repeat(40);
const owner = (i) => '0x' + (0x100000 + i).toString(16).padStart(40, '0');

/** Same shape as the chain benchmark: `n` mints then `n` transfers over `owners` owners, `perRange` per range. */
export async function measureWritePath(n, owners, perRange) {
  const dir = mkdtempSync(join(tmpdir(), 'txdesk-bench-write-'));
  const db = openDatabase(join(dir, 'index.db'));
  try {
    const store = sqliteIndexStore(db);
    // As in a catch-up: the owed checkpoints run on their thread (TXDESK_BENCH_CHECKPOINT_THREAD=0: on the writer's).
    const checkpointer = process.env.TXDESK_BENCH_CHECKPOINT_THREAD === '0' ? null : startCheckpointer(db.name, silent);
    store.useCheckpointer(checkpointer);
    const meta = new Map([[CONTRACT, { name: 'Bench', symbol: 'BEN', totalSupply: null, hasUri: true, standard: 'ERC721' }]]);
    let tip = 0;
    const run = async (firstBlock, make) => {
      const t = performance.now();
      for (let start = 0, b = firstBlock; start < n; start += perRange, b++) {
        const logs = [];
        for (let i = start; i < Math.min(n, start + perRange); i++)
          logs.push({ block: b, logIndex: i - start, blockHash: '0x', contract: CONTRACT, id: BigInt(i), ...make(i) });
        const uris = new Map([[CONTRACT, new Map(logs.map((l) => [l.id, 'ipfs://bench']))]]);
        await store.apply({ from: b, to: b, headers: [], logs, newContracts: b === 1 ? meta : new Map(), uris, supplies: new Map() }, tip);
        tip = b;
        store.catchingUp(start + perRange < n);
      }
      return n / ((performance.now() - t) / 1000);
    };
    const mints = await run(1, (i) => ({ from: ZERO, to: owner(i % owners) }));
    const moves = await run(1_000_000, (i) => ({ from: owner(i % owners), to: owner((i + 7) % owners) }));
    await checkpointer?.stop();
    return { mints, moves };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
