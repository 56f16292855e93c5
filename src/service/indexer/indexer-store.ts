// Where the indexer keeps the index: the operations its loop needs, on SQLite (here, synchronous underneath) or on
// PostgreSQL (indexer-store-pg.ts). Both apply ranges and rollbacks through the same functions (indexer-apply.ts,
// indexer-reorg.ts) and the listing's IndexWriter.
import { deferCheckpoints, type Db } from '../../lib/sqlite.js';
import type { Checkpointer } from '../../lib/sqlite-checkpointer.js';
import { bumpGeneration, createIndexWriter, tokenKeys, type IndexWriter } from '../listing/listing-writer.js';
import { applyBatch, applyUris, metadataTargets, type Batch, type MissingUri } from './indexer-apply.js';
import type { MetadataUpdate } from './indexer-events.js';
import type { PrepareLookups } from './indexer-prepare.js';
import { checkpointsBelow, rollbackTo, storedHash, type Checkpoint } from './indexer-reorg.js';
import { migrateIndex } from './indexer-schema.js';

/** An EIP-2309 range indexed only up to the cap, as /health lists it. */
export interface TruncatedRow {
  block: number;
  contract: string;
  fromTokenId: string;
  toTokenId: string;
  indexed: number;
}

export interface IndexStore {
  /** A SQLite file the reader thread may open read-only; null: ranges are read on the indexer's own thread. */
  readonly readerFile: string | null;
  /** What the read-ahead asks of the index (is a contract known, is an ERC-1155 id known). */
  readonly lookups: PrepareLookups;
  /** The last block indexed, as committed (null: nothing yet). */
  tip(): Promise<number | null>;
  storedHash(block: number): Promise<string | null>;
  /** Checkpoints at or below `below`, newest first. */
  checkpointsBelow(below: number, limit: number): Promise<Checkpoint[]>;
  /** Writes one range on top of `tip` (the store refuses when its committed tip is another: a second writer). */
  apply(batch: Batch, tip: number): Promise<MissingUri[]>;
  /** Undoes everything above `ancestor`; returns the contracts whose totalSupply must be read again. */
  rollback(ancestor: number, tip: number): Promise<string[]>;
  /** Stores uris read after a write (tokens first seen through a transfer, ERC-4906 updates, refreshes). */
  writeUris(missing: readonly MissingUri[], uris: readonly string[]): Promise<void>;
  /** Tokens and ids of the index that ERC-4906 events (or a refresh) name. */
  metadataTargets(updates: readonly MetadataUpdate[]): Promise<MissingUri[]>;
  truncated(): Promise<{ count: number; latest: TruncatedRow[] }>;
  /** Keeps every checkpoint of the last 10,000 blocks below `tip` and the newest one below them. */
  pruneCheckpoints(tip: number): Promise<void>;
  /**
   * Told after each write (once its outcome is recorded) whether more ranges follow at once, before a write that more
   * ranges follow, and `false` when the indexer stops. A store may batch housekeeping over a catch-up (SQLite: WAL
   * checkpoints, CHECKPOINT_EVERY_MOVES).
   */
  catchingUp?(behind: boolean): void;
  /**
   * A thread that runs the checkpoints owed after a catch-up's hold on another connection of `readerFile` (null: run
   * them on the writer's connection, as when the thread cannot run or has failed).
   */
  useCheckpointer?(checkpointer: Checkpointer | null): void;
}

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

/** `checkpointEveryMoves`: see CHECKPOINT_EVERY_MOVES (tests use a few). */
export function sqliteIndexStore(db: Db, bucketSize?: number, checkpointEveryMoves = CHECKPOINT_EVERY_MOVES): IndexStore {
  migrateIndex(db);
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
  const truncatedLatest = db.prepare('SELECT block, contract, from_id, to_id, indexed FROM idx_truncated ORDER BY block DESC, log_index DESC LIMIT 5');
  const prune = db.prepare('DELETE FROM idx_blocks WHERE number < (SELECT max(number) FROM idx_blocks WHERE number < ?)');
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
        db.transaction(() => {
          applyUris(writer, missing, uris);
          bumpGeneration(db);
        })(),
      );
    },
    metadataTargets: async (updates) => metadataTargets(writer, updates),
    async truncated() {
      const rows = truncatedLatest.all() as { block: number; contract: string; from_id: string; to_id: string; indexed: number }[];
      return {
        count: truncatedCount.get() as number,
        latest: rows.map((r) => ({ block: r.block, contract: r.contract, fromTokenId: r.from_id, toTokenId: r.to_id, indexed: r.indexed })),
      };
    },
    async pruneCheckpoints(tip) {
      prune.run(tip - 10_000);
    },
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
