// Worker thread entry of the index writer (see indexer-write-thread.ts): the SQLite index store on a connection of its
// own, each request run in the order it came, its WAL checkpoints on a checkpoint thread of its own as before.
import { parentPort, workerData } from 'node:worker_threads';
import type { Logger } from '../../../lib/log.js';
import { openDatabase } from '../../../lib/sqlite.js';
import { startCheckpointer } from '../../../lib/sqlite-checkpointer.js';
import { LISTING_SCHEMA_STEPS } from '../../listing/sqlite/listing-schema-sqlite.js';
import { unpackLogs, unsealBatch } from '../indexer-part-wire.js';
import { sendError } from '../indexer-read-thread.js';
import type { IndexStore } from '../indexer-store.js';
import { openSqliteIndexStore } from './indexer-store-sqlite.js';
import type { WireBatch, WriteReply, WriteRequest, WriteWorkerData } from './indexer-write-thread.js';

const { file, bucketSize, checkpointEveryMoves } = workerData as WriteWorkerData;
const port = parentPort!;
const reply = (m: WriteReply) => port.postMessage(m);
const log: Logger = {
  info: (message) => reply({ type: 'log', level: 'info', message }),
  warn: (message) => reply({ type: 'log', level: 'warn', message }),
  error: (message) => reply({ type: 'log', level: 'error', message }),
  child: () => log,
};
// The main thread opened and migrated the file already; this connection only writes.
const db = openDatabase(file);
const store = openSqliteIndexStore(db, LISTING_SCHEMA_STEPS, bucketSize, checkpointEveryMoves);
const checkpointer = startCheckpointer(file, log);
store.useCheckpointer?.(checkpointer);

async function run(op: WriteRequest['op'], args: unknown[]): Promise<unknown> {
  const s = store as Required<IndexStore>;
  switch (op) {
    case 'apply': {
      const [wire, tip] = args as [WireBatch, number];
      return s.apply(unsealBatch({ ...wire, logs: wire.logs ? unpackLogs(wire.logs) : [] }), tip);
    }
    case 'catchingUp':
      return s.catchingUp(args[0] as boolean);
    case 'close':
      s.catchingUp(false);
      s.useCheckpointer(null);
      await checkpointer?.stop();
      db.close();
      return undefined;
    default:
      return (s[op] as (...a: unknown[]) => Promise<unknown>)(...args);
  }
}

// One request at a time, in order: a write and the reads after it see the index as the loop expects.
let queue: Promise<void> = Promise.resolve();
port.on('message', (r: WriteRequest) => {
  queue = queue.then(() =>
    run(r.op, r.args).then(
      (value) => reply({ type: 'done', req: r.req, value }),
      (e) => reply({ type: 'failed', req: r.req, error: sendError(e) }),
    ),
  );
});
