// Writes one network's SQLite index on a worker thread (indexer-write-worker.ts) with a connection of its own, so a
// catch-up's writes (a 10,000-move range holds its thread ~0.5 s) never block the main thread, which answers every
// network's listing, tracker and webhooks. The indexer's loop talks to it as to any IndexStore.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../../lib/log.js';
import type { Db } from '../../../lib/sqlite.js';
import { tokenKeys } from '../../listing/listing-writer.js';
import { createIndexLookups } from '../../listing/sqlite/listing-lookups-sqlite.js';
import type { Batch } from '../indexer-apply.js';
import { packLogs, sealedBuffers, unsealBatch, type PackedLogs } from '../indexer-part-wire.js';
import { receiveError, type SentError } from '../indexer-read-thread.js';
import type { IndexStore } from '../indexer-store.js';

/** The store's operations that cross to the thread: every one of IndexStore's that writes or reads the index. */
export type WriteOp =
  | 'tip'
  | 'storedHash'
  | 'checkpointsBelow'
  | 'apply'
  | 'rollback'
  | 'writeUris'
  | 'metadataTargets'
  | 'truncated'
  | 'pruneCheckpoints'
  | 'catchingUp'
  | 'close';

/**
 * A batch as it crosses: its moves as columns (indexer-part-wire.ts), whose buffer is handed over, not copied; or,
 * read on the reader thread, its parts sealed there (`sealed`), passed on without being opened on this thread.
 */
export type WireBatch = Omit<Batch, 'logs'> & { logs: PackedLogs | null };

export interface WriteRequest {
  req: number;
  op: WriteOp;
  args: unknown[];
}

/** The thread's answer to a request (in the order asked), or a line for the indexer's log. */
export type WriteReply =
  | { type: 'done'; req: number; value: unknown }
  | { type: 'failed'; req: number; error: SentError }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string };

export interface WriteWorkerData {
  file: string;
  bucketSize?: number;
  checkpointEveryMoves?: number;
}

const WORKER_FILE = new URL('./indexer-write-worker.js', import.meta.url);
/** Thread failures in a row (no answer in between) after which the index is written on the calling thread again. */
const WORKER_FAILURES = 3;

/**
 * The index in `db`'s file, written on a thread of its own; null when the thread cannot run (an in-memory database,
 * or sources run without a build, as under vitest): the caller writes on its own thread then. A thread that fails is
 * started again by the next call; the call in flight fails, and the indexer's loop goes on from the committed tip.
 * After WORKER_FAILURES failures in a row (a packaged app that cannot load the file, say) the store `openHere` opens,
 * the same index on the calling thread's connection, takes the calls.
 */
export function startWriteThread(
  db: Db,
  options: Omit<WriteWorkerData, 'file'>,
  openHere: () => IndexStore,
  log: Logger,
): (IndexStore & { close(): Promise<void> }) | null {
  const file = db.name;
  if (!file || file === ':memory:' || !existsSync(fileURLToPath(WORKER_FILE))) return null;
  // The read-ahead's questions are answered on this thread from what the writer has committed (as the reader thread's).
  const index = createIndexLookups(db);
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let worker: Worker | null = null;
  let seq = 0;
  let closed = false;
  let failures = 0;
  let here: IndexStore | null = null;
  const onCallingThread = () => (failures >= WORKER_FAILURES ? (here ??= openHere()) : null);

  function onReply(m: WriteReply): void {
    if (m.type === 'log') return void log[m.level](m.message);
    failures = 0;
    const p = pending.get(m.req);
    pending.delete(m.req);
    if (m.type === 'done') p?.resolve(m.value);
    else p?.reject(receiveError(m.error));
  }

  function ensureWorker(): Worker {
    if (worker) return worker;
    const w = new Worker(WORKER_FILE, { workerData: { file, ...options } satisfies WriteWorkerData });
    w.on('message', onReply);
    w.on('error', (e) => {
      if (closed) return;
      failures++;
      log.warn(
        failures < WORKER_FAILURES
          ? `index writer thread failed (starting it again on the next write): ${e.message}`
          : `index writer thread failed ${failures} times in a row; writing on the main thread from now on: ${e.message}`,
      );
    });
    w.on('exit', () => {
      if (worker === w) worker = null;
      for (const p of pending.values()) p.reject(new Error('the index writer thread stopped'));
      pending.clear();
    });
    worker = w;
    return w;
  }

  function call<T>(op: Exclude<WriteOp, 'apply'>, args: unknown[] = []): Promise<T> {
    const direct = op === 'close' ? null : onCallingThread();
    // catchingUp answers nothing there: every call becomes a promise alike.
    const method = direct?.[op as Exclude<WriteOp, 'apply' | 'close'>] as ((...a: unknown[]) => T | Promise<T>) | undefined;
    if (direct) return new Promise<T>((resolve) => resolve(method!.call(direct, ...args)));
    return send(op, args, []);
  }

  function send<T>(op: WriteOp, args: unknown[], transfer: ArrayBuffer[]): Promise<T> {
    if (closed) return Promise.reject(new Error('The index writer thread is closed.'));
    const req = ++seq;
    return new Promise<T>((resolve, reject) => {
      pending.set(req, { resolve: resolve as (v: unknown) => void, reject });
      try {
        ensureWorker().postMessage({ req, op, args } satisfies WriteRequest, transfer);
      } catch (e) {
        // The thread cannot start here: count it as a failure.
        failures++;
        pending.delete(req);
        reject(e as Error);
      }
    });
  }

  // Housekeeping whose outcome the loop does not wait for: a failure is logged, and the next write goes on.
  const tell = (op: 'catchingUp', args: unknown[]) =>
    void call(op, args).catch((e) => log.warn(`index ${op} failed: ${(e as Error).message}`));

  return {
    readerFile: file,
    lookups: {
      contractOf: (address) => index.contract(address),
      idKnown: (c, id) => index.idKnown(c.id, tokenKeys(c.addr, id).kId),
    },
    tip: () => call('tip'),
    storedHash: (block) => call('storedHash', [block]),
    checkpointsBelow: (below, limit) => call('checkpointsBelow', [below, limit]),
    apply(batch, tip) {
      const direct = onCallingThread();
      if (direct) return direct.apply(unsealBatch(batch), tip);
      // Sealed parts cross as they came from the reader thread (the main thread never opens them); moves read here
      // (the reader thread booting or given up) are packed.
      if (batch.sealed && batch.logs.length === 0) {
        return send('apply', [{ ...batch, logs: null } satisfies WireBatch, tip], sealedBuffers(batch.sealed));
      }
      const plain = unsealBatch(batch);
      const logs = packLogs(plain.logs);
      return send('apply', [{ ...plain, logs } satisfies WireBatch, tip], [logs.cols.buffer as ArrayBuffer]);
    },
    rollback: (ancestor, tip) => call('rollback', [ancestor, tip]),
    writeUris: (missing, uris) => call('writeUris', [missing, uris]),
    metadataTargets: (updates) => call('metadataTargets', [updates]),
    truncated: () => call('truncated'),
    pruneCheckpoints: (tip) => call('pruneCheckpoints', [tip]),
    catchingUp: (behind) => tell('catchingUp', [behind]),
    async close() {
      if (closed) return;
      // The checkpoint owed at the stop runs to its end on the thread before the thread goes.
      if (worker) await call('close').catch((e) => log.warn(`closing the index writer thread: ${(e as Error).message}`));
      closed = true;
      const w = worker;
      worker = null;
      if (w) await w.terminate();
    },
  };
}
