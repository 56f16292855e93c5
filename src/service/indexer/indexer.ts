// The ERC-721 indexer: follows a node over JSON-RPC, `confirmations` blocks behind its head, into the listing index.
import type { Logger } from '../../lib/log.js';
import type { Db } from '../../lib/sqlite.js';
import { startCheckpointer } from '../../lib/sqlite-checkpointer.js';
import type { Batch, MissingUri } from './indexer-apply.js';
import { CONSECUTIVE_CAP } from './indexer-events.js';
import { readUris } from './indexer-metadata.js';
import { PART_MOVES, prepareRange, type PreparedPart, type PreparedRange } from './indexer-prepare.js';
import { createProgress, type ProgressOut } from './indexer-progress.js';
import { readsHere, startReadThread, type RangeReader } from './indexer-read-thread.js';
import { DEFAULT_RANGE_POLICY, firstSpan, isRangeRefusal, spanAfterAnswer, spanAfterRefusal, type RangePolicy } from './indexer-range.js';
import { commonAncestor } from './indexer-reorg.js';
import { endsAgree, JOIN_MOVES, joinParts, partsToJoin, type ReadyPart } from './indexer-join.js';
import { moveCount } from './indexer-part-wire.js';
import { createChainReader, type BlockHeader, type ChainReader } from './indexer-rpc.js';
import type { IndexStore, TruncatedRow } from './indexer-store.js';
import { sqliteIndexStore } from '../backend.js';

export interface IndexerOptions {
  /** A SQLite index (the default store), or `store`. */
  db?: Db;
  /** Where the index lives when not in `db` (the PostgreSQL store of a fleet, postgres/indexer-store-postgres.ts). */
  store?: IndexStore;
  nodeUrl: string;
  confirmations: number;
  log: Logger;
  /**
   * Blocks asked for by the first eth_getLogs; later ranges adapt to the node (default 1: the span doubles while
   * answers are light, so a catch-up over dense blocks starts writing after a few blocks' logs, not after one huge read).
   */
  batchSize?: number;
  /** How often to look for a new head when caught up (default 400 ms). */
  pollMs?: number;
  /** First block to index when the index is empty (default 0). */
  startBlock?: number;
  /** Entries per counted bucket (default 256); tests use tiny buckets to exercise splits and merges. */
  bucketSize?: number;
  /** Where catch-up progress goes when it is a TTY (default stderr). */
  progressOut?: ProgressOut;
  rangePolicy?: RangePolicy;
  /** Tokens indexed per EIP-2309 ConsecutiveTransfer event (default CONSECUTIVE_CAP, 50,000). */
  consecutiveCap?: number;
  /** Moves per written part of a range read (default PART_MOVES, 10,000); tests use tiny parts. */
  partMoves?: number;
  /** Moves one write of parts read already holds at most (default JOIN_MOVES, 10,000, one full part); 0 writes every part alone. */
  joinMoves?: number;
  /**
   * Read ranges in a worker thread (default true; it needs a database file and the compiled worker, else ranges are
   * read on the calling thread, as with false).
   */
  readerThread?: boolean;
  /**
   * Write the index on a thread of its own (default true; SQLite with a database file and the compiled worker, else
   * on the calling thread, as with false): a catch-up then never blocks the calling thread for more than a few ms.
   */
  writerThread?: boolean;
}

/** EIP-2309 ranges longer than the cap: how many, and the newest few (reported on /health). */
export interface TruncatedRanges {
  count: number;
  cap: number;
  latest: TruncatedRow[];
}

export interface IndexerStats {
  /** Transfers indexed since start. */
  transfers: number;
  /** JSON-RPC requests by method since start. */
  rpc: Record<string, number>;
  reorgs: number;
  /** First block this run asked eth_getLogs for (null until it did). */
  firstRangeStart: number | null;
  /**
   * Milliseconds: reading logs and metadata (these overlap with writing, as the next range is read ahead), waiting
   * for them with nothing else to do, and writing the index.
   */
  timing: { logsMs: number; metadataMs: number; waitMs: number; writeMs: number };
  /** Whether ranges are read in a worker thread (see IndexerOptions.readerThread). */
  readerThread: boolean;
  /** Whether the index is written on a thread of its own (see IndexerOptions.writerThread). */
  writerThread: boolean;
  /** Ranges read on the reader thread (the first ones of a start are read on the writer's while the thread boots). */
  threadReads: number;
}

export interface Indexer {
  /** Resolves once the index has reached `head - confirmations` for a head read after this call. */
  caughtUp(): Promise<void>;
  status(): { indexedBlock: number; headBlock: number };
  /** EIP-2309 ranges indexed only up to the cap. */
  truncatedRanges(): TruncatedRanges;
  /**
   * Reads the uri of one indexed token (ERC-721 tokenURI, ERC-1155 uri(id)) again, in the background. Resolves false
   * when the index holds no such token, true when the read was started.
   */
  refreshToken(contract: string, id: bigint): Promise<boolean>;
  stats(): IndexerStats;
  stop(): Promise<void>;
}

/** Ranges read ahead of the one being written. */
const READ_AHEAD = 2;

/**
 * A range being read ahead (`parts` resolves once its logs are in), or one part of it (`result`: its metadata too;
 * `headers`: the headers of its ends, read with it so that writing it waits for no round trip).
 */
interface Prepared {
  from: number;
  to: number;
  parts?: Promise<Prepared[]>;
  result?: Promise<PreparedRange>;
  headers?: Promise<(BlockHeader | null)[]>;
  /** Set once `parts` has resolved (a range read) or once `result` and `headers` have (a part). */
  split?: Prepared[];
  ready?: ReadyPart;
}

export function startIndexer(opts: IndexerOptions): Indexer {
  const { confirmations, log } = opts;
  const pollMs = opts.pollMs ?? 400;
  const startBlock = opts.startBlock ?? 0;
  const policy = opts.rangePolicy ?? DEFAULT_RANGE_POLICY;
  const cap = opts.consecutiveCap ?? CONSECUTIVE_CAP;
  if (!opts.store && !opts.db) throw new Error('startIndexer needs a db or a store');
  const opened = opts.store ?? sqliteIndexStore(opts.db!, opts.bucketSize);
  const writeThread = opts.writerThread === false ? null : (opened.onWriteThread?.(log) ?? null);
  const store: IndexStore = writeThread ?? opened;
  const chain: ChainReader = createChainReader(opts.nodeUrl);
  const reader: RangeReader | null =
    opts.readerThread === false || store.readerFile === null ? null : startReadThread(opts.nodeUrl, store.readerFile, log);
  reader?.warm();
  // The checkpoints a catch-up owes run on a thread of their own (indexer-store.ts, OWN_CHECKPOINT_EVERY).
  const checkpointer = store.useCheckpointer && store.readerFile !== null ? startCheckpointer(store.readerFile, log) : null;
  store.useCheckpointer?.(checkpointer);
  const progress = createProgress(opts.progressOut ?? process.stderr);
  let wake: (() => void) | null = null;
  // Everything the loop carries from one step to the next, in one record that the phases of a step read and update.
  const s = {
    // The committed tip: read before the first step and again after a failed write (resync).
    tip: startBlock - 1,
    resync: true,
    // The head as last read, head - confirmations, and the step that read it (caughtUp waiters settle on head reads).
    head: -1,
    target: -1,
    headSeq: 0,
    stepSeq: 0,
    // Blocks per eth_getLogs, following the node's answers and staying below what it refused (indexer-range.ts).
    spans: firstSpan(opts.batchSize ?? 1),
    // Ranges being read ahead, in order; each starts where the previous one ends.
    ahead: [] as Prepared[],
    // Uris to read and store after a write (its tokens first seen through a transfer, ERC-4906 updates). Kept until
    // stored, so a failed read or write is retried at the next step instead of leaving the uri empty for good.
    pendingUris: [] as { missing: MissingUri[]; block: number }[],
    // /health's truncated ranges, read again after a write changed them (and at the next step if that read failed).
    truncated: { count: 0, latest: [] as TruncatedRow[] },
    truncatedStale: true,
    batches: 0,
    announcedCaughtUp: false,
    lastError: '',
    stopped: false,
  };
  const waiters: { seq: number; resolve: () => void; reject: (e: Error) => void }[] = [];
  const pendingSupply = new Set<string>();
  // Range reads under way on this thread and on the reader thread, while there is one (see prepare).
  const reading = { here: 0, thread: 0 };
  const stats = { transfers: 0, reorgs: 0, firstRangeStart: null as number | null, threadReads: 0 };
  const timing = { logsMs: 0, metadataMs: 0, waitMs: 0, writeMs: 0 };

  function settle(seq: number): void {
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (waiters[i]!.seq < seq) waiters.splice(i, 1)[0]!.resolve();
    }
    if (!s.announcedCaughtUp) {
      s.announcedCaughtUp = true;
      log.info(`caught up at block ${s.tip} (head ${s.head}, indexing ${confirmations} blocks behind it)`);
    }
  }

  async function handleReorg(): Promise<void> {
    let below = s.tip;
    let ancestor = startBlock - 1;
    for (;;) {
      const cps = await store.checkpointsBelow(below, 64);
      if (cps.length === 0) break;
      const found = commonAncestor(cps, await chain.headers(cps.map((c) => c.number)));
      if (found !== null) {
        ancestor = found;
        break;
      }
      below = cps[cps.length - 1]!.number - 1;
    }
    for (const a of await store.rollback(ancestor, s.tip)) pendingSupply.add(a);
    // Rows they name may be gone (and their ids reused); the re-indexed range reads its uris again.
    s.pendingUris = [];
    s.truncatedStale = true;
    stats.reorgs++;
    log.warn(`chain reorganisation detected at block ${s.tip}; rolled back to block ${ancestor} and re-indexing from there`);
    s.tip = ancestor;
    s.ahead = [];
    s.target = -1;
  }

  /**
   * Starts reading a range; the promise never rejects unhandled (it is consumed later or dropped after a reorg).
   * `idleMeanwhile`: this thread has nothing to do until the range comes (the step waits for it, or writes nothing
   * before it does).
   */
  function prepare(from: number, to: number, idleMeanwhile: boolean): Prepared {
    stats.firstRangeStart ??= from;
    // With the writes off this thread, so are the reads (a range of 10,000 moves decodes for tens of ms): the first
    // ones wait for the reader thread to boot instead.
    const thread = readsHere(reader, idleMeanwhile && writeThread === null, reading) ? null : reader;
    const here = thread === null;
    // With a writer thread the parts come sealed for it (PreparedRange.sealed): this thread passes their moves on unopened.
    const read = thread
      ? thread.read(from, to, [...pendingSupply], cap, opts.partMoves ?? PART_MOVES, writeThread !== null)
      : prepareRange(chain, store.lookups, from, to, new Set(pendingSupply), cap, opts.partMoves);
    if (!here) stats.threadReads++;
    if (reader !== null) {
      const where = here ? 'here' : 'thread';
      reading[where]++;
      const done = () => void reading[where]--;
      read.then((ps) => Promise.allSettled(ps.map((p) => p.result))).then(done, done);
    }
    // The span follows each read as soon as its logs are counted, not when it is written: by then the ranges read
    // ahead were already asked for with the old span.
    read.then(
      (ps) => {
        const size = ps[0]?.size;
        if (size) s.spans = spanAfterAnswer(s.spans, to - from + 1, size, policy);
      },
      () => {},
    );
    const parts = read.then((ps) => ps.map(withHeaders));
    const prepared: Prepared = { from, to, parts };
    parts.then(
      (ps) => (prepared.split = ps),
      () => {},
    );
    return prepared;
  }

  /**
   * The parts at the front of `ahead` whose reads are done, in order, up to `moves` moves (range reads with known
   * parts opened up only that far, so the ranges read ahead stay READ_AHEAD however fast the reader is).
   */
  function readyParts(moves: number): ReadyPart[] {
    const out: ReadyPart[] = [];
    for (let i = 0; i < s.ahead.length && moves > 0; i++) {
      const a = s.ahead[i]!;
      if (a.split) s.ahead.splice(i--, 1, ...a.split);
      else if (a.ready) {
        out.push(a.ready);
        moves -= moveCount(a.ready.range);
      } else break;
    }
    return out;
  }

  /** A part and the headers of its ends, asked for as soon as its blocks are known. */
  function withHeaders(p: PreparedPart): Prepared {
    const headers = chain.headers(p.from === p.to ? [p.from] : [p.from, p.to]);
    const part: Prepared = { ...p, headers };
    Promise.all([p.result, headers]).then(
      ([range, h]) => (part.ready = { range, headers: h }),
      () => {},
    );
    return part;
  }

  /** One step of the loop, as its phases: each returns what the next needs, or ends the step. */
  async function step(): Promise<'idle' | 'busy'> {
    const seq = ++s.stepSeq;
    await beginStep(seq);
    if (s.target <= s.tip) return atTarget();
    const from = s.tip + 1;
    const taken = await takeRange(from);
    if (taken === 'busy') return 'busy';
    const ends = await joinsChain(from, taken);
    if (!ends) return 'busy';
    const range = await writeRange(gather(from, taken, ends));
    afterWrite(range);
    await refreshTruncated();
    await storePendingUris();
    if (++s.batches % 100 === 0) await store.pruneCheckpoints(s.tip);
    progress.update(s.tip, s.target, moveCount(range));
    // Last: a checkpoint that fails here (the write is committed) fails only the rest of this step.
    store.catchingUp?.(s.tip < s.target);
    if (s.tip >= s.target && s.headSeq === seq) {
      settle(seq);
      return 'idle';
    }
    return 'busy';
  }

  /** Phase 1: the committed tip after a failed write, the work an earlier step left, and the head when it is due. */
  async function beginStep(seq: number): Promise<void> {
    if (s.resync) {
      s.tip = (await store.tip()) ?? startBlock - 1;
      s.resync = false;
      s.ahead = [];
      if (s.stepSeq === 1) log.info(s.tip >= startBlock ? `resuming after block ${s.tip}` : `indexing from block ${startBlock}`);
    }
    await refreshTruncated();
    await storePendingUris();
    // Far behind a head read earlier, go on without asking again: a round trip to a node busy serving the reads
    // ahead cost 50-300 ms per step. The head is read again once the index reaches the target it gave.
    if (s.tip >= s.target) {
      s.head = await chain.blockNumber();
      s.target = s.head - confirmations;
      s.headSeq = seq;
    }
  }

  /** At the target: the stored tip must still be on the chain (else roll back), then the caughtUp waiters settle. */
  async function atTarget(): Promise<'idle' | 'busy'> {
    if (s.tip >= startBlock) {
      const [h] = await chain.headers([s.tip]);
      const stored = await store.storedHash(s.tip);
      if (!h || (stored !== null && h.hash !== stored)) {
        await handleReorg();
        return 'busy';
      }
    }
    // At the head: a hold left by a step that failed after its write is let go here at the latest.
    store.catchingUp?.(false);
    settle(s.headSeq);
    return 'idle';
  }

  /** Phase 2: the next range, read ahead by earlier steps when it still fits, else asked for now. */
  async function takeRange(from: number): Promise<ReadyPart | 'busy'> {
    if (s.ahead[0] && (s.ahead[0].from !== from || s.ahead[0].to > s.target)) s.ahead = [];
    let current = s.ahead.shift() ?? prepare(from, Math.min(s.target, from + s.spans.span - 1), true);
    try {
      const t0 = performance.now();
      if (current.parts) {
        // A range read: write its parts one by one, the later ones' metadata is read meanwhile.
        const parts = await current.parts;
        current = parts[0]!;
        s.ahead.unshift(...parts.slice(1));
      }
      const headersRead = current.headers ?? chain.headers(from === current.to ? [from] : [from, current.to]);
      const range = await current.result!;
      const headers = await headersRead;
      timing.waitMs += performance.now() - t0;
      return { range, headers };
    } catch (e) {
      const blocks = current.to - from + 1;
      if (isRangeRefusal(e) && blocks > policy.min) {
        s.spans = spanAfterRefusal(s.spans, blocks, e, policy);
        log.info(
          `node refused ${blocks} blocks per eth_getLogs; asking for ${s.spans.span}, and for fewer than ${s.spans.refused} from now on`,
        );
        return 'busy';
      }
      throw e;
    }
  }

  /** Phase 3: the headers of the range's ends, when it joins the stored chain and its logs agree with them. */
  async function joinsChain(from: number, { range, headers }: ReadyPart): Promise<BlockHeader[] | null> {
    const to = range.to;
    const [hFrom, hTo] = headers;
    const toHeader = from === to ? hFrom : hTo;
    if (!hFrom || !toHeader) {
      // The node has no such block any more (a shorter chain): read the head again before anything else.
      s.target = -1;
      s.ahead = [];
      return null;
    }
    if (s.tip >= startBlock) {
      const stored = await store.storedHash(s.tip);
      if (stored !== null && hFrom.parentHash !== stored) {
        await handleReorg();
        return null;
      }
    }
    // A log from another version of a range end means the chain moved under us: read the range again.
    if (!endsAgree({ range, headers })) return null;
    return from === to ? [hFrom] : [hFrom, toHeader];
  }

  /** Phase 4: the parts already read join this write (within JOIN_MOVES), and READ_AHEAD more ranges are asked for. */
  function gather(from: number, { range, headers }: ReadyPart, ends: BlockHeader[]): Batch {
    const joinMoves = opts.joinMoves ?? JOIN_MOVES;
    const ready = readyParts(joinMoves - moveCount(range));
    const group = [{ range, headers }, ...ready.slice(0, partsToJoin({ range, headers }, ready, joinMoves))];
    s.ahead.splice(0, group.length - 1);
    for (const p of group) {
      timing.logsMs += p.range.timing.logsMs;
      timing.metadataMs += p.range.timing.metadataMs;
    }
    const joined = group.length > 1 ? joinParts(group) : { range, headers: ends, firstBlocks: undefined };
    const r = joined.range;
    // Keep READ_AHEAD ranges in flight while this one is written: the node works while we do.
    const inFlight = () => s.ahead.filter((a) => a.parts).length;
    for (let end = s.ahead.at(-1)?.to ?? r.to; inFlight() < READ_AHEAD && end < s.target; end = s.ahead.at(-1)!.to) {
      s.ahead.push(prepare(end + 1, Math.min(s.target, end + s.spans.span), moveCount(r) === 0));
    }
    return {
      from,
      to: r.to,
      headers: joined.headers,
      logs: r.logs,
      newContracts: r.newContracts,
      ...(joined.firstBlocks ? { firstBlocks: joined.firstBlocks } : {}),
      uris: r.uris,
      supplies: r.supplies,
      uriEvents: r.uriEvents,
      metadataUpdates: r.metadataUpdates,
      truncated: r.truncated,
      ...(r.sealed ? { sealed: r.sealed } : {}),
    };
  }

  /** Phase 5: the write, in one transaction; the uris it could not fill are kept for later. */
  async function writeRange(batch: Batch): Promise<Batch> {
    // More ranges follow this one: checkpoints are held from this write on, not from the next (the first write of a
    // catch-up otherwise crossed SQLite's threshold and ran a checkpoint inside its commit: ~100 ms, profiled).
    if (batch.to < s.target) store.catchingUp?.(true);
    const tWrite = performance.now();
    let missing: MissingUri[];
    try {
      missing = await store.apply(batch, s.tip);
    } catch (e) {
      // Nothing was written: read the committed tip again (another writer may have moved it) and the ranges anew.
      s.resync = true;
      throw e;
    }
    timing.writeMs += performance.now() - tWrite;
    s.tip = batch.to;
    if (missing.length > 0) s.pendingUris.push({ missing, block: s.tip });
    return batch;
  }

  /** What a committed write settles: supplies read, truncated ranges reported, transfers counted. */
  function afterWrite(batch: Batch): void {
    for (const a of batch.supplies.keys()) pendingSupply.delete(a);
    const truncated = batch.truncated ?? [];
    if (truncated.length > 0) s.truncatedStale = true;
    for (const t of truncated) {
      log.warn(
        `ConsecutiveTransfer of ${t.contract} in block ${t.block} names tokens ${t.fromId}..${t.toId}; indexed the first ${t.indexed} (the cap per event)`,
      );
    }
    stats.transfers += moveCount(batch);
  }

  async function refreshTruncated(): Promise<void> {
    if (!s.truncatedStale) return;
    s.truncated = await store.truncated();
    s.truncatedStale = false;
  }

  async function storePendingUris(): Promise<void> {
    while (s.pendingUris.length > 0) {
      await backfillUris(s.pendingUris[0]!.missing, s.pendingUris[0]!.block);
      s.pendingUris.shift();
    }
  }

  /**
   * uri of tokens first seen through a plain transfer, or named by an ERC-4906 event or a refresh; written in its own
   * small transaction.
   */
  async function backfillUris(missing: MissingUri[], block: number): Promise<void> {
    const uris = await readUris(chain, missing, block);
    await store.writeUris(missing, uris);
  }

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        wake = null;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(t);
        wake = null;
        resolve();
      };
    });

  const loop = (async () => {
    let failures = 0;
    while (!s.stopped) {
      try {
        const r = await step();
        failures = 0;
        s.lastError = '';
        if (r === 'idle' && !s.stopped) await sleep(pollMs);
      } catch (e) {
        if (s.stopped) break;
        failures++;
        const msg = (e as Error)?.message ?? String(e);
        if (msg !== s.lastError) log.warn(`indexer step failed (will retry): ${msg.split('\n')[0]}`);
        s.lastError = msg;
        await sleep(Math.min(5000, pollMs * 2 ** Math.min(failures, 4)));
      }
    }
  })();

  return {
    caughtUp() {
      if (s.stopped) return Promise.reject(new Error('The indexer is stopped.'));
      return new Promise((resolve, reject) => waiters.push({ seq: s.stepSeq, resolve, reject }));
    },
    status() {
      return { indexedBlock: s.tip, headBlock: s.head };
    },
    truncatedRanges() {
      return { count: s.truncated.count, cap, latest: s.truncated.latest };
    },
    async refreshToken(contract, id) {
      const targets = await store.metadataTargets([{ contract: contract.toLowerCase(), fromId: id, toId: id }]);
      if (targets.length === 0 || s.stopped) return false;
      const block = s.tip;
      backfillUris(targets, block).catch((e) => log.warn(`refresh of ${contract} token ${id} failed: ${(e as Error).message}`));
      return true;
    },
    stats() {
      const rpc = new Map(chain.stats);
      for (const [method, n] of reader?.stats ?? []) rpc.set(method, (rpc.get(method) ?? 0) + n);
      return {
        transfers: stats.transfers,
        rpc: Object.fromEntries(rpc),
        reorgs: stats.reorgs,
        firstRangeStart: stats.firstRangeStart,
        timing: { ...timing },
        readerThread: reader?.usable ?? false,
        writerThread: writeThread !== null,
        threadReads: stats.threadReads,
      };
    },
    async stop() {
      if (s.stopped) return;
      s.stopped = true;
      wake?.();
      // Requests in flight are aborted, not awaited: a catch-up step may be waiting on megabytes of logs.
      chain.destroy();
      await reader?.stop();
      await loop;
      try {
        store.catchingUp?.(false);
      } catch (e) {
        log.warn(`index checkpoint after stopping failed: ${(e as Error).message}`);
      }
      // The checkpoint owed at the stop runs to its end on its thread before the thread goes.
      store.useCheckpointer?.(null);
      await checkpointer?.stop();
      await writeThread?.close();
      progress.done();
      for (const w of waiters.splice(0)) w.reject(new Error('The indexer stopped before it caught up.'));
    },
  };
}
