// Reads ranges in a worker thread (sqlite/indexer-read-worker.ts): eth_getLogs, JSON parsing, log decoding and metadata calls
// run there, the SQLite writes on the calling thread, so the two use both cores and the requests to the node keep
// flowing while a write blocks the writer's event loop. The worker answers with the same parts prepareRange returns.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../lib/log.js';
import type { PreparedPart, PreparedRange } from './indexer-prepare.js';
import { fromWire, type WireRange } from './indexer-part-wire.js';
import { RpcAnswerError } from './indexer-rpc.js';
import { nodeThrottle } from '../network/node-throttle.js';

/** What the writer asks for: one range, as prepareRange's arguments. */
export interface ReadRequest {
  req: number;
  from: number;
  to: number;
  refreshSupply: string[];
  cap: number;
  partMoves: number;
  /** Seal each part's moves and uris for the writer thread (indexer-part-wire.ts, sealRange): the main thread only passes them on. */
  seal: boolean;
}

/** An error that crossed the thread boundary: the fields the range policy and the logs look at. */
export interface SentError {
  message: string;
  code?: unknown;
  error?: { code: number; message: string };
}

/**
 * What the worker says: that it is ready (once, when its modules are loaded), then per read the parts, each part's
 * reads in order, or why it failed.
 */
export type ReadReply =
  | { type: 'ready' }
  | { type: 'parts'; req: number; parts: Pick<PreparedPart, 'from' | 'to' | 'size'>[] }
  | { type: 'part'; req: number; k: number; range: WireRange; rpc: [string, number][] }
  | { type: 'failed'; req: number; k: number | null; error: SentError };

export interface ReadWorkerData {
  nodeUrl: string;
  dbFile: string;
  /** The node's request budget (node-throttle.ts), shared: the reader's requests and the main thread's count as one. */
  throttleMemory: SharedArrayBuffer;
}

export function sendError(e: unknown): SentError {
  const x = e as { message?: unknown; code?: unknown; error?: { code: number; message: string } } | null;
  return { message: String(x?.message ?? e), ...(x?.code !== undefined ? { code: x.code } : {}), ...(x?.error ? { error: x.error } : {}) };
}

/** The error again on the writer's side: an RpcAnswerError stays one (range refusals are told by its code). */
export function receiveError(s: SentError): Error {
  if (s.error) return new RpcAnswerError(s.error);
  return Object.assign(new Error(s.message), s.code !== undefined ? { code: s.code } : {});
}

export interface RangeReader {
  /** False once the worker failed WORKER_FAILURES times in a row without answering: read on the calling thread then. */
  readonly usable: boolean;
  /**
   * True once the current thread has loaded its modules and can start a read at once (~150-250 ms after it was
   * started here): until then the writer reads on its own thread, which is idle at the start of a catch-up.
   */
  readonly ready: boolean;
  /** Starts the thread now, so that it boots while the first range is read elsewhere. */
  warm(): void;
  /** `seal`: the parts come sealed for the writer thread (PreparedRange.sealed). */
  read(from: number, to: number, refreshSupply: readonly string[], cap: number, partMoves: number, seal?: boolean): Promise<PreparedPart[]>;
  /** JSON-RPC requests by method made by the worker (its latest count). */
  readonly stats: Map<string, number>;
  stop(): Promise<void>;
}

/**
 * Pure: whether a range is read on the writer's thread rather than the reader thread. On the reader thread, while
 * there is a usable one. While it boots (150-250 ms after a start), on the writer's thread if that would idle until
 * the range comes (`idleMeanwhile`) and no other read is under way on either (more would compete with the thread's
 * first read for the cores). Not before a write: the answer would wait for the write to end (a transfer catch-up's
 * second range waited ~250 ms so, traced), where the thread reads it as soon as it is up.
 */
export function readsHere(
  thread: Pick<RangeReader, 'usable' | 'ready'> | null,
  idleMeanwhile: boolean,
  reading: { here: number; thread: number },
): boolean {
  if (thread === null || !thread.usable) return true;
  return idleMeanwhile && !thread.ready && reading.here === 0 && reading.thread === 0;
}

const WORKER_FILE = new URL('./sqlite/indexer-read-worker.js', import.meta.url);
/** Worker failures in a row (no answer in between) after which the reader gives up on the thread. */
const WORKER_FAILURES = 3;

/**
 * Starts the reader thread, or returns null when it cannot run: an in-memory database (the worker needs its own
 * connection to the file), or sources run without a build (the compiled worker file is absent, as under vitest).
 */
export function startReadThread(nodeUrl: string, dbFile: string, log: Logger): RangeReader | null {
  if (!dbFile || dbFile === ':memory:' || !existsSync(fileURLToPath(WORKER_FILE))) return null;
  const stats = new Map<string, number>();
  type Pending = {
    parts: { resolve: (p: PreparedPart[]) => void; reject: (e: Error) => void };
    results: { resolve: (r: PreparedRange) => void; reject: (e: Error) => void }[];
    /** Parts not answered yet; the request is forgotten once every part is. */
    left: number;
  };
  const pending = new Map<number, Pending>();
  let worker: Worker | null = null;
  let seq = 0;
  let stopped = false;
  let failures = 0;
  let ready = false;

  const failAll = (e: Error) => {
    for (const p of pending.values()) {
      p.parts.reject(e);
      for (const r of p.results) r.reject(e);
    }
    pending.clear();
  };

  function onReply(m: ReadReply): void {
    if (m.type === 'ready') {
      ready = true;
      return;
    }
    failures = 0;
    const p = pending.get(m.req);
    if (!p) return;
    if (m.type === 'parts') {
      const parts = m.parts.map((cut) => {
        let settle!: Pending['results'][number];
        const result = new Promise<PreparedRange>((resolve, reject) => (settle = { resolve, reject }));
        p.results.push(settle);
        return { ...cut, result };
      });
      p.left = parts.length;
      p.parts.resolve(parts);
      return;
    }
    if (m.type === 'part') for (const [method, n] of m.rpc) stats.set(method, n);
    if (m.type === 'part') p.results[m.k]?.resolve(fromWire(m.range));
    else if (m.k !== null) p.results[m.k]?.reject(receiveError(m.error));
    else p.parts.reject(receiveError(m.error));
    if (m.k === null || --p.left === 0) pending.delete(m.req);
  }

  function ensureWorker(): Worker {
    if (worker) return worker;
    const w = new Worker(WORKER_FILE, {
      workerData: { nodeUrl, dbFile, throttleMemory: nodeThrottle(nodeUrl).memory } satisfies ReadWorkerData,
    });
    w.on('message', onReply);
    w.on('error', (e) => {
      if (stopped) return;
      failures++;
      log.warn(
        failures < WORKER_FAILURES
          ? `indexer reader thread failed (restarting it on the next read): ${e.message}`
          : `indexer reader thread failed ${failures} times in a row; reading on the main thread from now on: ${e.message}`,
      );
    });
    w.on('exit', () => {
      if (worker === w) {
        worker = null;
        ready = false;
      }
      failAll(new Error('the indexer reader thread stopped'));
    });
    worker = w;
    return w;
  }

  return {
    stats,
    get usable() {
      return !stopped && failures < WORKER_FAILURES;
    },
    get ready() {
      return ready && worker !== null;
    },
    warm() {
      if (stopped || worker) return;
      try {
        ensureWorker();
      } catch {
        // A thread that cannot start fails the first read instead, which counts it (see read).
      }
    },
    read(from, to, refreshSupply, cap, partMoves, seal = false) {
      if (stopped) return Promise.reject(new Error('The indexer is stopped.'));
      const req = ++seq;
      return new Promise<PreparedPart[]>((resolve, reject) => {
        pending.set(req, { parts: { resolve, reject }, results: [], left: 0 });
        try {
          ensureWorker().postMessage({ req, from, to, refreshSupply: [...refreshSupply], cap, partMoves, seal } satisfies ReadRequest);
        } catch (e) {
          // The thread cannot start here (e.g. a packaged app that cannot load the file): count it as a failure.
          failures++;
          pending.delete(req);
          reject(e as Error);
        }
      });
    },
    async stop() {
      stopped = true;
      const w = worker;
      worker = null;
      // Requests in flight are dropped with the thread, as the in-thread reader aborts them.
      if (w) await w.terminate();
      failAll(new Error('The indexer is stopped.'));
    },
  };
}
