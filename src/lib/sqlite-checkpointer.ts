// Runs WAL checkpoints of a SQLite file on a worker thread with a connection of its own, so a writer that owes one
// (after holding them over a catch-up) goes on writing while the log is copied into the database file and synced.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from './log.js';
import type { Db } from './sqlite.js';

export interface Checkpointer {
  /** False once the thread failed: the caller checkpoints on its own connection then. */
  readonly usable: boolean;
  /** Asks for a PASSIVE checkpoint; requests made while one runs are served together by one more run after it. */
  request(): void;
  /** Resolves once every checkpoint requested so far has run or failed (a failure is logged, not thrown). */
  idle(): Promise<void>;
  /** Checkpoints run on the thread so far. */
  readonly runs: number;
  /** Waits for the checkpoints requested so far, then ends the thread. */
  stop(): Promise<void>;
}

/** What the worker is told: the file to open. It answers each request with `{ ok }` or `{ error }`. */
export interface CheckpointWorkerData {
  file: string;
}
export type CheckpointReply = { ok: true } | { ok: false; error: string };

const WORKER_FILE = new URL('./sqlite-checkpoint-worker.js', import.meta.url);

/**
 * Starts the checkpoint thread for `file`, or returns null when it cannot run: an in-memory database, or sources run
 * without a build (the compiled worker file is absent, as under vitest).
 */
export function startCheckpointer(file: string, log: Logger): Checkpointer | null {
  if (!file || file === ':memory:' || !existsSync(fileURLToPath(WORKER_FILE))) return null;
  let worker: Worker | null = new Worker(WORKER_FILE, { workerData: { file } satisfies CheckpointWorkerData });
  // The thread never keeps the process alive: an owed checkpoint is housekeeping, the writes are committed already.
  worker.unref();
  let usable = true;
  let running = false;
  let again = false;
  let runs = 0;
  let waiters: (() => void)[] = [];

  const settle = () => {
    if (running || again) return;
    for (const w of waiters.splice(0)) w();
  };
  const fail = (why: string) => {
    if (!usable) return;
    usable = false;
    running = false;
    again = false;
    worker = null;
    log.warn(`the WAL checkpoint thread failed; the writer checkpoints on its own connection from now on: ${why}`);
    settle();
  };
  const run = () => {
    if (!worker) return;
    running = true;
    again = false;
    worker.postMessage(null);
  };

  worker.on('message', (m: CheckpointReply) => {
    running = false;
    runs++;
    // A checkpoint that fails (a full disk) is tried again at the next request; the writes stay in the WAL meanwhile.
    if (!m.ok) log.warn(`WAL checkpoint failed (tried again at the next one; is the disk full?): ${m.error}`);
    if (again) run();
    settle();
  });
  worker.on('error', (e) => fail(e.message));
  worker.on('exit', () => fail('the thread exited'));

  const idle = (): Promise<void> => (!running && !again ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve)));

  return {
    get usable() {
      return usable;
    },
    get runs() {
      return runs;
    },
    request() {
      if (!usable) return;
      if (running) again = true;
      else run();
    },
    idle,
    async stop() {
      await idle();
      const w = worker;
      usable = false;
      worker = null;
      waiters = [];
      await w?.terminate();
    },
  };
}

/**
 * The owed checkpoints of a connection on the main thread (deferCheckpoints' `runOwed`), run on a checkpoint thread for
 * `file` started at the first one: a process that never owes one starts no thread. A PASSIVE checkpoint on the main
 * thread held it 20-30 ms whenever a tracker round wrote while another network's catch-up kept the box busy. Where no
 * thread can run (an in-memory file, sources without a build) or the thread failed, the checkpoint runs here.
 */
export function checkpointsOnThread(
  file: string,
  log: Logger,
): { runOwed(db: Db): void; readonly thread: Checkpointer | null; stop(): Promise<void> } {
  let thread: Checkpointer | null | undefined;
  return {
    /** The thread once the first owed checkpoint started it (null before, and when it cannot run). */
    get thread() {
      return thread ?? null;
    },
    runOwed(db) {
      if (thread === undefined) thread = startCheckpointer(file, log);
      if (thread?.usable) thread.request();
      else db.pragma('wal_checkpoint(PASSIVE)');
    },
    stop: async () => {
      await thread?.stop();
      thread = null;
    },
  };
}
