// The index in the SQLite database of a single instance (the contract: ../indexer-store.ts): synchronous underneath,
// with WAL checkpoints held over a catch-up.
import { deferCheckpoints, writeTransaction, type Db } from '../../../lib/sqlite.js';
import type { Checkpointer } from '../../../lib/sqlite-checkpointer.js';
import { tokenKeys, type IndexWriter } from '../../listing/listing-writer.js';
import { bumpGeneration } from '../../listing/sqlite/listing-rank-sqlite.js';
import { createIndexWriter } from '../../listing/sqlite/listing-writer-sqlite.js';
import { applyUris, metadataTargets } from '../indexer-apply.js';
import { checkpointsBelow, storedHash } from '../indexer-reorg.js';
import { applyBatch, rollbackTo } from './indexer-sink-sqlite.js';
import { CHECKPOINT_KEEP_BLOCKS, LATEST_TRUNCATED_SQL, PRUNE_CHECKPOINTS_SQL, toTruncatedRow, type IndexStore } from '../indexer-store.js';
import { migrateIndex } from './indexer-schema-sqlite.js';
import { startWriteThread } from './indexer-write-thread.js';

/**
 * Moves written between WAL checkpoints while catching up. SQLite otherwise checkpoints after nearly every range (each
 * 10,000-move range writes ~4,000 pages, the threshold is 1,000): it copies the range's pages into the database file
 * and syncs it, 20-110 ms per range here, and a page dirtied by several ranges is copied once per range. Held over
 * 50,000 moves the WAL grows to about 80 MB before one checkpoint copies each page once.
 */
export const CHECKPOINT_EVERY_MOVES = 50_000;

/**
 * While catching up, every this many owed checkpoints one runs on the writer's own connection. A checkpoint on the
 * thread copies the log only up to where it stood when it began, and the writer appends meanwhile, so SQLite never
 * finds the whole log copied and never starts it over: the file would grow by ~80 MB per 50,000 moves for the whole
 * catch-up. The writer's own checkpoint copies what the thread's left (no write runs beside it), and the next write
 * starts the log over; the WAL stays under about this many times 80 MB.
 */
export const OWN_CHECKPOINT_EVERY = 4;

/** `listingSteps`: the listing's SQLite schema steps; `checkpointEveryMoves`: see CHECKPOINT_EVERY_MOVES (tests use a few). */
export function openSqliteIndexStore(
  db: Db,
  listingSteps: readonly string[],
  bucketSize?: number,
  checkpointEveryMoves = CHECKPOINT_EVERY_MOVES,
): IndexStore {
  migrateIndex(db, listingSteps);
  let writer: IndexWriter = createIndexWriter(db, bucketSize);
  // After a failed transaction cached rows may name rows that no longer exist: start over with a fresh writer.
  const guarded = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (e) {
      writer = createIndexWriter(db, bucketSize);
      throw e;
    }
  };
  const tipStmt = db.prepare("SELECT value FROM idx_state WHERE key = 'tip'").pluck();
  const truncatedCount = db.prepare('SELECT count(*) FROM idx_truncated').pluck();
  const truncatedLatest = db.prepare(LATEST_TRUNCATED_SQL);
  const prune = db.prepare(PRUNE_CHECKPOINTS_SQL);
  // Checkpoints held while catching up, and the moves written since they were.
  let held: (() => void) | null = null;
  let checkpointer: Checkpointer | null = null;
  // Owed checkpoints while behind, and whether the next one runs on this connection.
  let owed = 0;
  let ownTurn = false;
  // The owed checkpoint copies up to ~80 MB of WAL into the file and syncs it: 150-350 ms of the writer's time per
  // 50,000 moves when it runs here, so the checkpoint thread runs it (see OWN_CHECKPOINT_EVERY for the exception).
  const runOwed = () => (checkpointer?.usable && !ownTurn ? checkpointer.request() : db.pragma('wal_checkpoint(PASSIVE)'));
  let movesHeld = 0;
  const releaseCheckpoints = () => {
    const release = held;
    held = null;
    // The owed checkpoint runs here, after the write committed: if it fails (a full disk) the writes stay in the WAL
    // and the error reaches the indexer's loop as a failed step, which goes on from the committed tip.
    release?.();
  };
  return {
    readerFile: db.name,
    lookups: {
      contractOf: (a) => writer.contract(a),
      idKnown: (c, id) => writer.idRow(c.id, tokenKeys(c.addr, id).kId) !== undefined,
    },
    async tip() {
      const v = tipStmt.get() as string | undefined;
      return v === undefined ? null : Number(v);
    },
    storedHash: async (block) => storedHash(db, block),
    checkpointsBelow: async (below, limit) => checkpointsBelow(db, below, limit),
    async apply(batch) {
      const missing = guarded(() => applyBatch(db, writer, batch));
      movesHeld += batch.logs.length;
      return missing;
    },
    async rollback(ancestor) {
      try {
        return rollbackTo(db, writer, ancestor);
      } finally {
        writer = createIndexWriter(db, bucketSize);
      }
    },
    async writeUris(missing, uris) {
      guarded(() =>
        writeTransaction(db, () => {
          applyUris(writer, missing, uris);
          bumpGeneration(db);
        })(),
      );
    },
    metadataTargets: async (updates) => metadataTargets(writer, updates),
    async truncated() {
      return {
        count: truncatedCount.get() as number,
        latest: (truncatedLatest.all() as Parameters<typeof toTruncatedRow>[0][]).map(toTruncatedRow),
      };
    },
    async pruneCheckpoints(tip) {
      prune.run(tip - CHECKPOINT_KEEP_BLOCKS);
    },
    // Given up on, the thread hands over to a store opened then: its cached rows start from what the thread committed.
    onWriteThread: (log) =>
      startWriteThread(
        db,
        { bucketSize, checkpointEveryMoves },
        () => openSqliteIndexStore(db, listingSteps, bucketSize, checkpointEveryMoves),
        log,
      ),
    useCheckpointer(c) {
      checkpointer = c;
    },
    catchingUp(behind) {
      if (!behind || movesHeld >= checkpointEveryMoves) {
        // At the head (or a stop) the writer goes idle and the thread's checkpoint can copy the whole log: it runs there.
        ownTurn = behind && ++owed % OWN_CHECKPOINT_EVERY === 0;
        releaseCheckpoints();
      }
      if (behind && !held) {
        held = deferCheckpoints(db, runOwed);
        movesHeld = 0;
      }
    },
  };
}
